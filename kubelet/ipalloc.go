package kubelet

import (
	"fmt"
	"net/netip"
	"sync"

	"github.com/orkit/orkit/api/meta"
)

// ipAllocator hands out pod IPs from a prefix when there is no CNI network
// (simulated nodes). Safe for concurrent use.
type ipAllocator struct {
	mu     sync.Mutex
	prefix netip.Prefix
	next   netip.Addr
	byUID  map[meta.UID]netip.Addr
	used   map[netip.Addr]bool
}

func newIPAllocator(p netip.Prefix) *ipAllocator {
	p = p.Masked()
	return &ipAllocator{prefix: p, next: p.Addr().Next(), byUID: map[meta.UID]netip.Addr{}, used: map[netip.Addr]bool{}}
}

// allocate returns uid's address, allocating one if it has none.
func (a *ipAllocator) allocate(uid meta.UID) (netip.Addr, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if ip, ok := a.byUID[uid]; ok {
		return ip, nil
	}
	start := a.next
	for {
		ip := a.next
		a.next = a.next.Next()
		if !a.prefix.Contains(a.next) {
			a.next = a.prefix.Addr().Next()
		}
		if a.prefix.Contains(ip) && !a.used[ip] {
			a.used[ip], a.byUID[uid] = true, ip
			return ip, nil
		}
		if a.next == start {
			return netip.Addr{}, fmt.Errorf("pod address range %s exhausted", a.prefix)
		}
	}
}

// reserve records an address found in use (adoption after a restart).
func (a *ipAllocator) reserve(ip netip.Addr, uid meta.UID) {
	a.mu.Lock()
	a.used[ip], a.byUID[uid] = true, ip
	a.mu.Unlock()
}

func (a *ipAllocator) release(uid meta.UID) {
	a.mu.Lock()
	if ip, ok := a.byUID[uid]; ok {
		delete(a.used, ip)
		delete(a.byUID, uid)
	}
	a.mu.Unlock()
}
