package servicelb

import (
	"context"
	"fmt"
	"net/netip"
	"sync"

	"github.com/orkit/orkit/api/core"
)

// LoadBalancer is a load balancer provider. EnsureLoadBalancer creates or
// updates the load balancer of svc sending to nodes and returns its
// ingress points; it is called again whenever the Service or the set of
// nodes changes, and must be idempotent. EnsureDeleted removes it (and
// succeeds when there is none). Both are called for one Service at a
// time, possibly concurrently for different Services.
type LoadBalancer interface {
	Name() string
	EnsureLoadBalancer(ctx context.Context, svc *core.Service, nodes []*core.Node) ([]core.LoadBalancerIngress, error)
	EnsureDeleted(ctx context.Context, svc *core.Service) error
}

// Loopback is a LoadBalancer for machines without a cloud: every Service
// gets 127.0.0.1, or, with a pool, an address of its own from the pool
// (kept across calls and recovered from the Service's status). It
// programs nothing: traffic reaches the Service through whatever proxies
// node ports on the machine. Safe for concurrent use.
type Loopback struct {
	pool []netip.Addr

	mu    sync.Mutex
	owner map[netip.Addr]string // address -> ns/name
	byKey map[string]netip.Addr
}

var _ LoadBalancer = (*Loopback)(nil)

// NewLoopback returns a loopback provider handing out the addresses of
// pool (each once; empty: 127.0.0.1 for all). The pool is a prefix, e.g.
// 127.0.1.0/28; its network address is skipped for IPv4 prefixes shorter
// than /31.
func NewLoopback(pool netip.Prefix) (*Loopback, error) {
	l := &Loopback{owner: map[netip.Addr]string{}, byKey: map[string]netip.Addr{}}
	if !pool.IsValid() {
		return l, nil
	}
	pool = pool.Masked()
	if pool.Addr().BitLen()-pool.Bits() > 16 {
		return nil, fmt.Errorf("%w: pool %s is larger than 65536 addresses", ErrInvalidConfig, pool)
	}
	a := pool.Addr()
	if pool.Addr().Is4() && pool.Bits() < 31 {
		a = a.Next()
	}
	for ; pool.Contains(a); a = a.Next() {
		l.pool = append(l.pool, a)
	}
	return l, nil
}

// Name returns "loopback".
func (l *Loopback) Name() string { return "loopback" }

// EnsureLoadBalancer returns svc's address: the one it has, the one
// recorded in its status (after a restart), or the next free one.
func (l *Loopback) EnsureLoadBalancer(_ context.Context, svc *core.Service, _ []*core.Node) ([]core.LoadBalancerIngress, error) {
	if len(l.pool) == 0 {
		return []core.LoadBalancerIngress{{IP: "127.0.0.1"}}, nil
	}
	key := svc.Namespace + "/" + svc.Name
	l.mu.Lock()
	defer l.mu.Unlock()
	if a, ok := l.byKey[key]; ok {
		return ingress(a), nil
	}
	for _, in := range svc.Status.LoadBalancer.Ingress {
		if a, err := netip.ParseAddr(in.IP); err == nil && l.inPool(a) && l.owner[a] == "" {
			l.take(a, key)
			return ingress(a), nil
		}
	}
	for _, a := range l.pool {
		if l.owner[a] == "" {
			l.take(a, key)
			return ingress(a), nil
		}
	}
	return nil, fmt.Errorf("%w: %d addresses in use", ErrPoolExhausted, len(l.pool))
}

func ingress(a netip.Addr) []core.LoadBalancerIngress {
	return []core.LoadBalancerIngress{{IP: a.String()}}
}

func (l *Loopback) inPool(a netip.Addr) bool {
	for _, p := range l.pool {
		if p == a {
			return true
		}
	}
	return false
}

func (l *Loopback) take(a netip.Addr, key string) {
	l.owner[a] = key
	l.byKey[key] = a
}

// EnsureDeleted frees svc's address.
func (l *Loopback) EnsureDeleted(_ context.Context, svc *core.Service) error {
	key := svc.Namespace + "/" + svc.Name
	l.mu.Lock()
	defer l.mu.Unlock()
	if a, ok := l.byKey[key]; ok {
		delete(l.owner, a)
		delete(l.byKey, key)
	}
	return nil
}

// Restorer is an optional ability of a LoadBalancer: before its first
// reconcile the controller hands it every LoadBalancer Service in the
// cache, so that it can take back what their statuses record before it
// hands anything out.
type Restorer interface {
	Restore(svc *core.Service)
}

var _ Restorer = (*Loopback)(nil)

// Restore claims the pool address svc's status records, if it is free.
func (l *Loopback) Restore(svc *core.Service) {
	key := svc.Namespace + "/" + svc.Name
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.byKey[key]; ok {
		return
	}
	for _, in := range svc.Status.LoadBalancer.Ingress {
		if a, err := netip.ParseAddr(in.IP); err == nil && l.inPool(a) && l.owner[a] == "" {
			l.take(a, key)
			return
		}
	}
}
