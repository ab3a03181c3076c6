package apiserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/netip"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

// updateSvc does what the e2e jig's UpdateService does: GET, edit, PUT.
func updateSvc(t *testing.T, ts *testServer, name string, edit func(*core.Service)) (int, *core.Service, string) {
	t.Helper()
	path := "/api/v1/namespaces/default/services/" + name
	code, out := ts.do(t, "GET", path, "", nil)
	require.Equal(t, http.StatusOK, code, string(out))
	var svc core.Service
	require.NoError(t, json.Unmarshal(out, &svc))
	edit(&svc)
	b, err := json.Marshal(&svc)
	require.NoError(t, err)
	code, out = ts.do(t, "PUT", path, "application/json", b)
	var got core.Service
	_ = json.Unmarshal(out, &got)
	return code, &got, string(out)
}

// The conformance specs' edits ("[sig-network] Services should be able to
// change the type from ... to ...").
func toExternalNameSpec(s *core.Service) {
	s.Spec.Type, s.Spec.ExternalName = core.ServiceTypeExternalName, "foo.example.com"
}

func fromExternalNameSpec(typ core.ServiceType) func(*core.Service) {
	return func(s *core.Service) {
		s.Spec.Type, s.Spec.ExternalName = typ, ""
		s.Spec.Ports = []core.ServicePort{{Port: 80, Name: "http", Protocol: core.ProtocolTCP, TargetPort: meta.FromInt(9376)}}
	}
}

func nodePortsOf(svc *core.Service) []int32 {
	var out []int32
	for _, p := range svc.Spec.Ports {
		out = append(out, p.NodePort)
	}
	return out
}

func TestServiceTypeChange(t *testing.T) {
	ts, _ := newAllocServer(t, ServiceAllocatorConfig{})
	cidr := netip.MustParsePrefix(DefaultServiceCIDR)
	inRange := func(t *testing.T, svc *core.Service) {
		t.Helper()
		ip, err := netip.ParseAddr(svc.Spec.ClusterIP)
		require.NoError(t, err)
		assert.True(t, cidr.Contains(ip), ip)
		assert.Equal(t, []string{svc.Spec.ClusterIP}, svc.Spec.ClusterIPs)
		assert.Equal(t, []core.IPFamily{core.IPv4Protocol}, svc.Spec.IPFamilies)
	}
	nodePortsInRange := func(t *testing.T, svc *core.Service) {
		t.Helper()
		for _, p := range svc.Spec.Ports {
			assert.True(t, p.NodePort >= DefaultNodePortBase && p.NodePort < DefaultNodePortBase+DefaultNodePortSize, p.NodePort)
		}
	}
	externalName := func(t *testing.T, _, svc *core.Service) {
		assert.Equal(t, core.ServiceTypeExternalName, svc.Spec.Type)
		assert.Equal(t, "foo.example.com", svc.Spec.ExternalName)
		assert.Empty(t, svc.Spec.ClusterIP, "Spec.ClusterIP was not cleared")
		assert.Empty(t, svc.Spec.ClusterIPs)
		assert.Empty(t, svc.Spec.IPFamilies)
		assert.Nil(t, svc.Spec.IPFamilyPolicy)
		assert.Empty(t, svc.Spec.ExternalTrafficPolicy)
		assert.Equal(t, []int32{0}, nodePortsOf(svc))
	}
	tests := []struct {
		name     string
		create   func(*core.Service)
		edit     func(*core.Service)
		wantCode int
		check    func(t *testing.T, before, after *core.Service)
		// freed says whether the old cluster IP and node ports must be
		// reusable by another Service after the change.
		freedIP, freedPorts bool
	}{
		{name: "ClusterIP to ExternalName", edit: toExternalNameSpec, wantCode: http.StatusOK, check: externalName, freedIP: true},
		{name: "NodePort to ExternalName", create: func(s *core.Service) { s.Spec.Type = core.ServiceTypeNodePort },
			edit: toExternalNameSpec, wantCode: http.StatusOK, check: externalName, freedIP: true, freedPorts: true},
		{name: "LoadBalancer to ExternalName", create: func(s *core.Service) {
			s.Spec.Type, s.Spec.LoadBalancerClass = core.ServiceTypeLoadBalancer, ptrTo("example.com/lb")
		}, edit: toExternalNameSpec, wantCode: http.StatusOK, check: func(t *testing.T, before, after *core.Service) {
			externalName(t, before, after)
			assert.Nil(t, after.Spec.AllocateLoadBalancerNodePorts)
			assert.Nil(t, after.Spec.LoadBalancerClass)
		}, freedIP: true, freedPorts: true},
		{name: "NodePort to ClusterIP", create: func(s *core.Service) { s.Spec.Type = core.ServiceTypeNodePort },
			edit: func(s *core.Service) { s.Spec.Type = core.ServiceTypeClusterIP }, wantCode: http.StatusOK,
			check: func(t *testing.T, before, after *core.Service) {
				assert.Equal(t, before.Spec.ClusterIP, after.Spec.ClusterIP)
				assert.Equal(t, []int32{0}, nodePortsOf(after))
				assert.Empty(t, after.Spec.ExternalTrafficPolicy)
			}, freedPorts: true},
		{name: "ClusterIP to NodePort", edit: func(s *core.Service) { s.Spec.Type = core.ServiceTypeNodePort }, wantCode: http.StatusOK,
			check: func(t *testing.T, before, after *core.Service) {
				assert.Equal(t, before.Spec.ClusterIP, after.Spec.ClusterIP)
				nodePortsInRange(t, after)
				assert.Equal(t, core.ServiceExternalTrafficPolicyCluster, after.Spec.ExternalTrafficPolicy)
			}},
		{name: "ExternalName to ClusterIP", create: createExternalNameSpec, edit: fromExternalNameSpec(core.ServiceTypeClusterIP),
			wantCode: http.StatusOK, check: func(t *testing.T, _, after *core.Service) {
				assert.Empty(t, after.Spec.ExternalName)
				inRange(t, after)
				assert.Equal(t, []int32{0}, nodePortsOf(after))
			}},
		{name: "ExternalName to NodePort", create: createExternalNameSpec, edit: fromExternalNameSpec(core.ServiceTypeNodePort),
			wantCode: http.StatusOK, check: func(t *testing.T, _, after *core.Service) {
				inRange(t, after)
				nodePortsInRange(t, after)
				assert.Equal(t, core.ServiceExternalTrafficPolicyCluster, after.Spec.ExternalTrafficPolicy)
			}},
		{name: "to ExternalName with a changed cluster IP is refused", edit: func(s *core.Service) {
			toExternalNameSpec(s)
			s.Spec.ClusterIP, s.Spec.ClusterIPs = "10.96.7.7", []string{"10.96.7.7"}
		}, wantCode: http.StatusUnprocessableEntity},
		{name: "to ExternalName with a new node port is refused", create: func(s *core.Service) { s.Spec.Type = core.ServiceTypeNodePort },
			edit: func(s *core.Service) {
				toExternalNameSpec(s)
				s.Spec.Ports[0].NodePort = s.Spec.Ports[0].NodePort + 1
			}, wantCode: http.StatusUnprocessableEntity},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := fmt.Sprintf("svc%d", i)
			code, before, body := createSvc(t, ts, name, tt.create)
			require.Equal(t, http.StatusCreated, code, body)
			code, after, body := updateSvc(t, ts, name, tt.edit)
			require.Equal(t, tt.wantCode, code, body)
			if tt.wantCode != http.StatusOK {
				return
			}
			tt.check(t, before, after)
			if tt.freedIP {
				requireReusable(t, ts, name+"-ip", func(s *core.Service) {
					s.Spec.ClusterIP = before.Spec.ClusterIP
				})
			}
			if tt.freedPorts {
				requireReusable(t, ts, name+"-port", func(s *core.Service) {
					s.Spec.Type, s.Spec.ClusterIP = core.ServiceTypeNodePort, core.ClusterIPNone
					s.Spec.Ports[0].NodePort = before.Spec.Ports[0].NodePort
				})
			}
		})
	}
}

// requireReusable creates a Service asking for what another one gave up;
// the allocator releases it once it sees the change, so this retries.
func requireReusable(t *testing.T, ts *testServer, name string, mutate func(*core.Service)) {
	t.Helper()
	var body string
	ok := assert.Eventually(t, func() bool {
		var code int
		code, _, body = createSvc(t, ts, name, mutate)
		return code == http.StatusCreated
	}, 10*time.Second, 20*time.Millisecond)
	require.True(t, ok, "%s never created: %s", name, body)
}

func createExternalNameSpec(s *core.Service) {
	s.Spec = core.ServiceSpec{Type: core.ServiceTypeExternalName, ExternalName: "foo.example.com", Selector: s.Spec.Selector}
}
