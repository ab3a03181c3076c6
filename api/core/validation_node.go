package core

import (
	"fmt"

	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/validation"
)

// ValidateNode checks a Node: a DNS-subdomain name, valid pod CIDRs (at
// most one per IP family, podCIDR equal to the first), taints (qualified
// keys, label values, a supported effect, unique key and effect),
// non-negative capacity and allocatable, and valid addresses.
func ValidateNode(node *Node) field.ErrorList {
	errs := validation.ValidateObjectMeta(&node.ObjectMeta, false, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	sp := field.NewPath("spec")
	errs = append(errs, validateNodeCIDRs(&node.Spec, sp)...)
	errs = append(errs, validateTaints(node.Spec.Taints, sp.Child("taints"))...)
	st := field.NewPath("status")
	errs = append(errs, validateResourceList(node.Status.Capacity, st.Child("capacity"))...)
	errs = append(errs, validateResourceList(node.Status.Allocatable, st.Child("allocatable"))...)
	for i, a := range node.Status.Addresses {
		ap := st.Child("addresses").Index(i)
		if a.Address == "" {
			errs = append(errs, field.Required(ap.Child("address"), ""))
		}
		errs = append(errs, validateEnum(a.Type, true, ap.Child("type"), NodeExternalDNS, NodeExternalIP,
			NodeHostName, NodeInternalDNS, NodeInternalIP)...)
	}
	for i, c := range node.Status.Conditions {
		errs = append(errs, validateEnum(c.Status, true, st.Child("conditions").Index(i).Child("status"),
			"True", "False", "Unknown")...)
	}
	return errs
}

func validateNodeCIDRs(spec *NodeSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if spec.PodCIDR != "" {
		errs = append(errs, invalidAll(p.Child("podCIDR"), spec.PodCIDR, validation.IsCIDR(spec.PodCIDR))...)
	}
	cp := p.Child("podCIDRs")
	if len(spec.PodCIDRs) > 0 && spec.PodCIDRs[0] != spec.PodCIDR {
		errs = append(errs, field.Invalid(cp.Index(0), spec.PodCIDRs[0], "must match the podCIDR"))
	}
	if len(spec.PodCIDRs) > 2 {
		errs = append(errs, field.Invalid(cp, fmt.Sprint(spec.PodCIDRs), "may specify no more than one CIDR for each IP family"))
	}
	for i, c := range spec.PodCIDRs {
		errs = append(errs, invalidAll(cp.Index(i), c, validation.IsCIDR(c))...)
	}
	return errs
}

func validateTaints(taints []Taint, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, t := range taints {
		ip := p.Index(i)
		errs = append(errs, validateQualifiedName(t.Key, ip.Child("key"))...)
		errs = append(errs, invalidAll(ip.Child("value"), t.Value, validation.IsValidLabelValue(t.Value))...)
		errs = append(errs, validateTaintEffect(t.Effect, ip.Child("effect"))...)
		k := t.Key + ":" + string(t.Effect)
		if seen[k] {
			errs = append(errs, field.Duplicate(ip, "taints must be unique by key and effect pair"))
		}
		seen[k] = true
	}
	return errs
}

// ValidateNodeUpdate checks node as a replacement for old: valid on its
// own, metadata changed as metadata may, and podCIDRs and providerID set
// at most once.
func ValidateNodeUpdate(node, old *Node) field.ErrorList {
	errs := validation.ValidateObjectMetaUpdate(&node.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	errs = append(errs, ValidateNode(node)...)
	sp := field.NewPath("spec")
	if len(old.Spec.PodCIDRs) > 0 && fmt.Sprint(old.Spec.PodCIDRs) != fmt.Sprint(node.Spec.PodCIDRs) {
		errs = append(errs, field.Forbidden(sp.Child("podCIDRs"), "node updates may not change podCIDR except from \"\" to valid"))
	}
	if old.Spec.ProviderID != "" && node.Spec.ProviderID != old.Spec.ProviderID {
		errs = append(errs, field.Forbidden(sp.Child("providerID"), "node updates may not change providerID except from \"\" to valid"))
	}
	return errs
}
