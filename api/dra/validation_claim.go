package dra

import (
	"slices"
	"strings"

	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/validation"
)

// ValidateResourceClaim checks a new (defaulted) claim as kube-apiserver
// does: a DNS-subdomain name in a namespace and a valid device claim.
func ValidateResourceClaim(c *ResourceClaim) field.ErrorList {
	errs := validation.ValidateObjectMeta(&c.ObjectMeta, true, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(errs, validateDeviceClaim(&c.Spec.Devices, field.NewPath("spec", "devices"))...)
}

// ValidateResourceClaimUpdate checks c as a replacement for old, through
// the main resource or the status subresource (whichever part the
// request may not change is the stored one by then): the spec is
// immutable; reservedFor needs an allocation, holds unique complete
// consumer references, and gains none once the claim is being deleted;
// an allocation cannot change once set (it may only be removed), and a
// new one must name the claim's requests and well-formed devices.
func ValidateResourceClaimUpdate(c, old *ResourceClaim) field.ErrorList {
	errs := validation.ValidateObjectMeta(&c.ObjectMeta, true, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	errs = append(errs, validation.ValidateObjectMetaUpdate(&c.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))...)
	errs = append(errs, validation.ValidateImmutableField(c.Spec, old.Spec, field.NewPath("spec"))...)
	return append(errs, validateClaimStatusUpdate(c, &old.Status, field.NewPath("status"))...)
}

// ValidateResourceClaimTemplate checks a new (defaulted) template: a
// DNS-subdomain name in a namespace and a valid claim spec.
func ValidateResourceClaimTemplate(t *ResourceClaimTemplate) field.ErrorList {
	errs := validation.ValidateObjectMeta(&t.ObjectMeta, true, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	errs = append(errs, validation.ValidateLabels(t.Spec.Labels, field.NewPath("spec", "metadata", "labels"))...)
	errs = append(errs, validation.ValidateAnnotations(t.Spec.Annotations, field.NewPath("spec", "metadata", "annotations"))...)
	return append(errs, validateDeviceClaim(&t.Spec.Spec.Devices, field.NewPath("spec", "spec", "devices"))...)
}

// ValidateResourceClaimTemplateUpdate checks t as a replacement for old:
// the spec is immutable.
func ValidateResourceClaimTemplateUpdate(t, old *ResourceClaimTemplate) field.ErrorList {
	errs := validation.ValidateObjectMeta(&t.ObjectMeta, true, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	errs = append(errs, validation.ValidateObjectMetaUpdate(&t.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))...)
	return append(errs, validation.ValidateImmutableField(t.Spec, old.Spec, field.NewPath("spec"))...)
}

// requestNames maps each request name to its subrequest names (nil for
// an exact request).
type requestNames map[string][]string

// has reports whether ref ("request" or "request/subrequest") names a
// request of the claim.
func (r requestNames) has(ref string) bool {
	req, sub, found := strings.Cut(ref, "/")
	subs, ok := r[req]
	if !ok || !found {
		return ok
	}
	for _, s := range subs {
		if s == sub {
			return true
		}
	}
	return false
}

func gatherRequestNames(dc *DeviceClaim) requestNames {
	names := requestNames{}
	for _, r := range dc.Requests {
		var subs []string
		for _, s := range r.FirstAvailable {
			subs = append(subs, s.Name)
		}
		names[r.Name] = subs
	}
	return names
}

func validateDeviceClaim(dc *DeviceClaim, p *field.Path) field.ErrorList {
	names := gatherRequestNames(dc)
	var errs field.ErrorList
	reqNames := make([]string, len(dc.Requests))
	for i, r := range dc.Requests {
		reqNames[i] = r.Name
		errs = append(errs, validateDeviceRequest(r, p.Child("requests").Index(i))...)
	}
	errs = append(errs, validateUnique(reqNames, maxRequests, p.Child("requests"))...)
	if len(dc.Constraints) > maxConstraints {
		errs = append(errs, field.TooMany(p.Child("constraints"), len(dc.Constraints), maxConstraints))
	}
	for i, c := range dc.Constraints {
		errs = append(errs, validateConstraint(c, p.Child("constraints").Index(i), names)...)
	}
	if len(dc.Config) > maxConfigs {
		errs = append(errs, field.TooMany(p.Child("config"), len(dc.Config), maxConfigs))
	}
	for i, c := range dc.Config {
		cp := p.Child("config").Index(i)
		errs = append(errs, validateRequestRefs(c.Requests, cp.Child("requests"), names)...)
		errs = append(errs, validateDeviceConfiguration(c.DeviceConfiguration, cp, false)...)
	}
	return errs
}

func validateDeviceRequest(r DeviceRequest, p *field.Path) field.ErrorList {
	errs := validateDNSLabel(r.Name, p.Child("name"))
	switch {
	case r.Exactly == nil && len(r.FirstAvailable) == 0:
		return append(errs, field.Required(p, "exactly one of `exactly` or `firstAvailable` is required"))
	case r.Exactly != nil && len(r.FirstAvailable) > 0:
		return append(errs, field.Invalid(p, nil, "exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set"))
	case r.Exactly != nil:
		e := r.Exactly
		ep := p.Child("exactly")
		errs = append(errs, validateClassName(e.DeviceClassName, ep.Child("deviceClassName"))...)
		errs = append(errs, validateSelectors(e.Selectors, false, ep.Child("selectors"))...)
		errs = append(errs, validateAllocationMode(e.AllocationMode, e.Count, ep)...)
		return append(errs, validateTolerations(e.Tolerations, ep.Child("tolerations"))...)
	}
	subs := make([]string, len(r.FirstAvailable))
	for i, s := range r.FirstAvailable {
		sp := p.Child("firstAvailable").Index(i)
		subs[i] = s.Name
		errs = append(errs, validateDNSLabel(s.Name, sp.Child("name"))...)
		errs = append(errs, validateClassName(s.DeviceClassName, sp.Child("deviceClassName"))...)
		errs = append(errs, validateSelectors(s.Selectors, false, sp.Child("selectors"))...)
		errs = append(errs, validateAllocationMode(s.AllocationMode, s.Count, sp)...)
		errs = append(errs, validateTolerations(s.Tolerations, sp.Child("tolerations"))...)
	}
	return append(errs, validateUnique(subs, maxFirstAvailable, p.Child("firstAvailable"))...)
}

func validateClassName(name string, p *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Subdomain(name) {
		errs = append(errs, field.Invalid(p, name, msg))
	}
	return errs
}

func validateAllocationMode(mode DeviceAllocationMode, count int64, p *field.Path) field.ErrorList {
	switch mode {
	case DeviceAllocationModeAll:
		if count != 0 {
			return field.ErrorList{field.Invalid(p.Child("count"), count, "must not be specified when allocationMode is 'All'")}
		}
	case DeviceAllocationModeExactCount:
		if count <= 0 {
			return field.ErrorList{field.Invalid(p.Child("count"), count, "must be greater than zero")}
		}
	default:
		return field.ErrorList{field.NotSupported(p.Child("allocationMode"), string(mode), validModes)}
	}
	return nil
}

func validateTolerations(ts []DeviceToleration, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(ts) > maxTolerations {
		errs = append(errs, field.TooMany(p, len(ts), maxTolerations))
	}
	for i, t := range ts {
		tp := p.Index(i)
		if t.Key != "" {
			errs = append(errs, validateLabelName(t.Key, tp.Child("key"))...)
		}
		switch t.Operator {
		case DeviceTolerationOpExists:
			if t.Value != "" {
				errs = append(errs, field.Invalid(tp.Child("value"), t.Value, "must be empty for operator `Exists`"))
			}
		case DeviceTolerationOpEqual:
			errs = append(errs, validateLabelValue(t.Value, tp.Child("value"))...)
		case "":
			errs = append(errs, field.Required(tp.Child("operator"), ""))
		default:
			errs = append(errs, field.NotSupported(tp.Child("operator"), string(t.Operator), validOps))
		}
		if t.Effect != "" && !slices.Contains(validEffects, string(t.Effect)) {
			errs = append(errs, field.NotSupported(tp.Child("effect"), string(t.Effect), validEffects))
		}
	}
	return errs
}

func validateConstraint(c DeviceConstraint, p *field.Path, names requestNames) field.ErrorList {
	errs := validateRequestRefs(c.Requests, p.Child("requests"), names)
	switch {
	case c.MatchAttribute != nil && c.DistinctAttribute != nil:
		errs = append(errs, field.Invalid(p, nil, "exactly one of `matchAttribute` or `distinctAttribute` is required, but multiple fields are set"))
	case c.MatchAttribute != nil:
		errs = append(errs, validateFullyQualifiedName(*c.MatchAttribute, p.Child("matchAttribute"))...)
	case c.DistinctAttribute != nil:
		errs = append(errs, validateFullyQualifiedName(*c.DistinctAttribute, p.Child("distinctAttribute"))...)
	default:
		errs = append(errs, field.Required(p, "exactly one of `matchAttribute` or `distinctAttribute` is required"))
	}
	return errs
}

func validateRequestRefs(refs []string, p *field.Path, names requestNames) field.ErrorList {
	errs := validateUnique(refs, maxRequests, p)
	for i, r := range refs {
		switch {
		case r == "":
			errs = append(errs, field.Required(p.Index(i), ""))
		case !names.has(r):
			errs = append(errs, field.Invalid(p.Index(i), r, "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'"))
		}
	}
	return errs
}
