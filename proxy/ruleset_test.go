package proxy

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

func service(ns, name, ip string, mutate func(*core.Service)) *core.Service {
	s := &core.Service{ObjectMeta: meta.ObjectMeta{Namespace: ns, Name: name},
		Spec: core.ServiceSpec{ClusterIP: ip, Type: core.ServiceTypeClusterIP,
			Ports: []core.ServicePort{{Name: "http", Port: 80, Protocol: core.ProtocolTCP}}}}
	if mutate != nil {
		mutate(s)
	}
	return s
}

func endpoints(ns, name string, port int32, ready []string, notReady ...string) *core.Endpoints {
	ss := core.EndpointSubset{Ports: []core.EndpointPort{{Name: "http", Port: port, Protocol: core.ProtocolTCP}}}
	for _, ip := range ready {
		ss.Addresses = append(ss.Addresses, core.EndpointAddress{IP: ip})
	}
	for _, ip := range notReady {
		ss.NotReadyAddresses = append(ss.NotReadyAddresses, core.EndpointAddress{IP: ip})
	}
	return &core.Endpoints{ObjectMeta: meta.ObjectMeta{Namespace: ns, Name: name}, Subsets: []core.EndpointSubset{ss}}
}

func TestRender(t *testing.T) {
	id := "default/web:http/tcp"
	tests := []struct {
		name      string
		svcs      []*core.Service
		eps       []*core.Endpoints
		wantIPs   map[string]string
		wantPorts map[string]string
		chains    int
		contains  []string
	}{
		{name: "three ready endpoints, one not ready",
			svcs:    []*core.Service{service("default", "web", "10.96.0.20", nil)},
			eps:     []*core.Endpoints{endpoints("default", "web", 8080, []string{"10.244.0.3", "10.244.0.2", "10.244.0.4"}, "10.244.0.9")},
			wantIPs: map[string]string{"10.96.0.20 . tcp . 80": "goto svc-" + hash(id)},
			chains:  4,
			contains: []string{"numgen random mod 3 vmap { 0 : goto ep-" + hash(id+"|10.244.0.2:8080"),
				"dnat to 10.244.0.4:8080", "ip saddr 10.244.0.3 meta mark set meta mark | 0x4000"}},
		{name: "no endpoints: nothing",
			svcs: []*core.Service{service("default", "web", "10.96.0.20", nil)},
			eps:  []*core.Endpoints{endpoints("default", "web", 8080, nil, "10.244.0.9")}},
		{name: "headless and external name: nothing",
			svcs: []*core.Service{service("default", "web", core.ClusterIPNone, nil),
				service("default", "ext", "", func(s *core.Service) { s.Spec.Type = core.ServiceTypeExternalName })},
			eps: []*core.Endpoints{endpoints("default", "web", 8080, []string{"10.244.0.2"})}},
		{name: "one endpoint: goto, node port",
			svcs: []*core.Service{service("default", "web", "10.96.0.20", func(s *core.Service) {
				s.Spec.Type = core.ServiceTypeNodePort
				s.Spec.Ports[0].NodePort = 30080
			})},
			eps:       []*core.Endpoints{endpoints("default", "web", 8080, []string{"10.244.0.2"})},
			wantIPs:   map[string]string{"10.96.0.20 . tcp . 80": "goto svc-" + hash(id)},
			wantPorts: map[string]string{"tcp . 30080": "goto ext-" + hash(id)},
			chains:    3,
			contains:  []string{"goto ep-" + hash(id+"|10.244.0.2:8080"), "ext-" + hash(id) + " goto svc-"}},
		{name: "client IP affinity",
			svcs: []*core.Service{service("default", "web", "10.96.0.20", func(s *core.Service) {
				s.Spec.SessionAffinity = core.ServiceAffinityClientIP
				to := int32(60)
				s.Spec.SessionAffinityConfig = &core.SessionAffinityConfig{ClientIP: &core.ClientIPConfig{TimeoutSeconds: &to}}
			})},
			eps:      []*core.Endpoints{endpoints("default", "web", 8080, []string{"10.244.0.2", "10.244.0.3"})},
			wantIPs:  map[string]string{"10.96.0.20 . tcp . 80": "goto svc-" + hash(id)},
			chains:   3,
			contains: []string{"ip saddr @aff-" + hash(id+"|10.244.0.2:8080") + " goto ep-", "update @aff-", "timeout 60s"}},
		{name: "port name mismatch and bad addresses skipped",
			svcs: []*core.Service{service("default", "web", "10.96.0.20", nil), service("default", "bad", "not-an-ip", nil)},
			eps: []*core.Endpoints{{ObjectMeta: meta.ObjectMeta{Namespace: "default", Name: "web"}, Subsets: []core.EndpointSubset{{
				Addresses: []core.EndpointAddress{{IP: "10.244.0.2"}, {IP: "garbage"}, {IP: "fd00::1"}},
				Ports:     []core.EndpointPort{{Name: "other", Port: 1}, {Name: "http", Port: 8080}, {Name: "http", Port: 70000}}}}}},
			wantIPs: map[string]string{"10.96.0.20 . tcp . 80": "goto svc-" + hash(id)},
			chains:  2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs := Render(tt.svcs, tt.eps)
			if tt.wantIPs == nil {
				tt.wantIPs = map[string]string{}
			}
			if tt.wantPorts == nil {
				tt.wantPorts = map[string]string{}
			}
			assert.Equal(t, tt.wantIPs, rs.ServiceIPs)
			assert.Equal(t, tt.wantPorts, rs.NodePorts)
			assert.Len(t, rs.Chains, tt.chains)
			script := rs.Script()
			for _, c := range tt.contains {
				assert.Contains(t, script, c)
			}
		})
	}
}

func TestDiff(t *testing.T) {
	web := service("default", "web", "10.96.0.20", nil)
	api := service("default", "api", "10.96.0.21", nil)
	three := endpoints("default", "web", 8080, []string{"10.244.0.2", "10.244.0.3", "10.244.0.4"})
	one := endpoints("default", "web", 8080, []string{"10.244.0.2"})
	apiEps := endpoints("default", "api", 9090, []string{"10.244.0.7"})
	base := Render([]*core.Service{web, api}, []*core.Endpoints{three, apiEps})

	t.Run("no change is empty", func(t *testing.T) {
		assert.Empty(t, Diff(base, Render([]*core.Service{web, api}, []*core.Endpoints{three, apiEps})))
	})
	t.Run("scale down touches only that service", func(t *testing.T) {
		d := Diff(base, Render([]*core.Service{web, api}, []*core.Endpoints{one, apiEps}))
		assert.Contains(t, d, "flush chain ip orkit-proxy svc-"+hash("default/web:http/tcp"))
		assert.Contains(t, d, "delete chain ip orkit-proxy ep-"+hash("default/web:http/tcp|10.244.0.3:8080"))
		assert.NotContains(t, d, hash("default/api:http/tcp"))
		assert.NotContains(t, d, "element", "the map element still points at the same chain")
		// flushes come before deletes
		assert.Less(t, strings.Index(d, "flush chain"), strings.Index(d, "delete chain"))
	})
	t.Run("service removed", func(t *testing.T) {
		d := Diff(base, Render([]*core.Service{api}, []*core.Endpoints{apiEps}))
		assert.Contains(t, d, "delete element ip orkit-proxy service-ips { 10.96.0.20 . tcp . 80 }")
		assert.Equal(t, 4, strings.Count(d, "delete chain"))
		assert.Less(t, strings.Index(d, "delete element"), strings.Index(d, "delete chain"))
	})
	t.Run("service added", func(t *testing.T) {
		d := Diff(Ruleset{Chains: map[string]string{}}, base)
		assert.Contains(t, d, "add element ip orkit-proxy service-ips { 10.96.0.20 . tcp . 80 : goto svc-")
		assert.Equal(t, 6, strings.Count(d, "add chain"))
	})
}

func TestScriptLargeElementBatches(t *testing.T) {
	var svcs []*core.Service
	var eps []*core.Endpoints
	for i := range 1200 {
		name := fmt.Sprintf("s%d", i)
		svcs = append(svcs, service("default", name, fmt.Sprintf("10.96.%d.%d", i/250, i%250+2), nil))
		eps = append(eps, endpoints("default", name, 8080, []string{"10.244.0.2"}))
	}
	rs := Render(svcs, eps)
	require.Len(t, rs.ServiceIPs, 1200)
	assert.Equal(t, 3, strings.Count(rs.Script(), "add element"))
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}
