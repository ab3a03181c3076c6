package core

import "github.com/orkit/orkit/api/meta"

// Service is a stable name and virtual IP in front of a set of pods.
type Service struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            ServiceSpec   `json:"spec,omitempty"`
	Status          ServiceStatus `json:"status,omitempty"`
}

// ServiceList is a list of services.
type ServiceList = meta.List[Service]

// ServiceType says how a Service is exposed.
type ServiceType string

// The service types.
const (
	ServiceTypeClusterIP    ServiceType = "ClusterIP"
	ServiceTypeNodePort     ServiceType = "NodePort"
	ServiceTypeLoadBalancer ServiceType = "LoadBalancer"
	ServiceTypeExternalName ServiceType = "ExternalName"
)

// ServiceAffinity says whether a client sticks to one backend.
type ServiceAffinity string

// The service affinities.
const (
	ServiceAffinityClientIP ServiceAffinity = "ClientIP"
	ServiceAffinityNone     ServiceAffinity = "None"
)

// ServiceExternalTrafficPolicy routes traffic from outside the cluster.
type ServiceExternalTrafficPolicy string

// The external traffic policies.
const (
	ServiceExternalTrafficPolicyCluster ServiceExternalTrafficPolicy = "Cluster"
	ServiceExternalTrafficPolicyLocal   ServiceExternalTrafficPolicy = "Local"
)

// ServiceInternalTrafficPolicy routes traffic from inside the cluster.
type ServiceInternalTrafficPolicy string

// The internal traffic policies.
const (
	ServiceInternalTrafficPolicyCluster ServiceInternalTrafficPolicy = "Cluster"
	ServiceInternalTrafficPolicyLocal   ServiceInternalTrafficPolicy = "Local"
)

// IPFamily is IPv4 or IPv6.
type IPFamily string

// The IP families.
const (
	IPv4Protocol IPFamily = "IPv4"
	IPv6Protocol IPFamily = "IPv6"
)

// IPFamilyPolicy says how many IP families a Service gets.
type IPFamilyPolicy string

// The IP family policies.
const (
	IPFamilyPolicySingleStack      IPFamilyPolicy = "SingleStack"
	IPFamilyPolicyPreferDualStack  IPFamilyPolicy = "PreferDualStack"
	IPFamilyPolicyRequireDualStack IPFamilyPolicy = "RequireDualStack"
)

// ServiceSpec is the desired state of a service.
type ServiceSpec struct {
	// Ports are the service's ports; named when there are several.
	Ports []ServicePort `json:"ports,omitempty"`
	// Selector picks the pods behind the service; none means Endpoints are managed by hand.
	Selector map[string]string `json:"selector,omitempty"`
	// ClusterIP is the virtual IP, allocated by the API server; "None" makes the service
	// headless.
	ClusterIP string `json:"clusterIP,omitempty"`
	// ClusterIPs are the virtual IPs, one per family, the first equal to ClusterIP.
	ClusterIPs []string `json:"clusterIPs,omitempty"`
	// Type says how the service is exposed; defaults to ClusterIP.
	Type ServiceType `json:"type,omitempty"`
	// ExternalIPs are extra IPs on which nodes accept the service's traffic.
	ExternalIPs []string `json:"externalIPs,omitempty"`
	// SessionAffinity is None or ClientIP; defaults to None.
	SessionAffinity ServiceAffinity `json:"sessionAffinity,omitempty"`
	// LoadBalancerIP is a deprecated load balancer address request.
	LoadBalancerIP string `json:"loadBalancerIP,omitempty"`
	// LoadBalancerSourceRanges restrict load balancer clients.
	LoadBalancerSourceRanges []string `json:"loadBalancerSourceRanges,omitempty"`
	// ExternalName is the DNS name an ExternalName service aliases.
	ExternalName string `json:"externalName,omitempty"`
	// ExternalTrafficPolicy routes external traffic to all or only node-local endpoints.
	ExternalTrafficPolicy ServiceExternalTrafficPolicy `json:"externalTrafficPolicy,omitempty"`
	// HealthCheckNodePort serves load balancer health checks with policy Local.
	HealthCheckNodePort int32 `json:"healthCheckNodePort,omitempty"`
	// PublishNotReadyAddresses lists unready pods as ready endpoints.
	PublishNotReadyAddresses bool `json:"publishNotReadyAddresses,omitempty"`
	// SessionAffinityConfig holds the ClientIP timeout.
	SessionAffinityConfig *SessionAffinityConfig `json:"sessionAffinityConfig,omitempty"`
	// IPFamilies are the families of ClusterIPs.
	IPFamilies []IPFamily `json:"ipFamilies,omitempty"`
	// IPFamilyPolicy says how many families the service gets.
	IPFamilyPolicy *IPFamilyPolicy `json:"ipFamilyPolicy,omitempty"`
	// AllocateLoadBalancerNodePorts says whether a LoadBalancer service gets node ports.
	AllocateLoadBalancerNodePorts *bool `json:"allocateLoadBalancerNodePorts,omitempty"`
	// LoadBalancerClass selects a load balancer implementation.
	LoadBalancerClass *string `json:"loadBalancerClass,omitempty"`
	// InternalTrafficPolicy routes in-cluster traffic to all or only node-local endpoints.
	InternalTrafficPolicy *ServiceInternalTrafficPolicy `json:"internalTrafficPolicy,omitempty"`
	// TrafficDistribution is a routing preference.
	TrafficDistribution *string `json:"trafficDistribution,omitempty"`
}

// ServicePort is one port of a service.
type ServicePort struct {
	// Name is the port's DNS-label name, required when the service has several ports.
	Name string `json:"name,omitempty"`
	// Protocol defaults to TCP.
	Protocol Protocol `json:"protocol,omitempty"`
	// AppProtocol names the application protocol.
	AppProtocol *string `json:"appProtocol,omitempty"`
	// Port is the port the service exposes.
	Port int32 `json:"port"`
	// TargetPort is the pods' port, a number or a container port name; defaults to Port.
	TargetPort meta.IntOrString `json:"targetPort,omitempty"`
	// NodePort is the port on every node, for NodePort and LoadBalancer services.
	NodePort int32 `json:"nodePort,omitempty"`
}

// SessionAffinityConfig configures session affinity.
type SessionAffinityConfig struct {
	ClientIP *ClientIPConfig `json:"clientIP,omitempty"`
}

// ClientIPConfig configures ClientIP affinity.
type ClientIPConfig struct {
	TimeoutSeconds *int32 `json:"timeoutSeconds,omitempty"`
}

// ServiceStatus is the observed state of a service.
type ServiceStatus struct {
	LoadBalancer LoadBalancerStatus `json:"loadBalancer,omitempty"`
	Conditions   []meta.Condition   `json:"conditions,omitempty"`
}

// LoadBalancerStatus lists a load balancer's ingress points.
type LoadBalancerStatus struct {
	Ingress []LoadBalancerIngress `json:"ingress,omitempty"`
}

// LoadBalancerIngress is one ingress point of a load balancer.
type LoadBalancerIngress struct {
	IP       string       `json:"ip,omitempty"`
	Hostname string       `json:"hostname,omitempty"`
	IPMode   *string      `json:"ipMode,omitempty"`
	Ports    []PortStatus `json:"ports,omitempty"`
}

// PortStatus is the status of one load balancer port.
type PortStatus struct {
	Port     int32    `json:"port"`
	Protocol Protocol `json:"protocol"`
	Error    *string  `json:"error,omitempty"`
}

// IsHeadless reports whether the service has no cluster IP.
func (s *Service) IsHeadless() bool { return s.Spec.ClusterIP == ClusterIPNone }
