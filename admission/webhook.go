package admission

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/orkit/orkit/api/admissionregistration"
	"github.com/orkit/orkit/api/admissionreview"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
)

// maxWebhookResponse bounds the body of a webhook's answer.
const maxWebhookResponse = 10 << 20

// ServiceResolver turns a webhook's Service reference into the address to
// dial ("10.96.0.12:443" or an endpoint "127.0.0.1:9443"). The request
// still names the Service ("https://<name>.<namespace>.svc:<port>/path"),
// which is also the TLS server name, as kube-apiserver does.
// Implementations must be safe for concurrent use; a Service that does not
// exist or has nothing to reach is an error.
type ServiceResolver interface {
	ResolveService(ctx context.Context, namespace, name string, port int32) (string, error)
}

// WebhookConfig is what the webhook plugins need from the cluster.
type WebhookConfig struct {
	// Namespaces reads namespaces from a cache, for namespaceSelectors;
	// nil means every lookup goes to NamespaceLookup.
	Namespaces NamespaceGetter
	// NamespaceLookup reads a namespace the cache has not seen; nil means
	// such a namespace is not found.
	NamespaceLookup NamespaceLookup
	// Services resolves service references; nil means webhooks reached
	// through a Service fail to be called (URL webhooks still work).
	Services ServiceResolver
	// Equivalents lists the resources equivalent to a requested one, for
	// webhooks with matchPolicy Equivalent; nil means none (such webhooks
	// then match only as Exact ones do).
	Equivalents EquivalentResourceMapper
	// Converter converts objects to the version of an equivalent resource
	// a webhook matched; nil means such a call fails (as a call error,
	// under the webhook's failurePolicy).
	Converter ObjectConverter
	// Logger logs webhooks that failed under failurePolicy Ignore; nil
	// means slog.Default().
	Logger *slog.Logger
}

// webhookCaller calls webhooks over TLS. It keeps one HTTP client per CA
// bundle, built on first use and kept for the caller's lifetime. Safe for
// concurrent use.
type webhookCaller struct {
	services  ServiceResolver
	converter ObjectConverter
	log       *slog.Logger
	mu        sync.Mutex
	clients   map[string]*http.Client
}

func newWebhookCaller(cfg WebhookConfig) *webhookCaller {
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	return &webhookCaller{services: cfg.Services, converter: cfg.Converter, log: log, clients: map[string]*http.Client{}}
}

// dialKey carries the address a Service reference resolved to.
type dialKey struct{}

// client returns the HTTP client trusting caBundle (the system roots when
// empty).
func (c *webhookCaller) client(caBundle []byte) (*http.Client, error) {
	sum := sha256.Sum256(caBundle)
	key := hex.EncodeToString(sum[:])
	c.mu.Lock()
	defer c.mu.Unlock()
	if cl, ok := c.clients[key]; ok {
		return cl, nil
	}
	tlsCfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if len(caBundle) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(caBundle) {
			return nil, errors.New("unable to load root certificates: no certificates in caBundle")
		}
		tlsCfg.RootCAs = pool
	}
	dialer := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	tr := &http.Transport{
		TLSClientConfig:     tlsCfg,
		ForceAttemptHTTP2:   true,
		MaxIdleConnsPerHost: 32,
		IdleConnTimeout:     90 * time.Second,
		TLSHandshakeTimeout: 10 * time.Second,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if to, ok := ctx.Value(dialKey{}).(string); ok {
				addr = to
			}
			return dialer.DialContext(ctx, network, addr)
		},
	}
	cl := &http.Client{Transport: tr}
	c.clients[key] = cl
	return cl, nil
}

// callError is kube's ErrCallingWebhook: the webhook could not be called
// or answered nonsense. failurePolicy decides what it means.
type callError struct {
	webhook string
	reason  error
	status  *meta.Status
}

func (e *callError) Error() string {
	return fmt.Sprintf("failed calling webhook %q: %v", e.webhook, e.reason)
}

func (e *callError) Unwrap() error { return e.reason }

// endpoint returns the URL of a webhook and, for a Service reference, the
// address to dial instead of its host.
func (c *webhookCaller) endpoint(ctx context.Context, cc *admissionregistration.WebhookClientConfig) (*url.URL, string, error) {
	if cc.URL != nil {
		u, err := url.Parse(*cc.URL)
		return u, "", err
	}
	if cc.Service == nil {
		return nil, "", errors.New("webhook has neither url nor service")
	}
	s := cc.Service
	port := int32(443)
	if s.Port != nil {
		port = *s.Port
	}
	u := &url.URL{Scheme: "https", Host: net.JoinHostPort(s.Name+"."+s.Namespace+".svc", strconv.Itoa(int(port)))}
	if s.Path != nil {
		u.Path = *s.Path
	}
	if c.services == nil {
		return nil, "", errors.New("no service resolver configured")
	}
	addr, err := c.services.ResolveService(ctx, s.Namespace, s.Name, port)
	if err != nil {
		return nil, "", err
	}
	return u, addr, nil
}

// call sends review to the webhook and returns its response, checked: the
// same UID and kind, a response present. Every failure is a *callError.
func (c *webhookCaller) call(ctx context.Context, name string, cc *admissionregistration.WebhookClientConfig, timeoutSeconds *int32, review *admissionreview.AdmissionReview) (*admissionreview.AdmissionResponse, error) {
	fail := func(format string, err error) error {
		return &callError{webhook: name, reason: fmt.Errorf(format, err)}
	}
	u, addr, err := c.endpoint(ctx, cc)
	if err != nil {
		return nil, fail("failed to call webhook: %w", err)
	}
	cl, err := c.client(cc.CABundle)
	if err != nil {
		return nil, fail("could not get REST client: %w", err)
	}
	if timeoutSeconds != nil && *timeoutSeconds > 0 {
		d := time.Duration(*timeoutSeconds) * time.Second
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
		q := u.Query()
		q.Set("timeout", d.String())
		u.RawQuery = q.Encode()
	}
	if addr != "" {
		ctx = context.WithValue(ctx, dialKey{}, addr)
	}
	body, err := json.Marshal(review)
	if err != nil {
		return nil, fail("failed to call webhook: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, fail("failed to call webhook: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, */*")
	resp, err := cl.Do(req)
	if err != nil {
		return nil, fail("failed to call webhook: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxWebhookResponse+1))
	if err != nil {
		return nil, fail("failed to call webhook: %w", err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, fail("failed to call webhook: %w", fmt.Errorf("the server responded with the status code %d but did not return more information", resp.StatusCode))
	}
	if len(data) > maxWebhookResponse {
		return nil, fail("received invalid webhook response: %w", errors.New("response body too large"))
	}
	return checkResponse(name, review.Request.UID, data)
}

// checkResponse decodes a webhook's answer as kube-apiserver checks it.
func checkResponse(name, uid string, data []byte) (*admissionreview.AdmissionResponse, error) {
	var out admissionreview.AdmissionReview
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, &callError{webhook: name, reason: fmt.Errorf("received invalid webhook response: %w", err)}
	}
	if out.APIVersion != admissionreview.APIVersion || out.Kind != admissionreview.Kind {
		return nil, &callError{webhook: name, reason: fmt.Errorf("received invalid webhook response: expected webhook response of %s, Kind=%s, got %s, Kind=%s",
			admissionreview.APIVersion, admissionreview.Kind, out.APIVersion, out.Kind)}
	}
	if out.Response == nil {
		return nil, &callError{webhook: name, reason: errors.New("webhook response was absent")}
	}
	if out.Response.UID != uid {
		return nil, &callError{webhook: name, reason: fmt.Errorf("expected response.uid=%q, got %q", uid, out.Response.UID)}
	}
	return out.Response, nil
}

// newUID returns a random RFC 4122 version 4 UUID.
func newUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// buildReview makes the AdmissionReview of a for one webhook call, which
// matched the request as inv names it (a itself, or an equivalent
// resource and kind): kind and resource are inv's, requestKind and
// requestResource a's, object and oldObject as given (JSON of inv's kind).
func buildReview(a, inv *Attributes, object, oldObject []byte) *admissionreview.AdmissionReview {
	req := &admissionreview.AdmissionRequest{
		UID:         newUID(),
		Kind:        admissionreview.GroupVersionKind{Group: inv.Kind.Group, Version: inv.Kind.Version, Kind: inv.Kind.Kind},
		Resource:    admissionreview.GroupVersionResource{Group: inv.Resource.Group, Version: inv.Resource.Version, Resource: inv.Resource.Resource},
		SubResource: a.Subresource, Name: a.Name, Namespace: a.Namespace, Operation: string(a.Operation),
		Object: object, OldObject: oldObject,
	}
	req.RequestKind = &admissionreview.GroupVersionKind{Group: a.Kind.Group, Version: a.Kind.Version, Kind: a.Kind.Kind}
	req.RequestResource = &admissionreview.GroupVersionResource{Group: a.Resource.Group, Version: a.Resource.Version, Resource: a.Resource.Resource}
	req.RequestSubResource = a.Subresource
	dry := a.DryRun
	req.DryRun = &dry
	if a.User != nil {
		req.UserInfo = admissionreview.UserInfo{Username: a.User.Name, UID: a.User.UID, Groups: a.User.Groups, Extra: a.User.Extra}
	}
	req.Options = operationOptions(a)
	return &admissionreview.AdmissionReview{
		TypeMeta: meta.TypeMeta{APIVersion: admissionreview.APIVersion, Kind: admissionreview.Kind},
		Request:  req,
	}
}

// operationOptions is the options object kube sends with each operation.
func operationOptions(a *Attributes) json.RawMessage {
	kind := map[Operation]string{Create: "CreateOptions", Update: "UpdateOptions", Delete: "DeleteOptions"}[a.Operation]
	if kind == "" {
		return nil
	}
	opts := map[string]any{"kind": kind, "apiVersion": "meta.k8s.io/v1"}
	if a.DryRun {
		opts["dryRun"] = []string{"All"}
	}
	b, _ := json.Marshal(opts)
	return b
}

// denied words a webhook's refusal as kube-apiserver's ToStatusErr does:
// `admission webhook "x" denied the request: <message>`, at least a 400.
func denied(name string, result *meta.Status) *meta.Status {
	st := meta.Status{}
	if result != nil {
		st = *result
	}
	st.TypeMeta = meta.TypeMeta{Kind: "Status", APIVersion: "v1"}
	if st.Code < http.StatusBadRequest {
		st.Code = http.StatusBadRequest
	}
	if st.Status == "" || st.Status == meta.StatusSuccess {
		st.Status = meta.StatusFailure
	}
	by := fmt.Sprintf("admission webhook %q denied the request", name)
	switch {
	case st.Message != "":
		st.Message = by + ": " + st.Message
	case st.Reason != "":
		st.Message = by + ": " + string(st.Reason)
	default:
		st.Message = by + " without explanation"
	}
	return &st
}

// dryRunCheck refuses a dry-run request for a webhook that may have side
// effects, as kube-apiserver does (the webhook is not called).
func dryRunCheck(name string, sideEffects *admissionregistration.SideEffectClass, a *Attributes) error {
	if !a.DryRun {
		return nil
	}
	if sideEffects == nil {
		return &callError{webhook: name, reason: errors.New("Webhook SideEffects is nil"), status: apierrors.NewBadRequest("Webhook SideEffects is nil")}
	}
	if *sideEffects == admissionregistration.SideEffectClassNone || *sideEffects == admissionregistration.SideEffectClassNoneOnDryRun {
		return nil
	}
	return apierrors.NewBadRequest(fmt.Sprintf("admission webhook %q does not support dry run", name))
}

// failure applies failurePolicy to a webhook error: Ignore logs a call
// error and admits; otherwise a call error becomes a 500 (or its own
// Status) and a denial stays as it is.
func (c *webhookCaller) failure(ctx context.Context, name string, policy *admissionregistration.FailurePolicyType, err error) error {
	var ce *callError
	if !errors.As(err, &ce) {
		return err
	}
	if policy != nil && *policy == admissionregistration.Ignore {
		c.log.WarnContext(ctx, "admission: failed calling webhook, failing open", "webhook", name, "err", err)
		return nil
	}
	if ce.status != nil {
		return ce.status
	}
	return apierrors.NewInternalError(err)
}

// addWarnings passes a webhook's warnings to the client.
func addResponseWarnings(ctx context.Context, resp *admissionreview.AdmissionResponse) {
	for _, w := range resp.Warnings {
		AddWarning(ctx, w)
	}
}
