package discovery

import (
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

// GroupName and Version name the API group.
const (
	GroupName = "discovery.k8s.io"
	Version   = "v1"
)

// GroupVersion returns discovery.k8s.io/v1.
func GroupVersion() meta.GroupVersion { return meta.GroupVersion{Group: GroupName, Version: Version} }

// Well-known labels of EndpointSlices.
const (
	// LabelServiceName names the Service a slice belongs to; consumers
	// join the slices of a Service by it.
	LabelServiceName = "kubernetes.io/service-name"
	// LabelManagedBy names the controller that owns a slice, so that
	// controllers leave each other's slices alone.
	LabelManagedBy = "endpointslice.kubernetes.io/managed-by"
	// LabelSkipMirror on an Endpoints object keeps the mirroring
	// controller from copying it into slices.
	LabelSkipMirror = "endpointslice.kubernetes.io/skip-mirror"
)

// Limits of one slice, as Kubernetes enforces them.
const (
	MaxEndpoints = 1000 // endpoints per slice
	MaxPorts     = 100  // ports per slice
	MaxAddresses = 100  // addresses per endpoint
)

// AddressType is the kind of address every endpoint of a slice carries.
type AddressType string

// The address types.
const (
	AddressTypeIPv4 AddressType = "IPv4"
	AddressTypeIPv6 AddressType = "IPv6"
	AddressTypeFQDN AddressType = "FQDN"
)

// EndpointSlice is a subset of the endpoints of a Service; the slices
// labelled with the same kubernetes.io/service-name together make the
// Service's endpoints.
type EndpointSlice struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	// AddressType is the type of every address in the slice; immutable.
	AddressType AddressType `json:"addressType"`
	// Endpoints of the slice, at most MaxEndpoints.
	Endpoints []Endpoint `json:"endpoints"`
	// Ports every endpoint of the slice exposes; empty means none are
	// defined, a port with a nil Port means all ports.
	Ports []EndpointPort `json:"ports,omitempty"`
}

// Endpoint is one backend: usually one pod.
type Endpoint struct {
	// Addresses of the endpoint (1 to MaxAddresses); consumers use the
	// first, the rest being the same backend's other addresses.
	Addresses []string `json:"addresses"`
	// Conditions say whether the endpoint should take traffic.
	Conditions EndpointConditions `json:"conditions,omitempty"`
	// Hostname of the endpoint, for DNS (a headless Service's pods).
	Hostname *string `json:"hostname,omitempty"`
	// TargetRef is the object the endpoint stands for (its pod).
	TargetRef *core.ObjectReference `json:"targetRef,omitempty"`
	// DeprecatedTopology is kept for round-trips of old clients.
	DeprecatedTopology map[string]string `json:"deprecatedTopology,omitempty"`
	// NodeName is the node hosting the endpoint.
	NodeName *string `json:"nodeName,omitempty"`
	// Zone the endpoint is in.
	Zone *string `json:"zone,omitempty"`
	// Hints for topology-aware routing.
	Hints *EndpointHints `json:"hints,omitempty"`
}

// EndpointConditions are an endpoint's states. A nil condition is
// unknown; consumers take an unknown Ready as ready.
type EndpointConditions struct {
	// Ready: the endpoint takes new traffic (serving and not terminating).
	Ready *bool `json:"ready,omitempty"`
	// Serving: the endpoint's readiness, regardless of termination.
	Serving *bool `json:"serving,omitempty"`
	// Terminating: the endpoint is going away.
	Terminating *bool `json:"terminating,omitempty"`
}

// EndpointHints are topology hints for consumers.
type EndpointHints struct {
	ForZones []ForZone `json:"forZones,omitempty"`
	ForNodes []ForNode `json:"forNodes,omitempty"`
}

// ForZone names a zone an endpoint should serve.
type ForZone struct {
	Name string `json:"name"`
}

// ForNode names a node an endpoint should serve.
type ForNode struct {
	Name string `json:"name"`
}

// EndpointPort is one port of a slice's endpoints.
type EndpointPort struct {
	// Name matches the Service port's name; unique in the slice.
	Name *string `json:"name,omitempty"`
	// Protocol is TCP (default), UDP or SCTP.
	Protocol *core.Protocol `json:"protocol,omitempty"`
	// Port number; nil means all ports.
	Port *int32 `json:"port,omitempty"`
	// AppProtocol is the application protocol of the port.
	AppProtocol *string `json:"appProtocol,omitempty"`
}

// EndpointSliceList is a list of EndpointSlices.
type EndpointSliceList = meta.List[EndpointSlice]

// IsReady reports whether e takes traffic: its Ready condition, unknown
// counting as ready, as Kubernetes tells consumers to read it.
func (e *Endpoint) IsReady() bool { return e.Conditions.Ready == nil || *e.Conditions.Ready }

// NameValue is the port's name, "" when unset.
func (p *EndpointPort) NameValue() string { return valueOf(p.Name) }

// ProtocolValue is the port's protocol, TCP when unset (its default).
func (p *EndpointPort) ProtocolValue() core.Protocol {
	if p.Protocol == nil {
		return core.ProtocolTCP
	}
	return *p.Protocol
}

// PortValue is the port's number, 0 (all ports) when unset.
func (p *EndpointPort) PortValue() int32 { return valueOf(p.Port) }

// AppProtocolValue is the port's application protocol, "" when unset.
func (p *EndpointPort) AppProtocolValue() string { return valueOf(p.AppProtocol) }

// HostnameValue is the endpoint's hostname, "" when unset.
func (e *Endpoint) HostnameValue() string { return valueOf(e.Hostname) }

func valueOf[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
