package kubelet

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/authentication"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

// fakeTokens answers TokenRequests with numbered tokens valid for the
// lifetime asked, on the test's clock; fail makes it refuse.
type fakeTokens struct {
	mu       sync.Mutex
	now      *time.Time
	requests []*authentication.TokenRequest
	fail     bool
}

func (f *fakeTokens) CreateToken(_ context.Context, ns, name string, tr *authentication.TokenRequest) (*authentication.TokenRequest, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail {
		return nil, errors.New("API server down")
	}
	f.requests = append(f.requests, tr)
	out := *tr
	out.Status.Token = fmt.Sprintf("%s/%s#%d", ns, name, len(f.requests))
	out.Status.ExpirationTimestamp = meta.NewTime(f.now.Add(time.Duration(*tr.Spec.ExpirationSeconds) * time.Second))
	return &out, nil
}

func TestTokenManagerRotation(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f := &fakeTokens{now: &now}
	m := newTokenManager(f, func() time.Time { return now })
	pod := &core.Pod{ObjectMeta: meta.ObjectMeta{Name: "web", Namespace: "team", UID: "pod-uid"}, Spec: core.PodSpec{ServiceAccountName: "robot"}}
	exp := int64(1000)
	src := &core.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: &exp, Audience: "vault"}
	ctx := context.Background()

	tok, err := m.token(ctx, pod, src)
	require.NoError(t, err)
	assert.Equal(t, "team/robot#1", tok)
	require.Len(t, f.requests, 1)
	r := f.requests[0]
	assert.Equal(t, []string{"vault"}, r.Spec.Audiences)
	assert.Equal(t, &authentication.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: "web", UID: "pod-uid"}, r.Spec.BoundObjectRef)

	now = now.Add(799 * time.Second) // before 80% of 1000s: the cached token
	tok, _ = m.token(ctx, pod, src)
	assert.Equal(t, "team/robot#1", tok)
	now = now.Add(time.Second) // at 80%: a new one
	tok, _ = m.token(ctx, pod, src)
	assert.Equal(t, "team/robot#2", tok)

	f.fail = true // a failed refresh keeps the token while it is valid
	now = now.Add(900 * time.Second)
	tok, err = m.token(ctx, pod, src)
	require.NoError(t, err)
	assert.Equal(t, "team/robot#2", tok)
	now = now.Add(101 * time.Second) // expired: an error
	_, err = m.token(ctx, pod, src)
	require.ErrorContains(t, err, "API server down")

	f.fail = false
	m.forget("pod-uid")
	tok, _ = m.token(ctx, pod, src)
	assert.Equal(t, "team/robot#3", tok)
}

func TestNeedsRefresh(t *testing.T) {
	t0 := time.Unix(0, 0)
	tests := []struct {
		name string
		life time.Duration
		age  time.Duration
		want bool
	}{
		{"young", time.Hour, 47 * time.Minute, false},
		{"80 percent", time.Hour, 48 * time.Minute, true},
		{"a year's token after a day", 365 * 24 * time.Hour, 24 * time.Hour, true},
		{"a year's token after an hour", 365 * 24 * time.Hour, time.Hour, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, needsRefresh(cachedToken{issuedAt: t0, expiration: t0.Add(tt.life)}, t0.Add(tt.age)))
		})
	}
}
