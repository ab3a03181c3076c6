package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/orkit/orkit/api/meta"
)

const (
	// maxErrorBody bounds how much of an error response is read.
	maxErrorBody = 1 << 20
	// maxResponseBody bounds a non-streaming response (a large list).
	maxResponseBody = 512 << 20
	// maxRetryAfter caps how long a server's Retry-After is honoured.
	maxRetryAfter = time.Minute
)

// request is one API call before it is sent: the verb, the absolute path
// (without the client's prefix), the query, the body. replaySafe says the
// request may be sent again after a failure that may have reached the
// server (connection errors after sending, 503, 504).
type request struct {
	method      string
	path        string
	query       url.Values
	body        []byte
	contentType string
	replaySafe  bool
}

// url returns the full URL of r on c's server.
func (c *Client) url(r *request) string {
	u := *c.base
	u.Path = c.base.Path + r.path
	u.RawPath = ""
	if len(r.query) > 0 {
		u.RawQuery = r.query.Encode()
	}
	return u.String()
}

// do sends r, retrying as allowed, and returns the body of a 2xx response.
// A non-2xx response becomes an error wrapping its *meta.Status.
func (c *Client) do(ctx context.Context, r *request) ([]byte, error) {
	var body []byte
	err := c.retry(ctx, r, false, func(resp *http.Response) error {
		b, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBody+1))
		if err != nil {
			return fmt.Errorf("%s %s: read response: %w", r.method, r.path, err)
		}
		if len(b) > maxResponseBody {
			return fmt.Errorf("%w: %s %s: response larger than %d bytes", ErrDecode, r.method, r.path, maxResponseBody)
		}
		body = b
		return nil
	})
	return body, err
}

// stream sends r, retrying as allowed until the server answers 2xx, and
// returns the open response body; the caller closes it. Config.Timeout
// does not apply: the stream lasts until ctx ends or the server closes it.
func (c *Client) stream(ctx context.Context, r *request) (io.ReadCloser, error) {
	var rc io.ReadCloser
	err := c.retry(ctx, r, true, func(resp *http.Response) error {
		rc = resp.Body
		return nil
	})
	return rc, err
}

// retry runs attempts of r until one succeeds (ok consumes the 2xx
// response), the error is final, retries run out or ctx ends.
func (c *Client) retry(ctx context.Context, r *request, streaming bool, ok func(*http.Response) error) error {
	var last error
	for attempt := 0; ; attempt++ {
		if err := c.limiter.Wait(ctx); err != nil {
			return fmt.Errorf("%s %s: wait for rate limiter: %w", r.method, r.path, err)
		}
		wait, err := c.attempt(ctx, r, streaming, ok)
		if err == nil {
			return nil
		}
		if wait < 0 || ctx.Err() != nil {
			return err
		}
		last = err
		if attempt >= c.maxRetries {
			if c.maxRetries == 0 {
				return err
			}
			return fmt.Errorf("%w after %d attempts: %w", ErrRetriesExhausted, attempt+1, last)
		}
		if wait == 0 {
			wait = c.backoffFor(attempt)
		}
		c.logger.DebugContext(ctx, "retrying request", "method", r.method, "path", r.path, "attempt", attempt+1, "wait", wait, "err", err)
		if err := c.clock.Sleep(ctx, wait); err != nil {
			return fmt.Errorf("%s %s: %w (last error: %w)", r.method, r.path, err, last)
		}
	}
}

// attempt sends r once. It returns the error and how long to wait before
// retrying: negative means the error is final, zero means use the
// backoff, positive is the server's Retry-After.
func (c *Client) attempt(ctx context.Context, r *request, streaming bool, ok func(*http.Response) error) (time.Duration, error) {
	actx, cancel := ctx, context.CancelFunc(func() {})
	if c.timeout > 0 && !streaming {
		actx, cancel = context.WithTimeout(ctx, c.timeout) // streams live until ctx ends
	}
	defer cancel()
	var body io.Reader
	if r.body != nil {
		body = bytes.NewReader(r.body) // lets the transport replay it (GetBody)
	}
	req, err := http.NewRequestWithContext(actx, r.method, c.url(r), body)
	if err != nil {
		return -1, fmt.Errorf("%w: %s %s: %w", ErrRequest, r.method, r.path, err)
	}
	req.Header.Set("Accept", "application/json")
	if r.contentType != "" {
		req.Header.Set("Content-Type", r.contentType)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		err = fmt.Errorf("%s %s: %w", r.method, r.path, err)
		if r.replaySafe || neverSent(err) {
			return 0, err
		}
		return -1, err
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		err := ok(resp)
		if !streaming {
			resp.Body.Close()
		}
		return -1, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	st := decodeStatus(resp.StatusCode, resp.Header, b)
	err = fmt.Errorf("%s %s: %w", r.method, r.path, st)
	switch {
	case resp.StatusCode == http.StatusTooManyRequests:
		return retryAfter(resp.Header), err
	case (resp.StatusCode == http.StatusServiceUnavailable || resp.StatusCode == http.StatusGatewayTimeout) && r.replaySafe:
		return retryAfter(resp.Header), err
	}
	return -1, err
}

// neverSent reports whether err happened before the request could reach
// the server (the connection was refused), so any verb may be retried.
func neverSent(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// retryAfter reads a Retry-After header in seconds (0 when absent),
// capped at maxRetryAfter.
func retryAfter(h http.Header) time.Duration {
	n, err := strconv.Atoi(strings.TrimSpace(h.Get("Retry-After")))
	if err != nil || n <= 0 {
		return 0
	}
	return min(time.Duration(n)*time.Second, maxRetryAfter)
}

// backoffFor returns the exponential backoff before retry attempt+1, with
// up to 20% jitter.
func (c *Client) backoffFor(attempt int) time.Duration {
	d := c.backoff
	for i := 0; i < attempt && d < c.maxBackoff; i++ {
		d *= 2
	}
	d = min(d, c.maxBackoff)
	return d + time.Duration(rand.Int64N(int64(d)/5+1))
}

// decodeStatus turns an error response into a *meta.Status: the server's
// own when the body is one, else one made from the HTTP code.
func decodeStatus(code int, h http.Header, body []byte) *meta.Status {
	st := &meta.Status{}
	if err := json.Unmarshal(body, st); err == nil && st.Kind == "Status" {
		if st.Code == 0 {
			st.Code = int32(code)
		}
		if st.Reason == "" {
			st.Reason = reasonForCode(code)
		}
		return st
	}
	msg := fmt.Sprintf("the server responded with status %d (%s)", code, http.StatusText(code))
	if text := strings.TrimSpace(string(body)); text != "" {
		if len(text) > 512 {
			text = text[:512] + "..."
		}
		msg += ": " + text
	}
	st = &meta.Status{
		TypeMeta: meta.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: meta.StatusFailure,
		Code: int32(code), Reason: reasonForCode(code), Message: msg,
	}
	if ra := retryAfter(h); ra > 0 {
		st.Details = &meta.StatusDetails{RetryAfterSeconds: int32(ra / time.Second)}
	}
	return st
}

// reasonForCode is the Status reason Kubernetes gives each HTTP code.
func reasonForCode(code int) meta.StatusReason {
	switch code {
	case http.StatusBadRequest:
		return meta.StatusReasonBadRequest
	case http.StatusUnauthorized:
		return meta.StatusReasonUnauthorized
	case http.StatusForbidden:
		return meta.StatusReasonForbidden
	case http.StatusNotFound:
		return meta.StatusReasonNotFound
	case http.StatusMethodNotAllowed:
		return meta.StatusReasonMethodNotAllowed
	case http.StatusNotAcceptable:
		return meta.StatusReasonNotAcceptable
	case http.StatusConflict:
		return meta.StatusReasonConflict
	case http.StatusGone:
		return meta.StatusReasonGone
	case http.StatusRequestEntityTooLarge:
		return meta.StatusReasonRequestEntityTooLarge
	case http.StatusUnsupportedMediaType:
		return meta.StatusReasonUnsupportedMediaType
	case http.StatusUnprocessableEntity:
		return meta.StatusReasonInvalid
	case http.StatusTooManyRequests:
		return meta.StatusReasonTooManyRequests
	case http.StatusServiceUnavailable:
		return meta.StatusReasonServiceUnavailable
	case http.StatusGatewayTimeout:
		return meta.StatusReasonTimeout
	}
	if code >= 500 {
		return meta.StatusReasonInternalError
	}
	return meta.StatusReasonUnknown
}
