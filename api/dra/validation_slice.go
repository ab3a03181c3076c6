package dra

import (
	"fmt"

	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/validation"
)

// ValidateResourceSlice checks a new slice as kube-apiserver does: a
// DNS-subdomain name, a driver and pool, exactly one of nodeName,
// nodeSelector, allNodes and perDeviceNodeSelection, counters or
// devices (not both) and at most 128 well-formed devices with unique
// names.
func ValidateResourceSlice(s *ResourceSlice) field.ErrorList {
	errs := validation.ValidateObjectMeta(&s.ObjectMeta, false, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(errs, validateSliceSpec(&s.Spec, field.NewPath("spec"))...)
}

// ValidateResourceSliceUpdate checks s as a replacement for old: besides
// ValidateResourceSlice, the driver, pool name and node name are
// immutable.
func ValidateResourceSliceUpdate(s, old *ResourceSlice) field.ErrorList {
	p := field.NewPath("spec")
	errs := validation.ValidateObjectMetaUpdate(&s.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	errs = append(errs, validateSliceSpec(&s.Spec, p)...)
	errs = append(errs, validation.ValidateImmutableField(s.Spec.Pool.Name, old.Spec.Pool.Name, p.Child("pool", "name"))...)
	errs = append(errs, validation.ValidateImmutableField(s.Spec.Driver, old.Spec.Driver, p.Child("driver"))...)
	return append(errs, validation.ValidateImmutableField(s.Spec.NodeName, old.Spec.NodeName, p.Child("nodeName"))...)
}

func validateSliceSpec(spec *ResourceSliceSpec, p *field.Path) field.ErrorList {
	errs := validateDriverName(spec.Driver, p.Child("driver"))
	errs = append(errs, validatePoolName(spec.Pool.Name, p.Child("pool", "name"))...)
	if spec.Pool.ResourceSliceCount <= 0 {
		errs = append(errs, field.Invalid(p.Child("pool", "resourceSliceCount"), spec.Pool.ResourceSliceCount, "must be greater than zero"))
	}
	if spec.Pool.Generation < 0 {
		errs = append(errs, field.Invalid(p.Child("pool", "generation"), spec.Pool.Generation, "must be greater than or equal to zero"))
	}
	errs = append(errs, validateSliceNodes(spec, p)...)
	if spec.SharedCounters != nil && spec.Devices != nil {
		errs = append(errs, field.Invalid(p, "", "only one of `sharedCounters` or `devices` is allowed"))
	}
	names := make([]string, len(spec.Devices))
	for i, d := range spec.Devices {
		names[i] = d.Name
		errs = append(errs, validateDevice(d, spec.PerDeviceNodeSelection != nil && *spec.PerDeviceNodeSelection, p.Child("devices").Index(i))...)
	}
	errs = append(errs, validateUnique(names, maxSliceDevices, p.Child("devices"))...)
	sets := make([]string, len(spec.SharedCounters))
	for i, cs := range spec.SharedCounters {
		sets[i] = cs.Name
		cp := p.Child("sharedCounters").Index(i)
		if cs.Name == "" {
			errs = append(errs, field.Required(cp.Child("name"), ""))
		} else {
			errs = append(errs, validateDNSLabel(cs.Name, cp.Child("name"))...)
		}
		for name := range cs.Counters {
			errs = append(errs, validateDNSLabel(name, cp.Child("counters").Key(name))...)
		}
	}
	return append(errs, validateUnique(sets, maxCounterSets, p.Child("sharedCounters"))...)
}

// validateSliceNodes requires exactly one way of naming the nodes.
func validateSliceNodes(spec *ResourceSliceSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	var set []string
	if n := spec.NodeName; n != nil {
		if *n == "" {
			errs = append(errs, field.Invalid(p.Child("nodeName"), *n, "must be either unset or set to a non-empty string"))
		} else {
			set = append(set, "`nodeName`")
			errs = append(errs, validateNodeName(*n, p.Child("nodeName"))...)
		}
	}
	if s := spec.NodeSelector; s != nil {
		set = append(set, "`nodeSelector`")
		errs = append(errs, validateNodeSelector(s, p.Child("nodeSelector"))...)
		if len(s.NodeSelectorTerms) != 1 {
			errs = append(errs, field.Invalid(p.Child("nodeSelector", "nodeSelectorTerms"), len(s.NodeSelectorTerms), "must have exactly one node selector term"))
		}
	}
	for name, b := range map[string]*bool{"allNodes": spec.AllNodes, "perDeviceNodeSelection": spec.PerDeviceNodeSelection} {
		switch {
		case b == nil:
		case *b:
			set = append(set, "`"+name+"`")
		default:
			errs = append(errs, field.Invalid(p.Child(name), *b, "must be either unset or set to true"))
		}
	}
	switch len(set) {
	case 0:
		errs = append(errs, field.Required(p, "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required"))
	case 1:
	default:
		errs = append(errs, field.Invalid(p, fmtSet(set), "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required, but multiple fields are set"))
	}
	return errs
}

func validateDevice(d Device, perDevice bool, p *field.Path) field.ErrorList {
	errs := validateDNSLabel(d.Name, p.Child("name"))
	if n := len(d.Attributes) + len(d.Capacity); n > maxAttributesPerDevice {
		errs = append(errs, field.Invalid(p, n, fmt.Sprintf("the total number of attributes and capacities must not exceed %d", maxAttributesPerDevice)))
	}
	for name, a := range d.Attributes {
		ap := p.Child("attributes").Key(string(name))
		errs = append(errs, validateQualifiedName(string(name), ap)...)
		errs = append(errs, validateAttribute(a, ap)...)
	}
	for name := range d.Capacity {
		errs = append(errs, validateQualifiedName(string(name), p.Child("capacity").Key(string(name)))...)
	}
	if len(d.Taints) > maxDeviceTaints {
		errs = append(errs, field.TooMany(p.Child("taints"), len(d.Taints), maxDeviceTaints))
	}
	for i, t := range d.Taints {
		errs = append(errs, validateTaint(t, nil, p.Child("taints").Index(i))...)
	}
	errs = append(errs, validateDeviceNodes(d, perDevice, p)...)
	return append(errs, validateBindingConditions(d.BindingConditions, d.BindingFailureConditions, p)...)
}

// validateAttribute requires exactly one value, strings and versions of
// at most 64 characters.
func validateAttribute(a DeviceAttribute, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	n := 0
	for _, set := range []bool{a.IntValue != nil, a.BoolValue != nil, a.StringValue != nil, a.VersionValue != nil,
		a.IntValues != nil, a.BoolValues != nil, a.StringValues != nil, a.VersionValues != nil} {
		if set {
			n++
		}
	}
	switch n {
	case 0:
		errs = append(errs, field.Required(p, "exactly one value must be specified"))
	case 1:
	default:
		errs = append(errs, field.Invalid(p, a, "exactly one value must be specified"))
	}
	strs := append([]string(nil), a.StringValues...)
	strs = append(strs, a.VersionValues...)
	for _, s := range []*string{a.StringValue, a.VersionValue} {
		if s != nil {
			strs = append(strs, *s)
		}
	}
	for _, s := range strs {
		if len(s) > maxAttributeValueLen {
			errs = append(errs, field.TooLong(p, "", maxAttributeValueLen))
		}
	}
	return errs
}

// validateDeviceNodes: with per-device node selection, exactly one of the
// device's nodeName, nodeSelector and allNodes; without, none.
func validateDeviceNodes(d Device, perDevice bool, p *field.Path) field.ErrorList {
	if !perDevice {
		if d.NodeName != nil || d.NodeSelector != nil || d.AllNodes != nil {
			return field.ErrorList{field.Invalid(p, nil, "`nodeName`, `nodeSelector` and `allNodes` can only be set if `perDeviceNodeSelection` is set to true in the ResourceSlice spec")}
		}
		return nil
	}
	var errs field.ErrorList
	var set []string
	if n := d.NodeName; n != nil {
		if *n == "" {
			errs = append(errs, field.Invalid(p.Child("nodeName"), *n, "must not be empty"))
		} else {
			set = append(set, "`nodeName`")
			errs = append(errs, validateNodeName(*n, p.Child("nodeName"))...)
		}
	}
	if d.NodeSelector != nil {
		set = append(set, "`nodeSelector`")
		errs = append(errs, validateNodeSelector(d.NodeSelector, p.Child("nodeSelector"))...)
	}
	if a := d.AllNodes; a != nil {
		if *a {
			set = append(set, "`allNodes`")
		} else {
			errs = append(errs, field.Invalid(p.Child("allNodes"), *a, "must be either unset or set to true"))
		}
	}
	const msg = "exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when `perDeviceNodeSelection` is set to true in the ResourceSlice spec"
	switch len(set) {
	case 0:
		errs = append(errs, field.Required(p, msg))
	case 1:
	default:
		errs = append(errs, field.Invalid(p, fmtSet(set), msg))
	}
	return errs
}
