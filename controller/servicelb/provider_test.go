package servicelb

import (
	"context"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

func svc(name string, ips ...string) *core.Service {
	s := &core.Service{ObjectMeta: meta.ObjectMeta{Namespace: "ns", Name: name}, Spec: core.ServiceSpec{Type: core.ServiceTypeLoadBalancer}}
	for _, ip := range ips {
		s.Status.LoadBalancer.Ingress = append(s.Status.LoadBalancer.Ingress, core.LoadBalancerIngress{IP: ip})
	}
	return s
}

func TestLoopbackWithoutPool(t *testing.T) {
	l, err := NewLoopback(netip.Prefix{})
	require.NoError(t, err)
	ing, err := l.EnsureLoadBalancer(context.Background(), svc("a"), nil)
	require.NoError(t, err)
	assert.Equal(t, []core.LoadBalancerIngress{{IP: "127.0.0.1"}}, ing)
	assert.Equal(t, "loopback", l.Name())
	assert.NoError(t, l.EnsureDeleted(context.Background(), svc("a")))
}

func TestLoopbackPool(t *testing.T) {
	ctx := context.Background()
	l, err := NewLoopback(netip.MustParsePrefix("127.0.1.0/30")) // .1 .2 .3
	require.NoError(t, err)
	l.Restore(svc("restored", "127.0.1.2"))
	tests := []struct {
		svc  *core.Service
		want string
		err  error
	}{
		{svc("a"), "127.0.1.1", nil},
		{svc("a"), "127.0.1.1", nil}, // idempotent
		{svc("restored"), "127.0.1.2", nil},
		{svc("b", "127.0.1.2"), "127.0.1.3", nil}, // status claims a taken address
		{svc("c"), "", ErrPoolExhausted},
	}
	for _, tt := range tests {
		ing, err := l.EnsureLoadBalancer(ctx, tt.svc, nil)
		if tt.err != nil {
			assert.ErrorIs(t, err, tt.err)
			continue
		}
		require.NoError(t, err)
		assert.Equal(t, tt.want, ing[0].IP, tt.svc.Name)
	}
	require.NoError(t, l.EnsureDeleted(ctx, svc("a")))
	ing, err := l.EnsureLoadBalancer(ctx, svc("c"), nil)
	require.NoError(t, err)
	assert.Equal(t, "127.0.1.1", ing[0].IP)

	_, err = NewLoopback(netip.MustParsePrefix("10.0.0.0/8"))
	assert.ErrorIs(t, err, ErrInvalidConfig)
}
