package networking

import (
	"net"

	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/validation"
)

// maxServiceCIDRs is how many ranges a ServiceCIDR holds: one per family.
const maxServiceCIDRs = 2

// ValidateServiceCIDR checks a new ServiceCIDR as kube-apiserver does: a
// DNS-subdomain name and one or two canonical CIDRs of different IP
// families.
func ValidateServiceCIDR(c *ServiceCIDR) field.ErrorList {
	errs := validation.ValidateObjectMeta(&c.ObjectMeta, false, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(errs, validateServiceCIDRSpec(&c.Spec, field.NewPath("spec", "cidrs"))...)
}

// ValidateServiceCIDRUpdate checks c as a replacement for old: the CIDRs
// cannot change, except that a single-family ServiceCIDR may gain a
// second CIDR of the other family (kubernetes#131261). The status is not
// checked, as kube-apiserver does not check it (its own default
// ServiceCIDR controller writes a Ready condition without a reason).
func ValidateServiceCIDRUpdate(c, old *ServiceCIDR) field.ErrorList {
	errs := validation.ValidateObjectMetaUpdate(&c.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	p := field.NewPath("spec", "cidrs")
	switch cur, prev := c.Spec.CIDRs, old.Spec.CIDRs; {
	case len(cur) == len(prev):
		for i := range prev {
			if cur[i] != prev[i] {
				errs = append(errs, field.Invalid(p.Index(i), cur[i], validation.FieldImmutableErrorMsg))
			}
		}
	case len(prev) == 1 && len(cur) == 2:
		if cur[0] != prev[0] {
			errs = append(errs, field.Invalid(p.Index(0), cur[0], validation.FieldImmutableErrorMsg))
		}
		errs = append(errs, validateServiceCIDRSpec(&c.Spec, p)...)
	default:
		errs = append(errs, field.Invalid(p, cur, validation.FieldImmutableErrorMsg))
	}
	return errs
}

func validateServiceCIDRSpec(spec *ServiceCIDRSpec, p *field.Path) field.ErrorList {
	switch n := len(spec.CIDRs); {
	case n == 0:
		return field.ErrorList{field.Required(p, "at least one CIDR required")}
	case n > maxServiceCIDRs:
		return field.ErrorList{field.Invalid(p, spec.CIDRs, "may only hold up to 2 values")}
	}
	var errs field.ErrorList
	for i, c := range spec.CIDRs {
		errs = append(errs, invalidAll(p.Index(i), c, validation.IsCanonicalCIDR(c))...)
	}
	if len(spec.CIDRs) == 2 {
		if f := cidrFamily(spec.CIDRs[0]); f != 0 && f == cidrFamily(spec.CIDRs[1]) {
			errs = append(errs, field.Invalid(p, spec.CIDRs,
				"may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64"))
		}
	}
	return errs
}

// cidrFamily is 4 or 6 for a CIDR that parses leniently (so a family
// conflict is reported beside a malformed but recognisable CIDR, as
// Kubernetes does), 0 for one that does not. An IPv4-mapped IPv6 CIDR
// counts as IPv4, as Kubernetes counts it.
func cidrFamily(s string) int {
	if len(validation.IsCIDR(s)) > 0 {
		return 0
	}
	if ip, _, err := net.ParseCIDR(s); err == nil && ip.To4() == nil {
		return 6
	}
	return 4 // parsed, or only its IPv4 leading zeros stopped net.ParseCIDR
}

// ValidateIPAddress checks an IPAddress as kube-apiserver does: its name
// is an IP address in canonical form, and it has a parent reference with
// a resource and a name (and a DNS-subdomain group when set; "" is the
// core group).
func ValidateIPAddress(ip *IPAddress) field.ErrorList {
	errs := validation.ValidateObjectMeta(&ip.ObjectMeta, false, ipAddressName, field.NewPath("metadata"))
	return append(errs, validateParentReference(ip.Spec.ParentRef, field.NewPath("spec", "parentRef"))...)
}

// ValidateIPAddressUpdate checks ip as a replacement for old: the parent
// reference cannot change.
func ValidateIPAddressUpdate(ip, old *IPAddress) field.ErrorList {
	errs := ValidateIPAddress(ip)
	errs = append(errs, validation.ValidateObjectMetaUpdate(&ip.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))...)
	return append(errs, validation.ValidateImmutableField(ip.Spec.ParentRef, old.Spec.ParentRef, field.NewPath("spec", "parentRef"))...)
}

// ipAddressName is the name rule of IPAddresses: the address itself.
// There is no generated name (a prefix is checked whole).
func ipAddressName(name string, _ bool) []string { return validation.IsCanonicalIP(name) }

func validateParentReference(ref *ParentReference, p *field.Path) field.ErrorList {
	if ref == nil {
		return field.ErrorList{field.Required(p, "")}
	}
	var errs field.ErrorList
	if ref.Group != "" {
		errs = append(errs, invalidAll(p.Child("group"), ref.Group, validation.IsDNS1123Subdomain(ref.Group))...)
	}
	if ref.Resource == "" {
		errs = append(errs, field.Required(p.Child("resource"), ""))
	} else {
		errs = append(errs, invalidAll(p.Child("resource"), ref.Resource, validation.IsPathSegmentName(ref.Resource))...)
	}
	if ref.Name == "" {
		errs = append(errs, field.Required(p.Child("name"), ""))
	} else {
		errs = append(errs, invalidAll(p.Child("name"), ref.Name, validation.IsPathSegmentName(ref.Name))...)
	}
	if ref.Namespace != "" {
		errs = append(errs, invalidAll(p.Child("namespace"), ref.Namespace, validation.IsPathSegmentName(ref.Namespace))...)
	}
	return errs
}
