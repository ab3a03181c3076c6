package kubelet

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/orkit/orkit/api/authentication"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/client"
)

// Token rotation, as the kubelet's token manager does it.
const (
	// tokenRefreshFraction: a token is replaced once this share of its
	// life has passed.
	tokenRefreshFraction = 0.8
	// tokenMaxAge: a token is replaced after a day at the latest.
	tokenMaxAge = 24 * time.Hour
)

// TokenRequester asks the API server for service-account tokens (the
// token subresource); *client.Client is one. Implementations are safe
// for concurrent use.
type TokenRequester interface {
	CreateToken(ctx context.Context, ns, name string, tr *authentication.TokenRequest) (*authentication.TokenRequest, error)
}

var _ TokenRequester = (*client.Client)(nil)

// tokenKey identifies a cached token: one per pod, account, audience and
// lifetime asked for.
type tokenKey struct {
	namespace, account, podUID, audience string
	expirationSeconds                    int64
}

// cachedToken is a token and the times that decide its refresh.
type cachedToken struct {
	token                string
	issuedAt, expiration time.Time
}

// tokenManager fetches the tokens of projected serviceAccountToken
// sources, bound to their pod, and keeps each until 80% of its life (or a
// day) has passed, so that pod syncs rewrite a fresh token well before
// the old one expires. Safe for concurrent use; owned by the Kubelet.
type tokenManager struct {
	requester TokenRequester
	now       func() time.Time

	mu    sync.Mutex
	cache map[tokenKey]cachedToken
}

func newTokenManager(r TokenRequester, now func() time.Time) *tokenManager {
	if now == nil {
		now = time.Now
	}
	return &tokenManager{requester: r, now: now, cache: map[tokenKey]cachedToken{}}
}

// token returns a valid token of pod's account for src, requesting a new
// one when there is none or the cached one needs refreshing. A failed
// request keeps a cached token that has not expired.
func (m *tokenManager) token(ctx context.Context, pod *core.Pod, src *core.ServiceAccountTokenProjection) (string, error) {
	exp := int64(60 * 60)
	if src.ExpirationSeconds != nil {
		exp = *src.ExpirationSeconds
	}
	account := pod.Spec.ServiceAccountName
	if account == "" {
		account = "default"
	}
	key := tokenKey{namespace: pod.Namespace, account: account, podUID: string(pod.UID), audience: src.Audience, expirationSeconds: exp}
	m.mu.Lock()
	cached, ok := m.cache[key]
	m.mu.Unlock()
	now := m.now()
	if ok && !needsRefresh(cached, now) {
		return cached.token, nil
	}
	tr := &authentication.TokenRequest{Spec: authentication.TokenRequestSpec{ExpirationSeconds: &exp,
		BoundObjectRef: &authentication.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: pod.Name, UID: pod.UID}}}
	if src.Audience != "" {
		tr.Spec.Audiences = []string{src.Audience}
	}
	out, err := m.requester.CreateToken(ctx, pod.Namespace, account, tr)
	if err != nil || out.Status.Token == "" {
		if ok && now.Before(cached.expiration) {
			return cached.token, nil // still valid: try again on the next sync
		}
		if err == nil {
			err = fmt.Errorf("the API server returned no token")
		}
		return "", fmt.Errorf("fetch token of service account %s/%s: %w", pod.Namespace, account, err)
	}
	fresh := cachedToken{token: out.Status.Token, issuedAt: now, expiration: out.Status.ExpirationTimestamp.Time}
	m.mu.Lock()
	m.cache[key] = fresh
	m.mu.Unlock()
	return fresh.token, nil
}

// needsRefresh reports whether t has lived 80% of its life or a day.
func needsRefresh(t cachedToken, now time.Time) bool {
	life := t.expiration.Sub(t.issuedAt)
	age := now.Sub(t.issuedAt)
	return age >= time.Duration(float64(life)*tokenRefreshFraction) || age >= tokenMaxAge
}

// forget drops the tokens of a pod that is gone.
func (m *tokenManager) forget(podUID string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k := range m.cache {
		if k.podUID == podUID {
			delete(m.cache, k)
		}
	}
}
