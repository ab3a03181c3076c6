package networking

import "github.com/orkit/orkit/api/meta"

// DefaultServiceCIDRName is the name of the ServiceCIDR the control plane
// creates from its configured service cluster IP range, as
// kube-apiserver's default ServiceCIDR controller names it.
const DefaultServiceCIDRName = "kubernetes"

// ServiceCIDRConditionReady is the condition type of a ServiceCIDR the API
// server may allocate cluster IPs from; ServiceCIDRReasonTerminating is
// the reason it is False while the ServiceCIDR is being deleted.
const (
	ServiceCIDRConditionReady    = "Ready"
	ServiceCIDRReasonTerminating = "Terminating"
)

// ServiceCIDR is a cluster-scoped range of addresses (one CIDR per IP
// family) that Services' cluster IPs are allocated from.
type ServiceCIDR struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            ServiceCIDRSpec   `json:"spec,omitempty"`
	Status          ServiceCIDRStatus `json:"status,omitempty"`
}

// ServiceCIDRList is a list of ServiceCIDRs.
type ServiceCIDRList = meta.List[ServiceCIDR]

// ServiceCIDRSpec holds the ranges.
type ServiceCIDRSpec struct {
	// CIDRs are one or two canonical CIDRs ("10.96.0.0/12",
	// "2001:db8::/112"), at most one per IP family. They cannot change,
	// except that a single-family ServiceCIDR may gain the other family.
	CIDRs []string `json:"cidrs,omitempty"`
}

// ServiceCIDRStatus is the state the allocator reports.
type ServiceCIDRStatus struct {
	// Conditions hold Ready.
	Conditions []meta.Condition `json:"conditions,omitempty"`
}

// IPAddress records that an address is allocated: its name is the
// address in canonical form ("10.96.0.10", "2001:db8::a"), its spec the
// object holding it. Cluster-scoped.
type IPAddress struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            IPAddressSpec `json:"spec,omitempty"`
}

// IPAddressList is a list of IPAddresses.
type IPAddressList = meta.List[IPAddress]

// IPAddressSpec names the holder of the address.
type IPAddressSpec struct {
	// ParentRef is the object the address is attached to; required and
	// immutable.
	ParentRef *ParentReference `json:"parentRef,omitempty"`
}

// ParentReference names an object by group ("" for the core group),
// resource, namespace ("" when cluster-scoped) and name.
type ParentReference struct {
	Group     string `json:"group,omitempty"`
	Resource  string `json:"resource,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name,omitempty"`
}
