package networking

import (
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

// NetworkPolicy says which traffic the pods it selects may receive
// (ingress) and send (egress). A pod selected by no policy of a type is
// not isolated for that type: everything is allowed. A pod selected by
// one or more policies of a type accepts, for that type, only what at
// least one of their rules allows (the rules add up; order does not
// matter). Replies to allowed connections are always allowed.
type NetworkPolicy struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            NetworkPolicySpec `json:"spec,omitempty"`
}

// NetworkPolicyList is a list of NetworkPolicies.
type NetworkPolicyList = meta.List[NetworkPolicy]

// PolicyType names a direction a policy isolates.
type PolicyType string

// The policy types.
const (
	PolicyTypeIngress PolicyType = "Ingress"
	PolicyTypeEgress  PolicyType = "Egress"
)

// NetworkPolicySpec is what a NetworkPolicy asks for.
type NetworkPolicySpec struct {
	// PodSelector selects the pods of the policy's namespace it applies
	// to; the empty selector selects every pod of the namespace.
	PodSelector meta.LabelSelector `json:"podSelector"`
	// Ingress lists the rules of allowed incoming traffic.
	Ingress []NetworkPolicyIngressRule `json:"ingress,omitempty"`
	// Egress lists the rules of allowed outgoing traffic.
	Egress []NetworkPolicyEgressRule `json:"egress,omitempty"`
	// PolicyTypes are the directions the policy isolates. Unset, the API
	// server defaults it to Ingress, plus Egress when Egress rules are
	// given (DefaultNetworkPolicy).
	PolicyTypes []PolicyType `json:"policyTypes,omitempty"`
}

// NetworkPolicyIngressRule allows traffic from any of From (everyone when
// empty) to any of Ports (every port when empty).
type NetworkPolicyIngressRule struct {
	Ports []NetworkPolicyPort `json:"ports,omitempty"`
	From  []NetworkPolicyPeer `json:"from,omitempty"`
}

// NetworkPolicyEgressRule allows traffic to any of To (everyone when
// empty) on any of Ports (every port when empty).
type NetworkPolicyEgressRule struct {
	Ports []NetworkPolicyPort `json:"ports,omitempty"`
	To    []NetworkPolicyPeer `json:"to,omitempty"`
}

// NetworkPolicyPort is a protocol (TCP when unset) and a port: a number,
// a range Port..EndPort, or a named container port; no port means every
// port of the protocol.
type NetworkPolicyPort struct {
	Protocol *core.Protocol    `json:"protocol,omitempty"`
	Port     *meta.IntOrString `json:"port,omitempty"`
	EndPort  *int32            `json:"endPort,omitempty"`
}

// NetworkPolicyPeer is one side of allowed traffic: pods chosen by
// PodSelector (in the policy's namespace) and/or NamespaceSelector (pods
// of the matching namespaces; with both, the matching pods of the
// matching namespaces), or an IPBlock on its own.
type NetworkPolicyPeer struct {
	PodSelector       *meta.LabelSelector `json:"podSelector,omitempty"`
	NamespaceSelector *meta.LabelSelector `json:"namespaceSelector,omitempty"`
	IPBlock           *IPBlock            `json:"ipBlock,omitempty"`
}

// IPBlock is a CIDR without the CIDRs in Except (each a strict subset of
// it).
type IPBlock struct {
	CIDR   string   `json:"cidr"`
	Except []string `json:"except,omitempty"`
}

// DefaultNetworkPolicy fills what the API server fills: TCP for ports
// without a protocol, and policyTypes when unset (Ingress, and Egress too
// when there are egress rules).
func DefaultNetworkPolicy(np *NetworkPolicy) {
	if len(np.Spec.PolicyTypes) == 0 {
		np.Spec.PolicyTypes = []PolicyType{PolicyTypeIngress}
		if len(np.Spec.Egress) > 0 {
			np.Spec.PolicyTypes = append(np.Spec.PolicyTypes, PolicyTypeEgress)
		}
	}
	defaultPorts := func(ports []NetworkPolicyPort) {
		for i := range ports {
			if ports[i].Protocol == nil {
				tcp := core.ProtocolTCP
				ports[i].Protocol = &tcp
			}
		}
	}
	for i := range np.Spec.Ingress {
		defaultPorts(np.Spec.Ingress[i].Ports)
	}
	for i := range np.Spec.Egress {
		defaultPorts(np.Spec.Egress[i].Ports)
	}
}

// EffectivePolicyTypes returns the directions spec isolates: PolicyTypes,
// or when that is empty (a policy the API server did not default) what
// DefaultNetworkPolicy would set.
func (spec *NetworkPolicySpec) EffectivePolicyTypes() (ingress, egress bool) {
	if len(spec.PolicyTypes) == 0 {
		return true, len(spec.Egress) > 0
	}
	for _, t := range spec.PolicyTypes {
		switch t {
		case PolicyTypeIngress:
			ingress = true
		case PolicyTypeEgress:
			egress = true
		}
	}
	return ingress, egress
}
