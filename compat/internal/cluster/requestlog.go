package cluster

import (
	"net/http"
	"net/url"
	"sync"
	"time"
)

// Request is one request a client sent and the status it got (0 when no
// response came).
type Request struct {
	Method string
	Path   string
	Query  url.Values
	Code   int    // 0 when the round trip failed
	Err    string // the round trip's error, if any
	// ContentType is the response's Content-Type ("" when it failed).
	ContentType string
	Time        time.Time // when the request was sent
}

// IsWatch says the request was a watch.
func (r Request) IsWatch() bool {
	w := r.Query.Get("watch")
	return w != "" && w != "0" && w != "false"
}

// RequestLog records the requests of the clients whose transports it
// wraps. The zero value is ready; safe for concurrent use.
type RequestLog struct {
	mu   sync.Mutex
	reqs []Request
}

// Wrap is a rest.Config.WrapTransport that records every request.
func (l *RequestLog) Wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		start := time.Now()
		resp, err := rt.RoundTrip(req)
		r := Request{Method: req.Method, Path: req.URL.Path, Query: req.URL.Query(), Time: start}
		if resp != nil {
			r.Code = resp.StatusCode
			r.ContentType = resp.Header.Get("Content-Type")
		}
		if err != nil {
			r.Err = err.Error()
		}
		l.mu.Lock()
		l.reqs = append(l.reqs, r)
		l.mu.Unlock()
		return resp, err
	})
}

// Count returns how many recorded requests match.
func (l *RequestLog) Count(match func(Request) bool) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, r := range l.reqs {
		if match(r) {
			n++
		}
	}
	return n
}

// Since returns the recorded requests sent at or after t, oldest first.
func (l *RequestLog) Since(t time.Time) []Request {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []Request
	for _, r := range l.reqs {
		if !r.Time.Before(t) {
			out = append(out, r)
		}
	}
	return out
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
