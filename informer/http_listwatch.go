package informer

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/orkit/orkit/api/meta"
)

// MaxWatchFrameBytes is the default cap on one watch frame; a bigger frame
// ends the watch with an Error event wrapping ErrDecode.
const MaxWatchFrameBytes = 16 << 20

// maxStatusBytes caps how much of an error body is read.
const maxStatusBytes = 1 << 20

// HTTPConfig says where an HTTPListerWatcher finds its resource.
type HTTPConfig struct {
	// BaseURL is the API server, e.g. "https://127.0.0.1:6443". Required.
	BaseURL string
	// Path is the collection path, e.g. "/api/v1/namespaces/ns/configmaps"
	// or "/apis/apps/v1/deployments" (see ResourcePath). Required.
	Path string
	// TLS configures the transport (CA pool, client certificate) when
	// Client is nil.
	TLS *tls.Config
	// Client sends the requests; nil means a client with its own transport
	// using TLS. Tests pass one whose connections they can cut.
	Client *http.Client
	// LabelSelector and FieldSelector narrow the scope of every request.
	LabelSelector string
	FieldSelector string
	// MaxFrameBytes caps one watch frame; 0 means MaxWatchFrameBytes.
	MaxFrameBytes int
}

// HTTPListerWatcher is a ListerWatcher that speaks the Kubernetes REST
// protocol over net/http: JSON lists with limit/continue and
// ?watch=1 streams. T is the object type the JSON decodes into (a pointer
// such as *core.ConfigMap). It is safe for concurrent use.
type HTTPListerWatcher[T any] struct {
	cfg    HTTPConfig
	base   *url.URL
	client *http.Client
}

var _ ListerWatcher[*meta.Status] = (*HTTPListerWatcher[*meta.Status])(nil)

// NewHTTPListerWatcher checks cfg and returns the ListerWatcher.
func NewHTTPListerWatcher[T any](cfg HTTPConfig) (*HTTPListerWatcher[T], error) {
	u, err := url.Parse(cfg.BaseURL + cfg.Path)
	if err != nil || u.Scheme == "" || u.Host == "" || !strings.HasPrefix(cfg.Path, "/") {
		return nil, fmt.Errorf("informer: bad base URL %q or path %q", cfg.BaseURL, cfg.Path)
	}
	c := cfg.Client
	if c == nil {
		c = &http.Client{Transport: &http.Transport{TLSClientConfig: cfg.TLS, ForceAttemptHTTP2: true}}
	}
	if cfg.MaxFrameBytes <= 0 {
		cfg.MaxFrameBytes = MaxWatchFrameBytes
	}
	return &HTTPListerWatcher[T]{cfg: cfg, base: u, client: c}, nil
}

// ResourcePath returns the collection path of a resource: core group
// resources live under /api/v1, others under /apis/<group>/<version>; an
// empty namespace means all namespaces (or a cluster-scoped resource).
func ResourcePath(gvr meta.GroupVersionResource, namespace string) string {
	p := "/apis/" + gvr.Group + "/" + gvr.Version
	if gvr.Group == "" {
		p = "/api/" + gvr.Version
	}
	if namespace != "" {
		p += "/namespaces/" + url.PathEscape(namespace)
	}
	return p + "/" + gvr.Resource
}

func (h *HTTPListerWatcher[T]) url(opts ListOptions, watch bool) string {
	q := url.Values{}
	set := func(k, v string) {
		if v != "" {
			q.Set(k, v)
		}
	}
	if watch {
		q.Set("watch", "1")
	}
	set("labelSelector", firstNonEmpty(opts.LabelSelector, h.cfg.LabelSelector))
	set("fieldSelector", firstNonEmpty(opts.FieldSelector, h.cfg.FieldSelector))
	set("resourceVersion", opts.ResourceVersion)
	set("continue", opts.Continue)
	if opts.Limit > 0 {
		q.Set("limit", strconv.FormatInt(opts.Limit, 10))
	}
	if opts.AllowWatchBookmarks {
		q.Set("allowWatchBookmarks", "true")
	}
	if opts.TimeoutSeconds > 0 {
		q.Set("timeoutSeconds", strconv.FormatInt(opts.TimeoutSeconds, 10))
	}
	u := *h.base
	u.RawQuery = q.Encode()
	return u.String()
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func (h *HTTPListerWatcher[T]) get(ctx context.Context, u string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := h.client.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		defer resp.Body.Close()
		return nil, readStatus(resp)
	}
	return resp, nil
}

// List fetches one page.
func (h *HTTPListerWatcher[T]) List(ctx context.Context, opts ListOptions) ([]T, string, string, error) {
	resp, err := h.get(ctx, h.url(opts, false))
	if err != nil {
		return nil, "", "", err
	}
	defer resp.Body.Close()
	var list meta.List[T]
	if err := json.NewDecoder(bufio.NewReaderSize(resp.Body, 64<<10)).Decode(&list); err != nil {
		return nil, "", "", fmt.Errorf("%w: list %s: %w", ErrDecode, h.cfg.Path, err)
	}
	return list.Items, list.ResourceVersion, list.Continue, nil
}

// Watch opens a watch stream. The decoding goroutine belongs to ctx: it
// stops, closing the channel and the connection, when ctx is done or the
// stream ends.
func (h *HTTPListerWatcher[T]) Watch(ctx context.Context, opts ListOptions) (<-chan Event[T], error) {
	resp, err := h.get(ctx, h.url(opts, true))
	if err != nil {
		return nil, err
	}
	ch := make(chan Event[T])
	go h.stream(ctx, resp.Body, ch)
	return ch, nil
}

func (h *HTTPListerWatcher[T]) stream(ctx context.Context, body io.ReadCloser, ch chan<- Event[T]) {
	defer close(ch)
	defer body.Close()
	lr := &frameLimiter{r: body, max: h.cfg.MaxFrameBytes}
	dec := json.NewDecoder(lr)
	for {
		lr.n = 0
		var frame meta.WatchEvent
		err := dec.Decode(&frame)
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, io.EOF) || !lr.exceeded && !isSyntax(err) && !errors.Is(err, io.ErrUnexpectedEOF) {
				return // end of stream or a cut connection: the caller resumes
			}
			send(ctx, ch, Event[T]{Type: Error, Err: fmt.Errorf("%w: watch frame on %s: %w", ErrDecode, h.cfg.Path, err)})
			return
		}
		ev := decodeFrame[T](frame)
		if !send(ctx, ch, ev) || ev.Type == Error {
			return
		}
	}
}

func isSyntax(err error) bool {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	return errors.As(err, &se) || errors.As(err, &te)
}

// decodeFrame turns one wire frame into an Event.
func decodeFrame[T any](f meta.WatchEvent) Event[T] {
	switch f.Type {
	case Added, Modified, Deleted, Bookmark:
		var obj T
		if len(f.Object) == 0 {
			return Event[T]{Type: Error, Err: fmt.Errorf("%w: %s frame without an object", ErrDecode, f.Type)}
		}
		if err := json.Unmarshal(f.Object, &obj); err != nil {
			return Event[T]{Type: Error, Err: fmt.Errorf("%w: %s object: %w", ErrDecode, f.Type, err)}
		}
		return Event[T]{Type: f.Type, Object: obj}
	case Error:
		var st meta.Status
		if err := json.Unmarshal(f.Object, &st); err != nil || (st.Code == 0 && st.Reason == "") {
			return Event[T]{Type: Error, Err: fmt.Errorf("%w: ERROR frame without a Status: %s", ErrDecode, truncate(f.Object))}
		}
		return Event[T]{Type: Error, Err: &st}
	default:
		return Event[T]{Type: Error, Err: fmt.Errorf("%w: unknown watch event type %q", ErrDecode, truncate([]byte(f.Type)))}
	}
}

func send[T any](ctx context.Context, ch chan<- Event[T], ev Event[T]) bool {
	select {
	case ch <- ev:
		return true
	case <-ctx.Done():
		return false
	}
}

// frameLimiter fails a read once more than max bytes were read since n
// was last reset (at each frame).
type frameLimiter struct {
	r        io.Reader
	n, max   int
	exceeded bool
}

func (l *frameLimiter) Read(p []byte) (int, error) {
	if l.n > l.max {
		l.exceeded = true
		return 0, fmt.Errorf("frame exceeds %d bytes", l.max)
	}
	n, err := l.r.Read(p)
	l.n += n
	return n, err
}

// readStatus turns an error response into a *meta.Status, synthesising
// one from the HTTP status when the body is not a Status.
func readStatus(resp *http.Response) error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxStatusBytes))
	var st meta.Status
	if err := json.Unmarshal(body, &st); err == nil && st.Kind == "Status" && st.Code != 0 {
		return &st
	}
	st = meta.Status{TypeMeta: meta.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: meta.StatusFailure,
		Code: int32(resp.StatusCode), Reason: reasonForCode(resp.StatusCode),
		Message: fmt.Sprintf("the server responded %s: %s", resp.Status, truncate(body))}
	return &st
}

func reasonForCode(code int) meta.StatusReason {
	switch code {
	case http.StatusGone:
		return meta.StatusReasonExpired
	case http.StatusNotFound:
		return meta.StatusReasonNotFound
	case http.StatusForbidden:
		return meta.StatusReasonForbidden
	case http.StatusUnauthorized:
		return meta.StatusReasonUnauthorized
	case http.StatusTooManyRequests:
		return meta.StatusReasonTooManyRequests
	case http.StatusServiceUnavailable:
		return meta.StatusReasonServiceUnavailable
	}
	return meta.StatusReasonInternalError
}

func truncate(b []byte) string {
	const n = 256
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}
