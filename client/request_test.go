package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
)

func writeStatus(w http.ResponseWriter, st *meta.Status) {
	if st.Details != nil && st.Details.RetryAfterSeconds > 0 {
		w.Header().Set("Retry-After", fmt.Sprint(st.Details.RetryAfterSeconds))
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(int(st.Code))
	_ = json.NewEncoder(w).Encode(st)
}

func writeObject(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func configMap(name string) *core.ConfigMap {
	return &core.ConfigMap{
		TypeMeta:   meta.TypeMeta{Kind: "ConfigMap", APIVersion: "v1"},
		ObjectMeta: meta.ObjectMeta{Name: name, Namespace: "default", ResourceVersion: "7"},
		Data:       map[string]string{"k": "v"},
	}
}

// TestRetryTooManyRequests: a 429 is retried for every verb, waiting what
// Retry-After says, until the server answers.
func TestRetryTooManyRequests(t *testing.T) {
	for _, method := range []string{"GET", "POST", "PATCH"} {
		t.Run(method, func(t *testing.T) {
			var calls atomic.Int64
			srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
				if calls.Add(1) <= 2 {
					writeStatus(w, apierrors.NewTooManyRequests("slow down", 3))
					return
				}
				writeObject(w, http.StatusOK, configMap("a"))
			})
			c, fc := newTestClient(t, srv.URL)
			_, err := c.do(context.Background(), &request{method: method, path: "/api/v1/namespaces/default/configmaps/a", body: []byte("{}")})
			require.NoError(t, err)
			assert.Equal(t, int64(3), srv.n.Load())
			assert.Equal(t, []time.Duration{3 * time.Second, 3 * time.Second}, fc.Slept())
		})
	}
}

// TestRetryExhausted: after the configured retries the last error is
// returned, still recognisable as a 429.
func TestRetryExhausted(t *testing.T) {
	srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeStatus(w, apierrors.NewTooManyRequests("slow down", 1))
	})
	c, fc := newTestClient(t, srv.URL, WithRetry(2, 10*time.Millisecond, time.Second))
	_, err := For[core.ConfigMap](c, "default").Get(context.Background(), "a")
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrRetriesExhausted)
	assert.True(t, apierrors.IsTooManyRequests(err), "%v", err)
	assert.Equal(t, int64(3), srv.n.Load())
	assert.Len(t, fc.Slept(), 2)
}

// TestRetryUnavailable: 503 and 504 are retried with exponential backoff
// only for requests that are safe to replay.
func TestRetryUnavailable(t *testing.T) {
	tests := []struct {
		name      string
		code      int
		call      func(c *Client) error
		wantCalls int64
	}{
		{"get 503", 503, func(c *Client) error {
			_, err := For[core.ConfigMap](c, "default").Get(context.Background(), "a")
			return err
		}, 3},
		{"get 504", 504, func(c *Client) error {
			_, err := For[core.ConfigMap](c, "default").Get(context.Background(), "a")
			return err
		}, 3},
		{"create 503 not retried", 503, func(c *Client) error {
			_, err := For[core.ConfigMap](c, "default").Create(context.Background(), configMap("a"))
			return err
		}, 1},
		{"update with resourceVersion retried", 503, func(c *Client) error {
			_, err := For[core.ConfigMap](c, "default").Update(context.Background(), configMap("a"))
			return err
		}, 3},
		{"update without resourceVersion not retried", 503, func(c *Client) error {
			cm := configMap("a")
			cm.ResourceVersion = ""
			_, err := For[core.ConfigMap](c, "default").Update(context.Background(), cm)
			return err
		}, 1},
		{"delete without precondition not retried", 503, func(c *Client) error {
			return For[core.ConfigMap](c, "default").Delete(context.Background(), "a", nil)
		}, 1},
		{"delete with uid precondition retried", 503, func(c *Client) error {
			uid := meta.UID("u1")
			return For[core.ConfigMap](c, "default").Delete(context.Background(), "a", &meta.DeleteOptions{Preconditions: &meta.Preconditions{UID: &uid}})
		}, 3},
		{"patch 504 not retried", 504, func(c *Client) error {
			_, err := For[core.ConfigMap](c, "default").Patch(context.Background(), "a", MergePatchType, []byte(`{}`))
			return err
		}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls atomic.Int64
			srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
				if calls.Add(1) <= 2 {
					writeStatus(w, &meta.Status{TypeMeta: meta.TypeMeta{Kind: "Status", APIVersion: "v1"}, Code: int32(tt.code), Message: "busy"})
					return
				}
				writeObject(w, http.StatusOK, configMap("a"))
			})
			c, fc := newTestClient(t, srv.URL, WithRetry(5, 100*time.Millisecond, time.Second))
			err := tt.call(c)
			assert.Equal(t, tt.wantCalls, srv.n.Load())
			if tt.wantCalls == 1 {
				require.Error(t, err)
				assert.Equal(t, int32(tt.code), apierrors.FromError(err).Code)
				return
			}
			require.NoError(t, err)
			slept := fc.Slept()
			require.Len(t, slept, 2)
			assert.GreaterOrEqual(t, slept[0], 100*time.Millisecond)
			assert.GreaterOrEqual(t, slept[1], 200*time.Millisecond, "backoff doubles")
			assert.LessOrEqual(t, slept[1], 240*time.Millisecond, "jitter is at most 20%%")
		})
	}
}

// TestRetryConnectionErrors: a refused connection never reached the
// server, so any verb is retried; the error names the request.
func TestRetryConnectionErrors(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	c, fc := newTestClient(t, "http://"+addr, WithRetry(3, 10*time.Millisecond, time.Second))
	_, err = For[core.ConfigMap](c, "default").Create(context.Background(), configMap("a"))
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrRetriesExhausted)
	assert.Contains(t, err.Error(), "POST /api/v1/namespaces/default/configmaps")
	assert.Len(t, fc.Slept(), 3)
}

// TestRetryHonoursContext: a cancelled context stops the retry loop.
func TestRetryHonoursContext(t *testing.T) {
	srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeStatus(w, apierrors.NewTooManyRequests("slow down", 1))
	})
	c, err := New(&Config{Host: srv.URL, QPS: -1})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = For[core.ConfigMap](c, "default").Get(ctx, "a")
	assert.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, int64(0), srv.n.Load())
}

// TestErrorDecoding: the server's Status comes back intact; a body that
// is not a Status becomes one made from the HTTP code.
func TestErrorDecoding(t *testing.T) {
	tests := []struct {
		name       string
		handler    http.HandlerFunc
		wantReason meta.StatusReason
		wantCode   int32
		wantMsg    string
		is         func(error) bool
	}{
		{"status body", func(w http.ResponseWriter, r *http.Request) {
			writeStatus(w, apierrors.NewNotFound(meta.GroupResource{Resource: "configmaps"}, "a"))
		}, meta.StatusReasonNotFound, 404, `configmaps "a" not found`, apierrors.IsNotFound},
		{"plain text 500", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "boom", http.StatusInternalServerError)
		}, meta.StatusReasonInternalError, 500, "boom", nil},
		{"plain text 403", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "nope", http.StatusForbidden)
		}, meta.StatusReasonForbidden, 403, "nope", apierrors.IsForbidden},
		{"json that is not a Status", func(w http.ResponseWriter, r *http.Request) {
			writeObject(w, http.StatusConflict, map[string]string{"error": "x"})
		}, meta.StatusReasonConflict, 409, `{"error":"x"}`, apierrors.IsConflict},
		{"410 Expired keeps the server's reason", func(w http.ResponseWriter, r *http.Request) {
			writeStatus(w, apierrors.NewResourceExpired("too old resource version: 1 (5)"))
		}, meta.StatusReasonExpired, 410, "too old resource version", apierrors.IsResourceExpired},
		{"plain text 410 is Gone", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "gone", http.StatusGone)
		}, meta.StatusReasonGone, 410, "gone", apierrors.IsGone},
		{"huge error body is cut", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusBadRequest)
			for range 3000 {
				_, _ = w.Write([]byte("0123456789"))
			}
		}, meta.StatusReasonBadRequest, 400, "...", apierrors.IsBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newCountingServer(t, tt.handler)
			c, _ := newTestClient(t, srv.URL)
			_, err := For[core.ConfigMap](c, "default").Get(context.Background(), "a")
			require.Error(t, err)
			var st *meta.Status
			require.True(t, errors.As(err, &st), "%v", err)
			assert.Equal(t, tt.wantReason, st.Reason)
			assert.Equal(t, tt.wantCode, st.Code)
			assert.Contains(t, st.Message, tt.wantMsg)
			assert.Less(t, len(st.Message), 1024)
			if tt.is != nil {
				assert.True(t, tt.is(err))
			}
		})
	}
}

// TestTimeoutPerAttempt: Config.Timeout bounds each attempt; the slow
// attempt fails and, for a GET, the next one succeeds.
func TestTimeoutPerAttempt(t *testing.T) {
	var calls atomic.Int64
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			select {
			case <-r.Context().Done():
			case <-release:
			}
			return
		}
		writeObject(w, http.StatusOK, configMap("a"))
	})
	fc := newFakeClock()
	c, err := New(&Config{Host: srv.URL, QPS: -1, Timeout: 50 * time.Millisecond}, withClock(fc))
	require.NoError(t, err)
	cm, err := For[core.ConfigMap](c, "default").Get(context.Background(), "a")
	require.NoError(t, err)
	assert.Equal(t, "a", cm.Name)
	assert.Equal(t, int64(2), srv.n.Load())
}

// TestBadNames: names that would address another path are refused before
// anything is sent.
func TestBadNames(t *testing.T) {
	srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) { writeObject(w, 200, configMap("a")) })
	c, _ := newTestClient(t, srv.URL)
	r := For[core.ConfigMap](c, "default")
	for _, name := range []string{"", "..", ".", "a/b", "a?b", "a%2fb", "x#y"} {
		_, err := r.Get(context.Background(), name)
		assert.ErrorIs(t, err, ErrRequest, "name %q", name)
	}
	_, err := For[core.ConfigMap](c, "../kube-system").Get(context.Background(), "a")
	assert.ErrorIs(t, err, ErrRequest)
	assert.Equal(t, int64(0), srv.n.Load())
}

// TestNotRegistered: a Go type outside the scheme fails every call.
func TestNotRegistered(t *testing.T) {
	type Widget struct {
		meta.TypeMeta
		meta.ObjectMeta
	}
	c, _ := newTestClient(t, "http://127.0.0.1:1")
	_, err := For[Widget](c, "default").Get(context.Background(), "a")
	assert.ErrorIs(t, err, ErrNotRegistered)
}

func TestNewRejectsBadConfig(t *testing.T) {
	tests := []struct {
		name string
		cfg  *Config
	}{
		{"nil", nil},
		{"no host", &Config{}},
		{"not a URL", &Config{Host: "::nope"}},
		{"wrong scheme", &Config{Host: "ftp://x"}},
		{"bad CA", &Config{Host: "https://x", CAData: []byte("not pem")}},
		{"cert without key", &Config{Host: "https://x", CertData: []byte("x")}},
		{"bad key pair", &Config{Host: "https://x", CertData: []byte("x"), KeyData: []byte("y")}},
		{"insecure with CA", &Config{Host: "https://x", Insecure: true, CAData: []byte("x")}},
		{"token and basic", &Config{Host: "https://x", BearerToken: "t", Username: "u"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.cfg)
			assert.ErrorIs(t, err, ErrInvalidConfig)
		})
	}
}

// FuzzDecodeStatus: any error body becomes a Status with the response's
// code and a bounded message.
func FuzzDecodeStatus(f *testing.F) {
	f.Add(404, []byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","message":"x","reason":"NotFound","code":404}`))
	f.Add(500, []byte("<html>oops</html>"))
	f.Add(429, []byte(`{"kind":"Status"}`))
	f.Add(410, []byte(`{"kind":"Status","code":"x"}`))
	f.Fuzz(func(t *testing.T, code int, body []byte) {
		if code < 400 || code > 599 {
			return
		}
		st := decodeStatus(code, http.Header{"Retry-After": []string{"2"}}, body)
		if st == nil || st.Code == 0 {
			t.Fatalf("no code: %+v", st)
		}
		if st.Kind != "Status" {
			t.Fatalf("kind %q", st.Kind)
		}
		if st.Reason == meta.StatusReasonUnknown && st.Code >= 500 {
			t.Fatalf("5xx without a reason: %+v", st)
		}
	})
}

// TestNoRedirects: a redirect is not followed (it would carry the
// credentials elsewhere); it comes back as an error.
func TestNoRedirects(t *testing.T) {
	var elsewhere atomic.Int64
	other := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			elsewhere.Add(1)
		}
	})
	srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusFound)
	})
	c, err := New(&Config{Host: srv.URL, BearerToken: "secret", QPS: -1})
	require.NoError(t, err)
	_, err = For[core.ConfigMap](c, "default").Get(context.Background(), "a")
	require.Error(t, err)
	assert.Equal(t, int32(http.StatusFound), apierrors.FromError(err).Code)
	assert.Equal(t, int64(0), other.n.Load())
	assert.Equal(t, int64(0), elsewhere.Load())
}

func TestCreateNeedsNamespace(t *testing.T) {
	srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) { writeObject(w, 201, configMap("a")) })
	c, _ := newTestClient(t, srv.URL)
	_, err := For[core.ConfigMap](c, "").Create(context.Background(), &core.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "a"}})
	assert.ErrorIs(t, err, ErrRequest)
	_, err = For[core.ConfigMap](c, "default").Create(context.Background(), &core.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "a", Namespace: "other"}})
	assert.ErrorIs(t, err, ErrRequest)
	_, err = For[core.ConfigMap](c, "").Create(context.Background(), &core.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "a", Namespace: "other"}})
	require.NoError(t, err)
	assert.Equal(t, int64(1), srv.n.Load())
}

// TestRetryAfterOn503: a 503 with Retry-After waits what the server says.
func TestRetryAfterOn503(t *testing.T) {
	var calls atomic.Int64
	srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.Header().Set("Retry-After", "7")
			http.Error(w, "starting", http.StatusServiceUnavailable)
			return
		}
		writeObject(w, http.StatusOK, configMap("a"))
	})
	c, fc := newTestClient(t, srv.URL)
	_, err := For[core.ConfigMap](c, "default").Get(context.Background(), "a")
	require.NoError(t, err)
	assert.Equal(t, []time.Duration{7 * time.Second}, fc.Slept())
}

// TestConcurrentUse: one client serves many goroutines at once.
func TestConcurrentUse(t *testing.T) {
	srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) { writeObject(w, 200, configMap("a")) })
	fc := newFakeClock()
	c, err := New(&Config{Host: srv.URL, QPS: 100, Burst: 5}, withClock(fc))
	require.NoError(t, err)
	r := For[core.ConfigMap](c, "default")
	errs := make(chan error, 40)
	for range 40 {
		go func() {
			_, err := r.Get(context.Background(), "a")
			errs <- err
		}()
	}
	for range 40 {
		require.NoError(t, <-errs)
	}
	assert.Equal(t, int64(40), srv.n.Load())
	assert.Len(t, fc.Slept(), 35, "all but the burst waited for a token")
}

func BenchmarkGet(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { writeObject(w, 200, configMap("a")) }))
	defer srv.Close()
	c, err := New(&Config{Host: srv.URL, QPS: -1})
	require.NoError(b, err)
	r := For[core.ConfigMap](c, "default")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Get(context.Background(), "a"); err != nil {
			b.Fatal(err)
		}
	}
}
