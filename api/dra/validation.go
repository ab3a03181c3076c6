package dra

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strings"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/validation"
)

// Limits on the kinds, as kube-apiserver's (pkg/apis/resource).
const (
	maxDriverNameLength    = 63
	maxPoolNameLength      = 253
	maxIDLength            = 32
	maxRequests            = 32
	maxConstraints         = 32
	maxConfigs             = 32
	maxSelectors           = 32
	maxFirstAvailable      = 8
	maxTolerations         = 16
	maxReservedFor         = 256
	maxAllocationResults   = 32
	maxOpaqueParameters    = 10 * 1024
	maxSliceDevices        = 128
	maxCounterSets         = 8
	maxDeviceTaints        = 16
	maxAttributesPerDevice = 32
	maxAttributeValueLen   = 64
	maxRuleConditions      = 8
	maxBindingConditions   = 4
)

var (
	cIdentifierRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	validModes    = []string{string(DeviceAllocationModeAll), string(DeviceAllocationModeExactCount)}
	validEffects  = []string{string(DeviceTaintEffectNoExecute), string(DeviceTaintEffectNoSchedule), string(DeviceTaintEffectNone)}
	validOps      = []string{string(DeviceTolerationOpEqual), string(DeviceTolerationOpExists)}
	validSources  = []string{string(AllocationConfigSourceClaim), string(AllocationConfigSourceClass)}
)

// ValidateDeviceClass checks a DeviceClass as kube-apiserver does: a
// DNS-subdomain name, at most 32 selectors each with a CEL expression
// that compiles to a bool within the cost limit, at most 32 opaque
// configurations, and an extended resource name when one is set.
func ValidateDeviceClass(c *DeviceClass) field.ErrorList {
	errs := validation.ValidateObjectMeta(&c.ObjectMeta, false, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(errs, validateDeviceClassSpec(&c.Spec, nil, field.NewPath("spec"))...)
}

// ValidateDeviceClassUpdate checks c as a replacement for old; selectors
// and configurations left as they were are not checked again (they were
// valid when stored).
func ValidateDeviceClassUpdate(c, old *DeviceClass) field.ErrorList {
	errs := validation.ValidateObjectMeta(&c.ObjectMeta, false, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	errs = append(errs, validation.ValidateObjectMetaUpdate(&c.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))...)
	return append(errs, validateDeviceClassSpec(&c.Spec, &old.Spec, field.NewPath("spec"))...)
}

func validateDeviceClassSpec(spec, old *DeviceClassSpec, p *field.Path) field.ErrorList {
	storedSelectors := old != nil && reflect.DeepEqual(spec.Selectors, old.Selectors)
	errs := validateSelectors(spec.Selectors, storedSelectors, p.Child("selectors"))
	storedConfig := old != nil && reflect.DeepEqual(spec.Config, old.Config)
	if len(spec.Config) > maxConfigs {
		errs = append(errs, field.TooMany(p.Child("config"), len(spec.Config), maxConfigs))
	}
	for i, c := range spec.Config {
		errs = append(errs, validateDeviceConfiguration(c.DeviceConfiguration, p.Child("config").Index(i), storedConfig)...)
	}
	if n := spec.ExtendedResourceName; n != nil && !isExtendedResourceName(*n) {
		errs = append(errs, field.Invalid(p.Child("extendedResourceName"), *n, "must be a valid extended resource name"))
	}
	return errs
}

// isExtendedResourceName: a qualified name with a domain outside
// kubernetes.io, not prefixed requests., as Kubernetes' helper says.
func isExtendedResourceName(n string) bool {
	if !strings.Contains(n, "/") || strings.Contains(n, "kubernetes.io/") || strings.HasPrefix(n, "requests.") {
		return false
	}
	return len(validation.IsQualifiedName("requests."+n)) == 0
}

func validateSelectors(sels []DeviceSelector, stored bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(sels) > maxSelectors {
		errs = append(errs, field.TooMany(p, len(sels), maxSelectors))
	}
	for i, s := range sels {
		sp := p.Index(i)
		if s.CEL == nil {
			errs = append(errs, field.Required(sp.Child("cel"), ""))
			continue
		}
		if !stored {
			errs = append(errs, validateCELExpression(s.CEL.Expression, sp.Child("cel", "expression"))...)
		}
	}
	return errs
}

// validateCELExpression checks a selector's length, then compiles it.
func validateCELExpression(expr string, p *field.Path) field.ErrorList {
	if len(expr) > MaxCELExpressionLength {
		return field.ErrorList{field.TooLong(p, "", MaxCELExpressionLength)}
	}
	if _, err := CompileSelector(expr); err != nil {
		if err == errTooComplex {
			return field.ErrorList{field.Forbidden(p, err.Error())}
		}
		return field.ErrorList{field.Invalid(p, expr, err.Error())}
	}
	return nil
}

func validateDeviceConfiguration(c DeviceConfiguration, p *field.Path, stored bool) field.ErrorList {
	if c.Opaque == nil {
		return field.ErrorList{field.Required(p.Child("opaque"), "")}
	}
	errs := validateDriverName(c.Opaque.Driver, p.Child("opaque", "driver"))
	return append(errs, validateRawJSON(c.Opaque.Parameters, p.Child("opaque", "parameters"), stored, maxOpaqueParameters)...)
}

// validateRawJSON requires a JSON object of at most max bytes (the limit
// only for new values).
func validateRawJSON(raw meta.RawJSON, p *field.Path, stored bool, max int) field.ErrorList {
	var v any
	switch {
	case len(raw) == 0:
		return field.ErrorList{field.Required(p, "")}
	case !stored && len(raw) > max:
		return field.ErrorList{field.TooLong(p, "", max)}
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return field.ErrorList{field.Invalid(p, "<value omitted>", "error parsing data as JSON: "+err.Error())}
	}
	switch v.(type) {
	case nil:
		return field.ErrorList{field.Required(p, "")}
	case map[string]any:
		return nil
	}
	return field.ErrorList{field.Invalid(p, "<value omitted>", "must be a valid JSON object")}
}

// validateDriverName: required, at most 63 characters, a DNS subdomain
// (compared in lower case), as a CSI driver's name.
func validateDriverName(name string, p *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	var errs field.ErrorList
	if len(name) > maxDriverNameLength {
		errs = append(errs, field.TooLong(p, "", maxDriverNameLength))
	}
	for _, msg := range validation.IsDNS1123Subdomain(strings.ToLower(name)) {
		errs = append(errs, field.Invalid(p, name, msg))
	}
	return errs
}

// validatePoolName: required, at most 253 characters, DNS subdomains
// separated by slashes.
func validatePoolName(name string, p *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	var errs field.ErrorList
	if len(name) > maxPoolNameLength {
		errs = append(errs, field.TooLong(p, "", maxPoolNameLength))
	}
	for _, part := range strings.Split(name, "/") {
		for _, msg := range validation.IsDNS1123Subdomain(part) {
			errs = append(errs, field.Invalid(p, name, msg))
		}
	}
	return errs
}

// validateDNSLabel is the check of device, request and counter names.
func validateDNSLabel(name string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Label(name) {
		errs = append(errs, field.Invalid(p, name, msg))
	}
	return errs
}

// validateQualifiedName checks an attribute or capacity name: a C
// identifier of at most 32 characters, optionally after a domain (a
// driver name) and a slash.
func validateQualifiedName(name string, p *field.Path) field.ErrorList {
	domain, id, found := strings.Cut(name, "/")
	if !found {
		return validateCIdentifier(name, p)
	}
	var errs field.ErrorList
	if domain == "" {
		errs = append(errs, field.Invalid(p, "", "the domain must not be empty"))
	} else {
		errs = append(errs, validateDriverName(domain, p)...)
	}
	if id == "" {
		return append(errs, field.Invalid(p, "", "the name must not be empty"))
	}
	return append(errs, validateCIdentifier(id, p)...)
}

func validateFullyQualifiedName(name FullyQualifiedName, p *field.Path) field.ErrorList {
	errs := validateQualifiedName(string(name), p)
	if !strings.Contains(string(name), "/") {
		errs = append(errs, field.Invalid(p, name, "a fully qualified name must be a domain and a name separated by a slash"))
	}
	return errs
}

func validateCIdentifier(id string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(id) > maxIDLength {
		errs = append(errs, field.TooLong(p, "", maxIDLength))
	}
	if !cIdentifierRE.MatchString(id) {
		errs = append(errs, field.Invalid(p, id, validation.RegexError("a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_'", cIdentifierRE.String(), "my_name", "MY_NAME", "MyName")))
	}
	return errs
}

func validateNodeName(name string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.NameIsDNSSubdomain(name, false) {
		errs = append(errs, field.Invalid(p, name, msg))
	}
	return errs
}

func validateNodeSelector(s *core.NodeSelector, p *field.Path) field.ErrorList {
	return core.ValidateNodeSelector(s, p)
}

// validateLabelValue: a taint or toleration value is a label value.
func validateLabelValue(v string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsValidLabelValue(v) {
		errs = append(errs, field.Invalid(p, v, msg))
	}
	return errs
}

// validateLabelName: a taint or toleration key is a qualified name.
func validateLabelName(k string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsQualifiedName(k) {
		errs = append(errs, field.Invalid(p, k, msg))
	}
	return errs
}

// validateUnique reports the names seen twice in a list and a list
// longer than max (max < 0: no limit).
func validateUnique(names []string, max int, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if max >= 0 && len(names) > max {
		errs = append(errs, field.TooMany(p, len(names), max))
	}
	seen := map[string]bool{}
	for i, n := range names {
		if seen[n] {
			errs = append(errs, field.Duplicate(p.Index(i), n))
		}
		seen[n] = true
	}
	return errs
}

func fmtSet(fields []string) string { return fmt.Sprintf("{%s}", strings.Join(fields, ", ")) }
