package hostgw

import (
	"errors"
	"net/netip"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

func node(name, ip string, cidrs ...string) *core.Node {
	n := &core.Node{ObjectMeta: meta.ObjectMeta{Name: name}, Spec: core.NodeSpec{PodCIDRs: cidrs}}
	if len(cidrs) > 0 {
		n.Spec.PodCIDR = cidrs[0]
	}
	if ip != "" {
		for _, a := range []string{ip} {
			n.Status.Addresses = append(n.Status.Addresses, core.NodeAddress{Type: core.NodeInternalIP, Address: a})
		}
	}
	n.Status.Addresses = append(n.Status.Addresses, core.NodeAddress{Type: core.NodeHostName, Address: name})
	return n
}

func rt(dst, via, node string) Route {
	return Route{Dst: netip.MustParsePrefix(dst), Via: netip.MustParseAddr(via), Node: node}
}

func TestDesired(t *testing.T) {
	self := node("a", "10.250.0.11", "10.244.1.0/24")
	tests := []struct {
		name        string
		nodes       []*core.Node
		want        []Route
		wantSkipped []string // node names
	}{
		{"alone", []*core.Node{self}, nil, nil},
		{"two others", []*core.Node{node("c", "10.250.0.13", "10.244.3.0/24"), self, node("b", "10.250.0.12", "10.244.2.0/24")},
			[]Route{rt("10.244.2.0/24", "10.250.0.12", "b"), rt("10.244.3.0/24", "10.250.0.13", "c")}, nil},
		{"no pod CIDR yet", []*core.Node{self, node("b", "10.250.0.12")}, nil, nil},
		{"no InternalIP", []*core.Node{self, node("b", "", "10.244.2.0/24")}, nil, []string{"b"}},
		{"loopback InternalIP", []*core.Node{self, node("b", "127.0.0.1", "10.244.2.0/24")}, nil, []string{"b"}},
		{"same host as self", []*core.Node{self, node("b", "10.250.0.11", "10.244.2.0/24")}, nil, []string{"b"}},
		{"overlaps own CIDR", []*core.Node{self, node("b", "10.250.0.12", "10.244.0.0/16")}, nil, []string{"b"}},
		{"claimed twice: first name wins", []*core.Node{self, node("c", "10.250.0.13", "10.244.2.0/24"), node("b", "10.250.0.12", "10.244.2.0/24")},
			[]Route{rt("10.244.2.0/24", "10.250.0.12", "b")}, []string{"c"}},
		{"malformed CIDR", []*core.Node{self, node("b", "10.250.0.12", "10.244.2.0/33")}, nil, []string{"b"}},
		{"unmasked CIDR is masked", []*core.Node{self, node("b", "10.250.0.12", "10.244.2.7/24")},
			[]Route{rt("10.244.2.0/24", "10.250.0.12", "b")}, nil},
		{"dual stack needs an address per family", []*core.Node{self, node("b", "10.250.0.12", "10.244.2.0/24", "fd00:2::/64")},
			[]Route{rt("10.244.2.0/24", "10.250.0.12", "b")}, []string{"b"}},
		{"self unknown: every node routed", []*core.Node{node("b", "10.250.0.12", "10.244.2.0/24")},
			[]Route{rt("10.244.2.0/24", "10.250.0.12", "b")}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, skipped := Desired("a", tt.nodes)
			assert.Equal(t, tt.want, got)
			var names []string
			for _, s := range skipped {
				names = append(names, s.Node)
				assert.NotEmpty(t, s.Reason)
			}
			assert.Equal(t, tt.wantSkipped, names)
		})
	}
}

func TestDiff(t *testing.T) {
	tests := []struct {
		name                    string
		current, want           []Route
		wantReplace, wantRemove []Route
	}{
		{"empty", nil, nil, nil, nil},
		{"add", nil, []Route{rt("10.244.2.0/24", "10.0.0.2", "b")}, []Route{rt("10.244.2.0/24", "10.0.0.2", "b")}, nil},
		{"in place", []Route{rt("10.244.2.0/24", "10.0.0.2", "")}, []Route{rt("10.244.2.0/24", "10.0.0.2", "b")}, nil, nil},
		{"gateway moved", []Route{rt("10.244.2.0/24", "10.0.0.2", "")}, []Route{rt("10.244.2.0/24", "10.0.0.9", "b")},
			[]Route{rt("10.244.2.0/24", "10.0.0.9", "b")}, nil},
		{"node gone", []Route{rt("10.244.2.0/24", "10.0.0.2", ""), rt("10.244.3.0/24", "10.0.0.3", "")}, []Route{rt("10.244.3.0/24", "10.0.0.3", "c")},
			nil, []Route{rt("10.244.2.0/24", "10.0.0.2", "")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			replace, remove := Diff(tt.current, tt.want)
			assert.Equal(t, tt.wantReplace, replace)
			assert.Equal(t, tt.wantRemove, remove)
		})
	}
}

// mapTable is a RouteTable in memory; fail makes Replace of that
// destination fail.
type mapTable struct {
	mu     sync.Mutex
	routes map[netip.Prefix]netip.Addr
	fail   netip.Prefix
}

func (m *mapTable) List() ([]Route, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Route
	for d, v := range m.routes {
		out = append(out, Route{Dst: d, Via: v})
	}
	slices.SortFunc(out, func(a, b Route) int { return a.Dst.Addr().Compare(b.Dst.Addr()) })
	return out, nil
}

func (m *mapTable) Replace(r Route) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r.Dst == m.fail {
		return errors.Join(ErrRoute, errors.New("network is unreachable"))
	}
	m.routes[r.Dst] = r.Via
	return nil
}

func (m *mapTable) Delete(r Route) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.routes, r.Dst)
	return nil
}

func TestApplyGoesOnPastAFailure(t *testing.T) {
	tab := &mapTable{routes: map[netip.Prefix]netip.Addr{netip.MustParsePrefix("10.244.9.0/24"): netip.MustParseAddr("10.0.0.9")},
		fail: netip.MustParsePrefix("10.244.2.0/24")}
	changed, err := Apply(tab, []Route{rt("10.244.2.0/24", "10.0.0.2", "b"), rt("10.244.3.0/24", "10.0.0.3", "c")})
	require.ErrorIs(t, err, ErrRoute)
	assert.Equal(t, []Change{{"deleted", rt("10.244.9.0/24", "10.0.0.9", "")}, {"replaced", rt("10.244.3.0/24", "10.0.0.3", "c")}}, changed)
	got, err := tab.List()
	require.NoError(t, err)
	assert.Equal(t, []Route{{Dst: netip.MustParsePrefix("10.244.3.0/24"), Via: netip.MustParseAddr("10.0.0.3")}}, got)

	changed, err = Apply(tab, []Route{rt("10.244.3.0/24", "10.0.0.3", "c")})
	require.NoError(t, err)
	assert.Empty(t, changed, "nothing to do the second time")
}

func TestNewNeedsConfig(t *testing.T) {
	for name, cfg := range map[string]Config{
		"no client": {NodeName: "a", Table: &mapTable{}},
		"no node":   {Table: &mapTable{}},
	} {
		_, err := New(cfg)
		assert.ErrorIs(t, err, ErrInvalidConfig, name)
	}
}
