package authz

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/orkit/orkit/api/authorization"
	"github.com/orkit/orkit/authn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// reviewServer answers SubjectAccessReviews with answer(spec) and counts calls.
type reviewServer struct {
	*httptest.Server
	calls atomic.Int32
	mu    sync.Mutex
	last  authorization.SubjectAccessReview
}

func newReviewServer(t *testing.T, tlsOn bool, answer func(authorization.SubjectAccessReviewSpec) (int, string)) *reviewServer {
	rs := &reviewServer{}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rs.calls.Add(1)
		var sar authorization.SubjectAccessReview
		if r.Method != http.MethodPost || json.NewDecoder(r.Body).Decode(&sar) != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		rs.mu.Lock()
		rs.last = sar
		rs.mu.Unlock()
		code, body := answer(sar.Spec)
		w.WriteHeader(code)
		_, _ = w.Write([]byte(body))
	})
	if tlsOn {
		rs.Server = httptest.NewUnstartedServer(h)
		rs.Config.ErrorLog = log.New(io.Discard, "", 0) // the untrusted-CA case logs a handshake error
		rs.StartTLS()
	} else {
		rs.Server = httptest.NewServer(h)
	}
	t.Cleanup(rs.Close)
	return rs
}

func status(allowed, denied bool, reason string) string {
	return fmt.Sprintf(`{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","status":{"allowed":%t,"denied":%t,"reason":%q}}`,
		allowed, denied, reason)
}

type clock struct{ t atomic.Int64 }

func (c *clock) now() time.Time          { return time.Unix(0, c.t.Load()) }
func (c *clock) advance(d time.Duration) { c.t.Add(int64(d)) }

func TestWebhook(t *testing.T) {
	srv := newReviewServer(t, false, func(s authorization.SubjectAccessReviewSpec) (int, string) {
		switch s.User {
		case "alice":
			return 200, status(true, false, "alice may")
		case "mallory":
			return 200, status(false, true, "mallory may not")
		case "both":
			return 200, status(true, true, "confused")
		case "broken":
			return 500, "oops"
		case "garbage":
			return 200, "{not json"
		case "wrongkind":
			return 200, `{"apiVersion":"v1","kind":"Status"}`
		}
		return 200, status(false, false, "no opinion")
	})
	tests := []struct {
		user       string
		want       Decision
		wantReason string
		wantErr    bool
		cached     bool
	}{
		{"alice", DecisionAllow, "alice may", false, true},
		{"mallory", DecisionDeny, "mallory may not", false, true},
		{"nobody", DecisionNoOpinion, "no opinion", false, true},
		{"both", DecisionDeny, "confused", true, false},
		{"broken", DecisionNoOpinion, "", true, false},
		{"garbage", DecisionNoOpinion, "", true, false},
		{"wrongkind", DecisionNoOpinion, "", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.user, func(t *testing.T) {
			z, err := Webhook(Config{URL: srv.URL})
			require.NoError(t, err)
			attrs := res(&authn.User{Name: tt.user}, "get", "default", "", "pods", "", "web")
			before := srv.calls.Load()
			for range 2 {
				d, reason, err := z.Authorize(context.Background(), attrs)
				assert.Equal(t, tt.want, d)
				assert.Equal(t, tt.wantReason, reason)
				if tt.wantErr {
					assert.ErrorIs(t, err, ErrWebhook)
				} else {
					assert.NoError(t, err)
				}
			}
			wantCalls := int32(2)
			if tt.cached {
				wantCalls = 1
			}
			assert.Equal(t, wantCalls, srv.calls.Load()-before)
		})
	}
}

func TestWebhookRequestBody(t *testing.T) {
	srv := newReviewServer(t, false, func(authorization.SubjectAccessReviewSpec) (int, string) {
		return 200, status(true, false, "")
	})
	z, err := Webhook(Config{URL: srv.URL})
	require.NoError(t, err)
	u := &authn.User{Name: "alice", UID: "u1", Groups: []string{"dev"}, Extra: map[string][]string{"scopes": {"a"}}}
	a := res(u, "list", "default", "apps", "deployments", "scale", "")
	a.FieldSelector = "metadata.name=web"
	_, _, err = z.Authorize(context.Background(), a)
	require.NoError(t, err)
	srv.mu.Lock()
	got := srv.last
	srv.mu.Unlock()
	assert.Equal(t, "authorization.k8s.io/v1", got.APIVersion)
	assert.Equal(t, "SubjectAccessReview", got.Kind)
	assert.Equal(t, "alice", got.Spec.User)
	assert.Equal(t, "u1", got.Spec.UID)
	assert.Equal(t, []string{"dev"}, got.Spec.Groups)
	assert.Equal(t, authorization.ExtraValue{"a"}, got.Spec.Extra["scopes"])
	require.NotNil(t, got.Spec.ResourceAttributes)
	assert.Equal(t, authorization.ResourceAttributes{Namespace: "default", Verb: "list", Group: "apps", Version: "v1",
		Resource: "deployments", Subresource: "scale", FieldSelector: []byte(`{"rawSelector":"metadata.name=web"}`)},
		*got.Spec.ResourceAttributes)
	assert.Nil(t, got.Spec.NonResourceAttributes)

	_, _, err = z.Authorize(context.Background(), nonRes(u, "get", "/metrics"))
	require.NoError(t, err)
	srv.mu.Lock()
	got = srv.last
	srv.mu.Unlock()
	assert.Equal(t, &authorization.NonResourceAttributes{Path: "/metrics", Verb: "get"}, got.Spec.NonResourceAttributes)
	assert.Nil(t, got.Spec.ResourceAttributes)
}

func TestWebhookCacheTTLAndKeys(t *testing.T) {
	srv := newReviewServer(t, false, func(s authorization.SubjectAccessReviewSpec) (int, string) {
		return 200, status(s.User == "alice", false, "")
	})
	clk := &clock{}
	clk.t.Store(time.Now().UnixNano())
	z, err := Webhook(Config{URL: srv.URL, Now: clk.now})
	require.NoError(t, err)
	ask := func(user, name string) Decision {
		d, _, err := z.Authorize(context.Background(), res(&authn.User{Name: user}, "get", "default", "", "pods", "", name))
		require.NoError(t, err)
		return d
	}
	assert.Equal(t, DecisionAllow, ask("alice", "web"))
	assert.Equal(t, DecisionNoOpinion, ask("bob", "web"))
	assert.Equal(t, int32(2), srv.calls.Load())

	// Other attributes are other keys.
	ask("alice", "db")
	assert.Equal(t, int32(3), srv.calls.Load())

	// Past DenyTTL, the NoOpinion is asked again; the Allow is still cached.
	clk.advance(DefaultDenyTTL)
	ask("alice", "web")
	ask("bob", "web")
	assert.Equal(t, int32(4), srv.calls.Load())

	// Past AllowTTL, the Allow is asked again.
	clk.advance(DefaultAllowTTL)
	ask("alice", "web")
	assert.Equal(t, int32(5), srv.calls.Load())
}

func TestWebhookCacheBounded(t *testing.T) {
	srv := newReviewServer(t, false, func(authorization.SubjectAccessReviewSpec) (int, string) {
		return 200, status(true, false, "")
	})
	z, err := Webhook(Config{URL: srv.URL, CacheEntries: 3})
	require.NoError(t, err)
	for i := range 10 {
		_, _, err := z.Authorize(context.Background(), res(&authn.User{Name: "alice"}, "get", "default", "", "pods", "", fmt.Sprint(i)))
		require.NoError(t, err)
	}
	assert.Equal(t, 3, z.cache.len())
	// The most recent stay cached, the oldest were evicted.
	_, _, _ = z.Authorize(context.Background(), res(&authn.User{Name: "alice"}, "get", "default", "", "pods", "", "9"))
	assert.Equal(t, int32(10), srv.calls.Load())
	_, _, _ = z.Authorize(context.Background(), res(&authn.User{Name: "alice"}, "get", "default", "", "pods", "", "0"))
	assert.Equal(t, int32(11), srv.calls.Load())
}

func TestWebhookTLSAndTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := newReviewServer(t, true, func(s authorization.SubjectAccessReviewSpec) (int, string) {
		if s.User == "slow" {
			<-release
		}
		return 200, status(true, false, "")
	})
	defer close(release)
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	z, err := Webhook(Config{URL: srv.URL, TLS: &tls.Config{RootCAs: pool}, Timeout: 200 * time.Millisecond})
	require.NoError(t, err)
	d, _, err := z.Authorize(context.Background(), nonRes(&authn.User{Name: "alice"}, "get", "/healthz"))
	require.NoError(t, err)
	assert.Equal(t, DecisionAllow, d)

	d, _, err = z.Authorize(context.Background(), nonRes(&authn.User{Name: "slow"}, "get", "/healthz"))
	assert.ErrorIs(t, err, ErrWebhook)
	assert.Equal(t, DecisionNoOpinion, d)

	// Untrusted server certificate.
	z2, err := Webhook(Config{URL: srv.URL, TLS: &tls.Config{RootCAs: x509.NewCertPool()}})
	require.NoError(t, err)
	_, _, err = z2.Authorize(context.Background(), nonRes(&authn.User{Name: "alice"}, "get", "/healthz"))
	assert.ErrorIs(t, err, ErrWebhook)
}

func TestWebhookConfig(t *testing.T) {
	for _, u := range []string{"", "ftp://x", "127.0.0.1:8080", "http://"} {
		_, err := Webhook(Config{URL: u})
		assert.ErrorIs(t, err, ErrInvalidConfig, u)
	}
}
