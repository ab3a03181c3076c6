package client

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// fakeClock advances only when something sleeps on it, and records every
// sleep, so waits can be checked exactly without taking any time.
type fakeClock struct {
	mu    sync.Mutex
	now   time.Time
	slept []time.Duration
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }

func (f *fakeClock) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

func (f *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.slept = append(f.slept, d)
	f.now = f.now.Add(d)
	return nil
}

func (f *fakeClock) Advance(d time.Duration) {
	f.mu.Lock()
	f.now = f.now.Add(d)
	f.mu.Unlock()
}

func (f *fakeClock) Slept() []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Duration(nil), f.slept...)
}

// countingServer is an httptest server that counts the requests it gets.
type countingServer struct {
	*httptest.Server
	n atomic.Int64
}

func newCountingServer(t testing.TB, h http.HandlerFunc) *countingServer {
	t.Helper()
	s := &countingServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.n.Add(1)
		h(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// newTestClient returns a client of srv with a fake clock and no rate limit.
func newTestClient(t *testing.T, url string, opts ...Option) (*Client, *fakeClock) {
	t.Helper()
	fc := newFakeClock()
	c, err := New(&Config{Host: url, QPS: -1}, append([]Option{withClock(fc)}, opts...)...)
	require.NoError(t, err)
	return c, fc
}
