package apiserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/admission"
	"github.com/orkit/orkit/api/core"
)

// newAllocServer serves with the allocator as the admission chain, built
// by the server's admission factory (the allocator needs the server).
func newAllocServer(t *testing.T, cfg ServiceAllocatorConfig) (*testServer, *ServiceAllocator) {
	t.Helper()
	var alloc *ServiceAllocator
	ts := newTestServer(t, func(c *Config) {
		c.Admission = func(ctx context.Context, srv *Server) (*admission.Chain, error) {
			a, err := NewServiceAllocator(srv, cfg)
			if err != nil {
				return nil, err
			}
			if err := a.Start(ctx); err != nil {
				return nil, err
			}
			alloc = a
			return &admission.Chain{Validators: []admission.Validator{a}}, nil
		}
	})
	return ts, alloc
}

func svcJSON(name string, mutate func(*core.Service)) []byte {
	svc := &core.Service{Spec: core.ServiceSpec{Selector: map[string]string{"app": name},
		Ports: []core.ServicePort{{Port: 80}}}}
	svc.Name = name
	svc.APIVersion, svc.Kind = "v1", "Service"
	if mutate != nil {
		mutate(svc)
	}
	b, _ := json.Marshal(svc)
	return b
}

func createSvc(t *testing.T, ts *testServer, name string, mutate func(*core.Service)) (int, *core.Service, string) {
	t.Helper()
	code, out := ts.do(t, "POST", "/api/v1/namespaces/default/services", "application/json", svcJSON(name, mutate))
	var svc core.Service
	_ = json.Unmarshal(out, &svc)
	return code, &svc, string(out)
}

func TestServiceAllocation(t *testing.T) {
	ts, _ := newAllocServer(t, ServiceAllocatorConfig{})
	cidr := netip.MustParsePrefix(DefaultServiceCIDR)
	tests := []struct {
		name     string
		mutate   func(*core.Service)
		wantCode int
		check    func(t *testing.T, svc *core.Service, body string)
	}{
		{"cluster IP", nil, http.StatusCreated, func(t *testing.T, svc *core.Service, _ string) {
			ip := netip.MustParseAddr(svc.Spec.ClusterIP)
			assert.True(t, cidr.Contains(ip))
			assert.NotContains(t, []string{"10.96.0.0", "10.96.0.1", "10.96.0.10", "10.111.255.255"}, ip.String())
			assert.Equal(t, []string{svc.Spec.ClusterIP}, svc.Spec.ClusterIPs)
			assert.Equal(t, []core.IPFamily{core.IPv4Protocol}, svc.Spec.IPFamilies)
			assert.Zero(t, svc.Spec.Ports[0].NodePort)
		}},
		{"requested kubernetes address", func(s *core.Service) { s.Spec.ClusterIP = "10.96.0.1" }, http.StatusCreated,
			func(t *testing.T, svc *core.Service, _ string) { assert.Equal(t, "10.96.0.1", svc.Spec.ClusterIP) }},
		{"requested taken", func(s *core.Service) { s.Spec.ClusterIP = "10.96.0.1" }, http.StatusUnprocessableEntity,
			func(t *testing.T, _ *core.Service, body string) { assert.Contains(t, body, "spec.clusterIP") }},
		{"requested outside range", func(s *core.Service) { s.Spec.ClusterIP = "192.168.0.1" }, http.StatusUnprocessableEntity,
			func(t *testing.T, _ *core.Service, body string) { assert.Contains(t, body, "not in the valid range") }},
		{"network address", func(s *core.Service) { s.Spec.ClusterIP = "10.96.0.0" }, http.StatusUnprocessableEntity, nil},
		{"headless", func(s *core.Service) { s.Spec.ClusterIP = core.ClusterIPNone }, http.StatusCreated,
			func(t *testing.T, svc *core.Service, _ string) {
				assert.Equal(t, core.ClusterIPNone, svc.Spec.ClusterIP)
			}},
		{"node port", func(s *core.Service) {
			s.Spec.Type = core.ServiceTypeNodePort
			s.Spec.Ports = []core.ServicePort{{Name: "a", Port: 80}, {Name: "b", Port: 81, NodePort: 31000}}
		}, http.StatusCreated, func(t *testing.T, svc *core.Service, _ string) {
			p := svc.Spec.Ports[0].NodePort
			assert.True(t, p >= 30000 && p <= 32767, p)
			assert.NotEqual(t, int32(31000), p)
			assert.Equal(t, int32(31000), svc.Spec.Ports[1].NodePort)
		}},
		{"node port taken", func(s *core.Service) {
			s.Spec.Type = core.ServiceTypeNodePort
			s.Spec.Ports[0].NodePort = 31000
		}, http.StatusUnprocessableEntity, func(t *testing.T, _ *core.Service, body string) { assert.Contains(t, body, "already allocated") }},
		{"node port outside range", func(s *core.Service) {
			s.Spec.Type = core.ServiceTypeNodePort
			s.Spec.Ports[0].NodePort = 8080
		}, http.StatusUnprocessableEntity, nil},
		{"external name", func(s *core.Service) {
			s.Spec.Type, s.Spec.ExternalName, s.Spec.Selector = core.ServiceTypeExternalName, "example.com", nil
		}, http.StatusCreated, func(t *testing.T, svc *core.Service, _ string) { assert.Empty(t, svc.Spec.ClusterIP) }},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, svc, body := createSvc(t, ts, fmt.Sprintf("s%d", i), tt.mutate)
			require.Equal(t, tt.wantCode, code, body)
			if tt.check != nil {
				tt.check(t, svc, body)
			}
		})
	}
}

func TestServiceClusterIPImmutable(t *testing.T) {
	ts, _ := newAllocServer(t, ServiceAllocatorConfig{})
	code, svc, body := createSvc(t, ts, "web", nil)
	require.Equal(t, http.StatusCreated, code, body)
	svc.Spec.ClusterIP, svc.Spec.ClusterIPs = "10.96.5.5", []string{"10.96.5.5"}
	b, _ := json.Marshal(svc)
	code, out := ts.do(t, "PUT", "/api/v1/namespaces/default/services/web", "application/json", b)
	assert.Equal(t, http.StatusUnprocessableEntity, code, string(out))
}

func TestServiceAllocationConcurrent(t *testing.T) {
	ts, _ := newAllocServer(t, ServiceAllocatorConfig{})
	const n = 100
	var mu sync.Mutex
	seen := map[string]string{}
	ports := map[int32]string{}
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			name := fmt.Sprintf("svc-%d", i)
			code, svc, body := createSvc(t, ts, name, func(s *core.Service) { s.Spec.Type = core.ServiceTypeNodePort })
			if !assert.Equal(t, http.StatusCreated, code, body) {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			assert.NotContains(t, seen, svc.Spec.ClusterIP, "duplicate cluster IP")
			assert.NotContains(t, ports, svc.Spec.Ports[0].NodePort, "duplicate node port")
			seen[svc.Spec.ClusterIP], ports[svc.Spec.Ports[0].NodePort] = name, name
		})
	}
	wg.Wait()
	assert.Len(t, seen, n)
	assert.Len(t, ports, n)
}

func TestServiceAllocationReleaseOnDelete(t *testing.T) {
	// a /29 holds 8 addresses: network, broadcast and .1 (kept for the
	// kubernetes Service) leave 5 to hand out.
	ts, _ := newAllocServer(t, ServiceAllocatorConfig{ServiceCIDR: netip.MustParsePrefix("10.0.0.0/29"),
		NodePortBase: 30000, NodePortSize: 2})
	for i := range 5 {
		code, _, body := createSvc(t, ts, fmt.Sprintf("s%d", i), nil)
		require.Equal(t, http.StatusCreated, code, body)
	}
	code, _, body := createSvc(t, ts, "full", nil)
	require.Equal(t, http.StatusUnprocessableEntity, code, body)
	assert.Contains(t, body, "full")
	code, out := ts.do(t, "DELETE", "/api/v1/namespaces/default/services/s3", "", nil)
	require.Equal(t, http.StatusOK, code, string(out))
	require.Eventually(t, func() bool {
		code, _, _ := createSvc(t, ts, "again", nil)
		return code == http.StatusCreated
	}, 10*time.Second, 20*time.Millisecond)

	// node ports: two in the range; changing the type gives them back
	code, np, body := createSvc(t, ts, "np", func(s *core.Service) {
		s.Spec.Type, s.Spec.ClusterIP = core.ServiceTypeNodePort, core.ClusterIPNone
		s.Spec.Ports = []core.ServicePort{{Name: "a", Port: 80}, {Name: "b", Port: 81}}
	})
	require.Equal(t, http.StatusCreated, code, body)
	np.Spec.Type, np.Spec.ExternalTrafficPolicy = core.ServiceTypeClusterIP, ""
	for i := range np.Spec.Ports {
		np.Spec.Ports[i].NodePort = 0
	}
	b, _ := json.Marshal(np)
	code, out = ts.do(t, "PUT", "/api/v1/namespaces/default/services/np", "application/json", b)
	require.Equal(t, http.StatusOK, code, string(out))
	require.Eventually(t, func() bool {
		code, _, _ := createSvc(t, ts, "np2", func(s *core.Service) {
			s.Spec.Type, s.Spec.ClusterIP = core.ServiceTypeNodePort, core.ClusterIPNone
			s.Spec.Ports = []core.ServicePort{{Name: "a", Port: 80, NodePort: 30001}}
		})
		return code == http.StatusCreated
	}, 10*time.Second, 20*time.Millisecond)
}

func TestServiceAllocationRepair(t *testing.T) {
	ts, a := newAllocServer(t, ServiceAllocatorConfig{})
	code, svc, body := createSvc(t, ts, "web", func(s *core.Service) { s.Spec.Type = core.ServiceTypeNodePort })
	require.Equal(t, http.StatusCreated, code, body)
	ctx := context.Background()
	// lose the bitmaps, and leak an address no Service holds
	st := a.svcs.store
	for _, k := range []string{serviceIPRangeKey, nodePortRangeKey} {
		_, _, err := st.Delete(ctx, k, 0)
		require.NoError(t, err)
	}
	_, err := a.ips.allocate(ctx, []int{77}, 0)
	require.NoError(t, err)

	b, err := NewServiceAllocator(ts.srv, ServiceAllocatorConfig{})
	require.NoError(t, err)
	_, err = b.repair(ctx)
	require.NoError(t, err)
	ipOff, _ := b.ipOffset(svc.Spec.ClusterIP)
	_, err = b.ips.allocate(ctx, []int{ipOff}, 0)
	assert.ErrorIs(t, err, ErrAllocated)
	_, err = b.ports.allocate(ctx, []int{int(svc.Spec.Ports[0].NodePort) - DefaultNodePortBase}, 0)
	assert.ErrorIs(t, err, ErrAllocated)
	_, err = b.ips.allocate(ctx, []int{77}, 0)
	assert.NoError(t, err, "the leaked address was released by the repair")

	// the sweep releases a leak seen twice, not once
	s1 := b.sweepOnce(ctx, b.ips, nil, true)
	assert.True(t, s1[77])
	_, err = b.ips.allocate(ctx, []int{77}, 0)
	assert.ErrorIs(t, err, ErrAllocated, "one sweep does not release")
	b.sweepOnce(ctx, b.ips, s1, true)
	_, err = b.ips.allocate(ctx, []int{77}, 0)
	assert.NoError(t, err, "two sweeps release")
}

func TestServiceAllocationCorruptRange(t *testing.T) {
	ts, a := newAllocServer(t, ServiceAllocatorConfig{})
	code, svc, body := createSvc(t, ts, "web", nil)
	require.Equal(t, http.StatusCreated, code, body)
	ctx := context.Background()
	kv, err := a.svcs.store.Get(ctx, serviceIPRangeKey)
	require.NoError(t, err)
	_, err = a.svcs.store.Update(ctx, serviceIPRangeKey, []byte("{not json"), kv.ModRevision)
	require.NoError(t, err)
	code, _, body = createSvc(t, ts, "next", nil)
	assert.Equal(t, http.StatusInternalServerError, code, "a corrupt bitmap refuses allocation rather than risk duplicates: %s", body)
	_, err = a.ips.allocate(ctx, nil, 1)
	assert.ErrorIs(t, err, ErrCorruptRange)

	b, err := NewServiceAllocator(ts.srv, ServiceAllocatorConfig{})
	require.NoError(t, err)
	_, err = b.repair(ctx)
	require.NoError(t, err, "the repair rewrites a corrupt bitmap")
	off, _ := b.ipOffset(svc.Spec.ClusterIP)
	_, err = b.ips.allocate(ctx, []int{off}, 0)
	assert.ErrorIs(t, err, ErrAllocated)
}

func TestServiceAllocatorConfig(t *testing.T) {
	ts := newTestServer(t, nil)
	tests := []struct {
		name string
		cfg  ServiceAllocatorConfig
		ok   bool
	}{
		{"defaults", ServiceAllocatorConfig{}, true},
		{"ipv6", ServiceAllocatorConfig{ServiceCIDR: netip.MustParsePrefix("fd00::/108")}, true},
		{"too big", ServiceAllocatorConfig{ServiceCIDR: netip.MustParsePrefix("10.0.0.0/7")}, false},
		{"too small", ServiceAllocatorConfig{ServiceCIDR: netip.MustParsePrefix("10.0.0.0/31")}, false},
		{"ports beyond 65535", ServiceAllocatorConfig{NodePortBase: 65000, NodePortSize: 1000}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewServiceAllocator(ts.srv, tt.cfg)
			assert.Equal(t, tt.ok, err == nil, err)
		})
	}
}

func TestServiceIPOffsets(t *testing.T) {
	ts := newTestServer(t, nil)
	tests := []struct {
		cidr, ip string
		off      int
		ok       bool
	}{
		{"10.96.0.0/12", "10.96.0.1", 1, true},
		{"10.96.0.0/12", "10.97.0.0", 1 << 16, true},
		{"10.96.0.0/12", "10.111.255.255", 1<<20 - 1, true},
		{"10.96.0.0/12", "10.112.0.0", 0, false},
		{"10.96.0.0/12", "garbage", 0, false},
		{"fd00::/108", "fd00::f:ffff", 1<<20 - 1, true},
		{"fd00::/108", "10.96.0.1", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.cidr+" "+tt.ip, func(t *testing.T) {
			a, err := NewServiceAllocator(ts.srv, ServiceAllocatorConfig{ServiceCIDR: netip.MustParsePrefix(tt.cidr)})
			require.NoError(t, err)
			off, ok := a.ipOffset(tt.ip)
			require.Equal(t, tt.ok, ok)
			if ok {
				assert.Equal(t, tt.off, off)
				assert.Equal(t, tt.ip, a.ipAt(off).String())
			}
		})
	}
}

func FuzzServiceIPOffset(f *testing.F) {
	f.Add("10.96.0.0/12", "10.100.3.4")
	f.Add("fd00::/108", "fd00::1")
	f.Fuzz(func(t *testing.T, cidr, ip string) {
		p, err := netip.ParsePrefix(cidr)
		if err != nil || !p.IsValid() {
			return
		}
		p = p.Masked()
		if h := p.Addr().BitLen() - p.Bits(); h < 2 || h > maxServiceHostBits {
			return
		}
		a := &ServiceAllocator{prefix: p}
		off, ok := a.ipOffset(ip)
		if !ok {
			return
		}
		if off < 0 || off >= 1<<(p.Addr().BitLen()-p.Bits()) {
			t.Fatalf("offset %d out of range for %s", off, p)
		}
		want, _ := netip.ParseAddr(ip)
		if got := a.ipAt(off); got != want.Unmap() {
			t.Fatalf("ipAt(ipOffset(%s)) = %s", ip, got)
		}
	})
}
