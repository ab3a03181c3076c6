package networking

import (
	"net/netip"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/validation"
)

// ValidateNetworkPolicy checks a new NetworkPolicy as kube-apiserver does:
// valid selectors, ports (TCP, UDP or SCTP; a number 1-65535 or a port
// name; endPort only after a numeric port and not below it), peers naming
// at least one selector or an ipBlock (never an ipBlock with a selector),
// ipBlocks whose excepts are strict subsets of the CIDR, and at most the
// two policy types Ingress and Egress.
func ValidateNetworkPolicy(np *NetworkPolicy) field.ErrorList {
	errs := validation.ValidateObjectMeta(&np.ObjectMeta, true, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(errs, validateNetworkPolicySpec(&np.Spec, field.NewPath("spec"))...)
}

// ValidateNetworkPolicyUpdate checks np as a replacement for old; the
// spec may change freely.
func ValidateNetworkPolicyUpdate(np, old *NetworkPolicy) field.ErrorList {
	errs := validation.ValidateObjectMetaUpdate(&np.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	return append(errs, validateNetworkPolicySpec(&np.Spec, field.NewPath("spec"))...)
}

func validateNetworkPolicySpec(spec *NetworkPolicySpec, p *field.Path) field.ErrorList {
	errs := validation.ValidateLabelSelector(&spec.PodSelector, p.Child("podSelector"))
	for i, r := range spec.Ingress {
		rp := p.Child("ingress").Index(i)
		for j := range r.Ports {
			errs = append(errs, validateNetworkPolicyPort(&r.Ports[j], rp.Child("ports").Index(j))...)
		}
		for j := range r.From {
			errs = append(errs, validateNetworkPolicyPeer(&r.From[j], rp.Child("from").Index(j))...)
		}
	}
	for i, r := range spec.Egress {
		rp := p.Child("egress").Index(i)
		for j := range r.Ports {
			errs = append(errs, validateNetworkPolicyPort(&r.Ports[j], rp.Child("ports").Index(j))...)
		}
		for j := range r.To {
			errs = append(errs, validateNetworkPolicyPeer(&r.To[j], rp.Child("to").Index(j))...)
		}
	}
	types := []string{string(PolicyTypeIngress), string(PolicyTypeEgress)}
	if len(spec.PolicyTypes) > len(types) {
		return append(errs, field.Invalid(p.Child("policyTypes"), spec.PolicyTypes, "may not specify more than two policyTypes"))
	}
	for i, t := range spec.PolicyTypes {
		if t != PolicyTypeIngress && t != PolicyTypeEgress {
			errs = append(errs, field.NotSupported(p.Child("policyTypes").Index(i), t, types))
		}
	}
	return errs
}

func validateNetworkPolicyPort(port *NetworkPolicyPort, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if pr := port.Protocol; pr != nil && *pr != core.ProtocolTCP && *pr != core.ProtocolUDP && *pr != core.ProtocolSCTP {
		errs = append(errs, field.NotSupported(p.Child("protocol"), *pr,
			[]string{string(core.ProtocolTCP), string(core.ProtocolUDP), string(core.ProtocolSCTP)}))
	}
	switch {
	case port.Port == nil:
		if port.EndPort != nil {
			errs = append(errs, field.Invalid(p.Child("endPort"), *port.EndPort, "may not be specified when `port` is not specified"))
		}
	case port.Port.IsString:
		if port.EndPort != nil {
			errs = append(errs, field.Invalid(p.Child("endPort"), *port.EndPort, "may not be specified when `port` is non-numeric"))
		}
		errs = append(errs, invalidAll(p.Child("port"), port.Port.StrVal, validation.IsValidPortName(port.Port.StrVal))...)
	default:
		errs = append(errs, invalidAll(p.Child("port"), port.Port.IntVal, validation.IsValidPortNum(int(port.Port.IntVal)))...)
		if port.EndPort != nil {
			if *port.EndPort < port.Port.IntVal {
				errs = append(errs, field.Invalid(p.Child("endPort"), port.Port.IntVal, "must be greater than or equal to `port`"))
			}
			errs = append(errs, invalidAll(p.Child("endPort"), *port.EndPort, validation.IsValidPortNum(int(*port.EndPort)))...)
		}
	}
	return errs
}

func validateNetworkPolicyPeer(peer *NetworkPolicyPeer, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	n := 0
	if peer.PodSelector != nil {
		n++
		errs = append(errs, validation.ValidateLabelSelector(peer.PodSelector, p.Child("podSelector"))...)
	}
	if peer.NamespaceSelector != nil {
		n++
		errs = append(errs, validation.ValidateLabelSelector(peer.NamespaceSelector, p.Child("namespaceSelector"))...)
	}
	if peer.IPBlock != nil {
		n++
		errs = append(errs, validateIPBlock(peer.IPBlock, p.Child("ipBlock"))...)
	}
	switch {
	case n == 0:
		errs = append(errs, field.Required(p, "must specify a peer"))
	case n > 1 && peer.IPBlock != nil:
		errs = append(errs, field.Forbidden(p, "may not specify both ipBlock and another peer"))
	}
	return errs
}

func validateIPBlock(b *IPBlock, p *field.Path) field.ErrorList {
	if b.CIDR == "" {
		return field.ErrorList{field.Required(p.Child("cidr"), "")}
	}
	errs := invalidAll(p.Child("cidr"), b.CIDR, validation.IsCIDR(b.CIDR))
	cidr, cerr := netip.ParsePrefix(b.CIDR)
	for i, e := range b.Except {
		ep := p.Child("except").Index(i)
		if msgs := validation.IsCIDR(e); len(msgs) > 0 {
			errs = append(errs, invalidAll(ep, e, msgs)...)
			continue
		}
		ex, err := netip.ParsePrefix(e)
		if cerr != nil || err != nil {
			continue // a CIDR with leading zeros: valid, not compared
		}
		if !cidr.Masked().Contains(ex.Addr()) || cidr.Bits() >= ex.Bits() {
			errs = append(errs, field.Invalid(ep, e, "must be a strict subset of `cidr`"))
		}
	}
	return errs
}
