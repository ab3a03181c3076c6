package networking

import (
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

// GroupName and Version name the API group.
const (
	GroupName = "networking.k8s.io"
	Version   = "v1"
)

// GroupVersion returns networking.k8s.io/v1.
func GroupVersion() meta.GroupVersion { return meta.GroupVersion{Group: GroupName, Version: Version} }

// AnnotationDefaultClass marks the IngressClass that Ingresses naming no
// class get.
const AnnotationDefaultClass = "ingressclass.kubernetes.io/is-default-class"

// Ingress routes external HTTP(S) traffic to Services by host and path.
type Ingress struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            IngressSpec   `json:"spec,omitempty"`
	Status          IngressStatus `json:"status,omitempty"`
}

// IngressList is a list of Ingresses.
type IngressList = meta.List[Ingress]

// IngressSpec is the routing an Ingress asks for.
type IngressSpec struct {
	// IngressClassName names the IngressClass whose controller implements it.
	IngressClassName *string `json:"ingressClassName,omitempty"`
	// DefaultBackend takes requests no rule matches.
	DefaultBackend *IngressBackend `json:"defaultBackend,omitempty"`
	// TLS terminates the listed hosts with the certificate in a Secret.
	TLS []IngressTLS `json:"tls,omitempty"`
	// Rules route by host, then path.
	Rules []IngressRule `json:"rules,omitempty"`
}

// IngressTLS is one certificate for some hosts.
type IngressTLS struct {
	Hosts      []string `json:"hosts,omitempty"`
	SecretName string   `json:"secretName,omitempty"`
}

// IngressRule routes the requests for a host ("" for any).
type IngressRule struct {
	Host             string `json:"host,omitempty"`
	IngressRuleValue `json:",inline,omitempty"`
}

// IngressRuleValue is how a rule routes; HTTP is the only kind.
type IngressRuleValue struct {
	HTTP *HTTPIngressRuleValue `json:"http,omitempty"`
}

// HTTPIngressRuleValue routes by path.
type HTTPIngressRuleValue struct {
	Paths []HTTPIngressPath `json:"paths"`
}

// PathType says how a path matches.
type PathType string

// The path types.
const (
	PathTypeExact                  PathType = "Exact"
	PathTypePrefix                 PathType = "Prefix"
	PathTypeImplementationSpecific PathType = "ImplementationSpecific"
)

// HTTPIngressPath sends the requests for a path to a backend.
type HTTPIngressPath struct {
	Path     string         `json:"path,omitempty"`
	PathType *PathType      `json:"pathType"`
	Backend  IngressBackend `json:"backend"`
}

// IngressBackend is a Service port or another resource.
type IngressBackend struct {
	Service  *IngressServiceBackend          `json:"service,omitempty"`
	Resource *core.TypedLocalObjectReference `json:"resource,omitempty"`
}

// IngressServiceBackend is a Service and one of its ports.
type IngressServiceBackend struct {
	Name string             `json:"name"`
	Port ServiceBackendPort `json:"port,omitempty"`
}

// ServiceBackendPort names a Service port by name or number (one of them).
type ServiceBackendPort struct {
	Name   string `json:"name,omitempty"`
	Number int32  `json:"number,omitempty"`
}

// IngressStatus is what the ingress controller reports.
type IngressStatus struct {
	LoadBalancer IngressLoadBalancerStatus `json:"loadBalancer,omitempty"`
}

// IngressLoadBalancerStatus lists the addresses serving the Ingress.
type IngressLoadBalancerStatus struct {
	Ingress []IngressLoadBalancerIngress `json:"ingress,omitempty"`
}

// IngressLoadBalancerIngress is one address of the load balancer.
type IngressLoadBalancerIngress struct {
	IP       string              `json:"ip,omitempty"`
	Hostname string              `json:"hostname,omitempty"`
	Ports    []IngressPortStatus `json:"ports,omitempty"`
}

// IngressPortStatus is the state of one port of the load balancer.
type IngressPortStatus struct {
	Port     int32         `json:"port"`
	Protocol core.Protocol `json:"protocol"`
	Error    *string       `json:"error,omitempty"`
}

// IngressClass names an ingress controller and its parameters.
type IngressClass struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            IngressClassSpec `json:"spec,omitempty"`
}

// IngressClassList is a list of IngressClasses.
type IngressClassList = meta.List[IngressClass]

// IngressClassSpec names the controller ("example.com/ingress-nginx").
type IngressClassSpec struct {
	Controller string                           `json:"controller,omitempty"`
	Parameters *IngressClassParametersReference `json:"parameters,omitempty"`
}

// The scopes of IngressClass parameters.
const (
	IngressClassParametersReferenceScopeNamespace = "Namespace"
	IngressClassParametersReferenceScopeCluster   = "Cluster"
)

// IngressClassParametersReference points at the controller's parameters.
type IngressClassParametersReference struct {
	APIGroup  *string `json:"apiGroup,omitempty"`
	Kind      string  `json:"kind"`
	Name      string  `json:"name"`
	Scope     *string `json:"scope,omitempty"`
	Namespace *string `json:"namespace,omitempty"`
}

// AnnotationIngressClass is the deprecated Ingress annotation that named a
// class before spec.ingressClassName existed; an Ingress carrying it has a
// class.
const AnnotationIngressClass = "kubernetes.io/ingress.class"

// IsDefaultClass reports whether ic is annotated as the default class
// (ingressclass.kubernetes.io/is-default-class: "true").
func IsDefaultClass(ic *IngressClass) bool {
	return ic != nil && ic.Annotations[AnnotationDefaultClass] == "true"
}

// DefaultClass returns the default IngressClass among classes: the one
// annotated as default, the newest when several are (then the first by
// name), as Kubernetes' DefaultIngressClass plugin picks it; nil when none
// is.
func DefaultClass(classes []*IngressClass) *IngressClass {
	var best *IngressClass
	for _, ic := range classes {
		if !IsDefaultClass(ic) {
			continue
		}
		if best == nil {
			best = ic
			continue
		}
		t, bt := ic.CreationTimestamp.Time, best.CreationTimestamp.Time
		if t.After(bt) || t.Equal(bt) && ic.Name < best.Name {
			best = ic
		}
	}
	return best
}
