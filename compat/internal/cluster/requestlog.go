package cluster

import (
	"net/http"
	"net/url"
	"sync"
)

// Request is one request a client sent and the status it got (0 when no
// response came).
type Request struct {
	Method string
	Path   string
	Query  url.Values
	Code   int
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
		resp, err := rt.RoundTrip(req)
		r := Request{Method: req.Method, Path: req.URL.Path, Query: req.URL.Query()}
		if resp != nil {
			r.Code = resp.StatusCode
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

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
