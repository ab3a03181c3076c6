package core

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/orkit/orkit/api/meta"
)

// allocatedService is a Service as the API server stores it after
// allocation: of type t, with a cluster IP, families, node ports when t
// has them and a load balancer's status and class when it is one.
func allocatedService(t ServiceType) *Service {
	svc := &Service{ObjectMeta: meta.ObjectMeta{Name: "web", Namespace: "demo"}, Spec: ServiceSpec{
		Type: t, Selector: map[string]string{"app": "web"},
		Ports: []ServicePort{{Name: "http", Port: 80}, {Name: "dns", Port: 53, Protocol: ProtocolUDP}},
	}}
	if t != ServiceTypeExternalName {
		svc.Spec.ClusterIP, svc.Spec.ClusterIPs = "10.96.0.20", []string{"10.96.0.20"}
		svc.Spec.IPFamilies, svc.Spec.IPFamilyPolicy = []IPFamily{IPv4Protocol}, ptr(IPFamilyPolicySingleStack)
	} else {
		svc.Spec.ExternalName = "db.example.com"
	}
	if t == ServiceTypeNodePort || t == ServiceTypeLoadBalancer {
		svc.Spec.Ports[0].NodePort, svc.Spec.Ports[1].NodePort = 30080, 30053
	}
	if t == ServiceTypeLoadBalancer {
		svc.Spec.ExternalTrafficPolicy, svc.Spec.HealthCheckNodePort = ServiceExternalTrafficPolicyLocal, 31999
		svc.Spec.LoadBalancerClass = ptr("example.com/lb")
		svc.Status.LoadBalancer.Ingress = []LoadBalancerIngress{{IP: "192.0.2.1"}}
	}
	DefaultService(svc)
	return svc
}

func nodePorts(svc *Service) []int32 {
	var out []int32
	for _, p := range svc.Spec.Ports {
		out = append(out, p.NodePort)
	}
	return out
}

func TestDropServiceTypeDependentFields(t *testing.T) {
	tests := []struct {
		name   string
		old    ServiceType
		change func(*Service) // the client's edit of the stored object
		check  func(t *testing.T, svc *Service)
	}{
		{"cluster IP to external name", ServiceTypeClusterIP, toExternalName, func(t *testing.T, svc *Service) {
			assert.Empty(t, svc.Spec.ClusterIP)
			assert.Nil(t, svc.Spec.ClusterIPs)
			assert.Nil(t, svc.Spec.IPFamilies)
			assert.Nil(t, svc.Spec.IPFamilyPolicy)
			assert.Empty(t, svc.Spec.ExternalTrafficPolicy)
			assert.Equal(t, ptr(ServiceInternalTrafficPolicyCluster), svc.Spec.InternalTrafficPolicy, "kept: allowed on ExternalName")
			assert.Empty(t, ValidateServiceUpdate(svc, allocatedService(ServiceTypeClusterIP)))
		}},
		{"node port to external name", ServiceTypeNodePort, toExternalName, func(t *testing.T, svc *Service) {
			assert.Empty(t, svc.Spec.ClusterIP)
			assert.Equal(t, []int32{0, 0}, nodePorts(svc))
			assert.Empty(t, svc.Spec.ExternalTrafficPolicy)
			assert.Empty(t, ValidateServiceUpdate(svc, allocatedService(ServiceTypeNodePort)))
		}},
		{"load balancer to external name", ServiceTypeLoadBalancer, toExternalName, func(t *testing.T, svc *Service) {
			assert.Empty(t, svc.Spec.ClusterIPs)
			assert.Equal(t, []int32{0, 0}, nodePorts(svc))
			assert.Zero(t, svc.Spec.HealthCheckNodePort)
			assert.Nil(t, svc.Spec.AllocateLoadBalancerNodePorts)
			assert.Nil(t, svc.Spec.LoadBalancerClass)
			assert.Empty(t, svc.Spec.ExternalTrafficPolicy)
			assert.Empty(t, svc.Status.LoadBalancer.Ingress)
			assert.Empty(t, ValidateServiceUpdate(svc, allocatedService(ServiceTypeLoadBalancer)))
		}},
		{"node port to cluster IP", ServiceTypeNodePort, func(s *Service) { s.Spec.Type = ServiceTypeClusterIP }, func(t *testing.T, svc *Service) {
			assert.Equal(t, "10.96.0.20", svc.Spec.ClusterIP, "a cluster IP type keeps its address")
			assert.Equal(t, []IPFamily{IPv4Protocol}, svc.Spec.IPFamilies)
			assert.Equal(t, []int32{0, 0}, nodePorts(svc))
			assert.Empty(t, svc.Spec.ExternalTrafficPolicy)
			assert.Empty(t, ValidateServiceUpdate(svc, allocatedService(ServiceTypeNodePort)))
		}},
		{"node port to cluster IP with external IPs keeps the policy", ServiceTypeNodePort, func(s *Service) {
			s.Spec.Type, s.Spec.ExternalIPs = ServiceTypeClusterIP, []string{"192.0.2.7"}
		}, func(t *testing.T, svc *Service) {
			assert.Equal(t, ServiceExternalTrafficPolicyCluster, svc.Spec.ExternalTrafficPolicy)
			assert.Equal(t, []int32{0, 0}, nodePorts(svc))
		}},
		{"load balancer to node port", ServiceTypeLoadBalancer, func(s *Service) { s.Spec.Type = ServiceTypeNodePort }, func(t *testing.T, svc *Service) {
			assert.Equal(t, []int32{30080, 30053}, nodePorts(svc), "node port still uses them")
			assert.Zero(t, svc.Spec.HealthCheckNodePort)
			assert.Nil(t, svc.Spec.AllocateLoadBalancerNodePorts)
			assert.Nil(t, svc.Spec.LoadBalancerClass)
			assert.Equal(t, ServiceExternalTrafficPolicyLocal, svc.Spec.ExternalTrafficPolicy)
			assert.Empty(t, svc.Status.LoadBalancer.Ingress)
		}},
		{"load balancer policy Local to Cluster drops the health check port", ServiceTypeLoadBalancer, func(s *Service) {
			s.Spec.ExternalTrafficPolicy = ServiceExternalTrafficPolicyCluster
		}, func(t *testing.T, svc *Service) {
			assert.Zero(t, svc.Spec.HealthCheckNodePort)
			assert.Equal(t, ptr("example.com/lb"), svc.Spec.LoadBalancerClass)
			assert.Len(t, svc.Status.LoadBalancer.Ingress, 1, "still a load balancer")
		}},
		{"external name to cluster IP has nothing to drop", ServiceTypeExternalName, func(s *Service) {
			s.Spec.Type, s.Spec.ExternalName = ServiceTypeClusterIP, ""
		}, func(t *testing.T, svc *Service) {
			assert.Empty(t, svc.Spec.ClusterIP, "left to the allocator")
			assert.Equal(t, ServiceTypeClusterIP, svc.Spec.Type)
		}},
		{"cluster IP to node port has nothing to drop", ServiceTypeClusterIP, func(s *Service) { s.Spec.Type = ServiceTypeNodePort }, func(t *testing.T, svc *Service) {
			assert.Equal(t, "10.96.0.20", svc.Spec.ClusterIP)
			assert.Equal(t, []int32{0, 0}, nodePorts(svc))
		}},
		{"changed cluster IP is kept for validation", ServiceTypeClusterIP, func(s *Service) {
			toExternalName(s)
			s.Spec.ClusterIP, s.Spec.ClusterIPs = "10.96.0.21", []string{"10.96.0.21"}
			s.Spec.IPFamilyPolicy = ptr(IPFamilyPolicyPreferDualStack)
		}, func(t *testing.T, svc *Service) {
			assert.Equal(t, "10.96.0.21", svc.Spec.ClusterIP)
			assert.Nil(t, svc.Spec.IPFamilies, "unchanged, dropped")
			assert.Equal(t, ptr(IPFamilyPolicyPreferDualStack), svc.Spec.IPFamilyPolicy)
			assert.Contains(t, errStrings(ValidateServiceUpdate(svc, allocatedService(ServiceTypeClusterIP))),
				"spec.clusterIPs: Forbidden: may not be set for ExternalName services")
		}},
		{"new node port is kept for validation", ServiceTypeNodePort, func(s *Service) {
			toExternalName(s)
			s.Spec.Ports[0].NodePort = 30081
		}, func(t *testing.T, svc *Service) {
			assert.Equal(t, []int32{30081, 30053}, nodePorts(svc))
			assert.Contains(t, errStrings(ValidateServiceUpdate(svc, allocatedService(ServiceTypeNodePort))),
				"spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ExternalName'")
		}},
		{"removed and moved node ports still drop", ServiceTypeNodePort, func(s *Service) {
			s.Spec.Type = ServiceTypeClusterIP
			s.Spec.Ports = []ServicePort{{Name: "dns", Port: 53, Protocol: ProtocolUDP, NodePort: 30080}}
		}, func(t *testing.T, svc *Service) { assert.Equal(t, []int32{0}, nodePorts(svc)) }},
		{"changed policy is kept for validation", ServiceTypeNodePort, func(s *Service) {
			s.Spec.Type, s.Spec.ExternalTrafficPolicy = ServiceTypeClusterIP, ServiceExternalTrafficPolicyLocal
		}, func(t *testing.T, svc *Service) {
			assert.Equal(t, ServiceExternalTrafficPolicyLocal, svc.Spec.ExternalTrafficPolicy)
		}},
		{"changed load balancer fields are kept", ServiceTypeLoadBalancer, func(s *Service) {
			s.Spec.Type = ServiceTypeNodePort
			s.Spec.HealthCheckNodePort, s.Spec.LoadBalancerClass = 31998, ptr("example.com/other")
			s.Spec.AllocateLoadBalancerNodePorts = ptr(false)
		}, func(t *testing.T, svc *Service) {
			assert.Equal(t, int32(31998), svc.Spec.HealthCheckNodePort)
			assert.Equal(t, ptr("example.com/other"), svc.Spec.LoadBalancerClass)
			assert.Equal(t, ptr(false), svc.Spec.AllocateLoadBalancerNodePorts)
		}},
		{"same type changes nothing", ServiceTypeLoadBalancer, func(*Service) {}, func(t *testing.T, svc *Service) {
			assert.Equal(t, allocatedService(ServiceTypeLoadBalancer), svc)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old, svc := allocatedService(tt.old), allocatedService(tt.old)
			tt.change(svc)
			DefaultService(svc)
			DropServiceTypeDependentFields(svc, old)
			tt.check(t, svc)
			assert.Equal(t, allocatedService(tt.old), old, "old is not touched")
		})
	}
}

// toExternalName is the conformance specs' edit: type and name only.
func toExternalName(s *Service) {
	s.Spec.Type, s.Spec.ExternalName = ServiceTypeExternalName, "foo.example.com"
}
