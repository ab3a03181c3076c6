package core

import (
	"fmt"
	"net"
	"strings"

	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/validation"
)

// ValidateNode checks a Node: a DNS-subdomain name, valid pod CIDRs (at
// most one per IP family, podCIDR equal to the first), taints (qualified
// keys, label values, a supported effect, unique key and effect),
// non-negative capacity and allocatable (of any resource name), and
// addresses and conditions of known types and statuses.
func ValidateNode(node *Node) field.ErrorList {
	errs := validation.ValidateObjectMeta(&node.ObjectMeta, false, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	sp := field.NewPath("spec")
	errs = append(errs, validateNodeCIDRs(&node.Spec, sp)...)
	errs = append(errs, validateTaints(node.Spec.Taints, sp.Child("taints"))...)
	st := field.NewPath("status")
	errs = append(errs, validateNodeResources(node.Status.Capacity, st.Child("capacity"))...)
	errs = append(errs, validateNodeResources(node.Status.Allocatable, st.Child("allocatable"))...)
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
	if len(spec.PodCIDRs) > 1 && !isDualStackPair(spec.PodCIDRs) {
		errs = append(errs, field.Invalid(cp, strings.Join(spec.PodCIDRs, ","), "may specify no more than one CIDR for each IP family"))
	}
	for i, c := range spec.PodCIDRs {
		errs = append(errs, invalidAll(cp.Index(i), c, validation.IsCIDR(c))...)
	}
	return errs
}

// validateNodeResources checks node quantities only: nodes report
// resources of any name (Kubernetes does not check them either). The
// paths are Kubernetes' ("status.capacity.memory").
func validateNodeResources(rl ResourceList, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, n := range sortedNames(rl) {
		errs = append(errs, validateQuantity(n, rl[n], p.Child(string(n)))...)
	}
	return errs
}

func validateTaints(taints []Taint, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, t := range taints {
		ip := p.Index(i)
		errs = append(errs, validateQualifiedName(t.Key, ip.Child("key"))...)
		if msgs := validation.IsValidLabelValue(t.Value); len(msgs) != 0 {
			errs = append(errs, field.Invalid(ip.Child("value"), t.Value, strings.Join(msgs, ";")))
		}
		errs = append(errs, validateTaintEffect(t.Effect, ip.Child("effect"))...)
		k := t.Key + ":" + string(t.Effect)
		if seen[k] {
			dup := field.Duplicate(ip, t.ToString())
			dup.Detail = "taints must be unique by key and effect pair"
			errs = append(errs, dup)
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

// isDualStackPair reports whether cidrs are one IPv4 and one IPv6 CIDR.
func isDualStackPair(cidrs []string) bool {
	if len(cidrs) != 2 {
		return false
	}
	_, a, errA := net.ParseCIDR(cidrs[0])
	_, b, errB := net.ParseCIDR(cidrs[1])
	return errA == nil && errB == nil && (a.IP.To4() == nil) != (b.IP.To4() == nil)
}
