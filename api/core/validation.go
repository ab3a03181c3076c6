package core

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/resource"
	"github.com/orkit/orkit/api/validation"
)

// Messages shared by the validators, worded as Kubernetes words them.
const (
	isNegativeErrorMsg    = "must be greater than or equal to 0"
	isNotIntegerErrorMsg  = "must be an integer"
	isNotPositiveErrorMsg = "must be greater than zero"
	fieldImmutableMsg     = "field is immutable"
	fileModeErrorMsg      = "must be a number between 0 and 0777 (octal), both inclusive"
)

func inclusiveRangeError(lo, hi int64) string {
	return fmt.Sprintf("must be between %d and %d, inclusive", lo, hi)
}

// invalidAll turns each message into an Invalid error at p.
func invalidAll(p *field.Path, value any, msgs []string) field.ErrorList {
	var errs field.ErrorList
	for _, m := range msgs {
		errs = append(errs, field.Invalid(p, value, m))
	}
	return errs
}

func validateDNS1123Label(v string, p *field.Path) field.ErrorList {
	return invalidAll(p, v, validation.IsDNS1123Label(v))
}

func validateDNS1123Subdomain(v string, p *field.Path) field.ErrorList {
	return invalidAll(p, v, validation.IsDNS1123Subdomain(v))
}

func validateQualifiedName(v string, p *field.Path) field.ErrorList {
	return invalidAll(p, v, validation.IsQualifiedName(v))
}

func validateNonnegative(v int64, p *field.Path) field.ErrorList {
	if v < 0 {
		return field.ErrorList{field.Invalid(p, v, isNegativeErrorMsg)}
	}
	return nil
}

// validateImmutable reports "field is immutable" when newVal and oldVal
// differ (compared as Go values).
func validateImmutable[T comparable](newVal, oldVal T, p *field.Path) field.ErrorList {
	if newVal != oldVal {
		return field.ErrorList{field.Invalid(p, badValue(newVal), fieldImmutableMsg)}
	}
	return nil
}

// badValue renders named string types as plain strings, so messages quote
// them as Kubernetes does.
func badValue(v any) any {
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.String {
		return rv.String()
	}
	return v
}

// validateEnum reports an Unsupported error at p when v is not one of
// values (listed in the message in the order given), or Required when v is
// empty and required is set; an empty optional v is fine.
func validateEnum[T ~string](v T, required bool, p *field.Path, values ...T) field.ErrorList {
	if v == "" && required {
		return field.ErrorList{field.Required(p, "")}
	}
	if v == "" || slices.Contains(values, v) {
		return nil
	}
	valid := make([]string, len(values))
	for i, x := range values {
		valid[i] = string(x)
	}
	return field.ErrorList{field.NotSupported(p, string(v), valid)}
}

// Resource names -----------------------------------------------------------

var standardResources = []ResourceName{
	ResourceCPU, ResourceMemory, ResourceEphemeralStorage,
	ResourceRequestsCPU, ResourceRequestsMemory, ResourceRequestsEphemeral,
	ResourceLimitsCPU, ResourceLimitsMemory, ResourceLimitsEphemeral,
	ResourcePods, ResourceQuotas, ResourceServices, ResourceReplicationControllers,
	ResourceSecrets, ResourcePersistentVolumeClaims, ResourceConfigMaps,
	ResourceServicesNodePorts, ResourceServicesLoadBalancers,
	ResourceStorage, ResourceRequestsStorage,
}

// IsHugePageResourceName reports whether name is a huge page resource.
func IsHugePageResourceName(name ResourceName) bool {
	return strings.HasPrefix(string(name), ResourceHugePagesPrefix)
}

// IsNativeResource reports whether name is in the kubernetes.io namespace
// of resources (no prefix, or a kubernetes.io prefix).
func IsNativeResource(name ResourceName) bool {
	return !strings.Contains(string(name), "/") || strings.Contains(string(name), ResourceDefaultNamespacePrefix)
}

// IsExtendedResourceName reports whether name is an extended resource
// ("example.com/gpu"): prefixed, not native, usable as "requests.<name>".
func IsExtendedResourceName(name ResourceName) bool {
	if IsNativeResource(name) || strings.HasPrefix(string(name), ResourceRequestsPrefix) {
		return false
	}
	return len(validation.IsQualifiedName(ResourceRequestsPrefix+string(name))) == 0
}

// IsStandardResourceName reports whether name is a resource Kubernetes
// defines (compute, storage, object counts, huge pages).
func IsStandardResourceName(name ResourceName) bool {
	s := strings.TrimPrefix(string(name), ResourceRequestsPrefix)
	return slices.Contains(standardResources, name) || IsHugePageResourceName(ResourceName(s))
}

// IsStandardContainerResourceName reports whether containers may request name.
func IsStandardContainerResourceName(name ResourceName) bool {
	return name == ResourceCPU || name == ResourceMemory || name == ResourceEphemeralStorage ||
		IsHugePageResourceName(name)
}

// isOvercommitAllowed reports whether requests may be below limits.
func isOvercommitAllowed(name ResourceName) bool {
	return IsNativeResource(name) && !IsHugePageResourceName(name)
}

// isIntegerResourceName reports whether quantities of name must be whole.
func isIntegerResourceName(name ResourceName) bool {
	return IsExtendedResourceName(name) || name == ResourcePods || name == ResourceQuotas ||
		name == ResourceServices || name == ResourceSecrets || name == ResourceConfigMaps ||
		name == ResourcePersistentVolumeClaims || name == ResourceServicesNodePorts ||
		name == ResourceServicesLoadBalancers || name == ResourceReplicationControllers
}

func validateResourceName(name ResourceName, p *field.Path) field.ErrorList {
	errs := invalidAll(p, string(name), validation.IsQualifiedName(string(name)))
	if len(errs) != 0 {
		return errs
	}
	if !strings.Contains(string(name), "/") && !IsStandardResourceName(name) {
		return field.ErrorList{field.Invalid(p, string(name), "must be a standard resource type or fully qualified")}
	}
	return nil
}

func validateContainerResourceName(name ResourceName, p *field.Path) field.ErrorList {
	errs := validateResourceName(name, p)
	if len(errs) != 0 {
		return errs
	}
	if !strings.Contains(string(name), "/") {
		if !IsStandardContainerResourceName(name) {
			return field.ErrorList{field.Invalid(p, string(name), "must be a standard resource for containers")}
		}
	} else if !IsNativeResource(name) && !IsExtendedResourceName(name) {
		return field.ErrorList{field.Invalid(p, string(name), "doesn't follow extended resource name standard")}
	}
	return nil
}

// validateQuantity checks that q is non-negative and, for resources
// counted in whole units, an integer.
func validateQuantity(name ResourceName, q resource.Quantity, p *field.Path) field.ErrorList {
	if q.Sign() < 0 {
		return field.ErrorList{field.Invalid(p, q.String(), isNegativeErrorMsg)}
	}
	if isIntegerResourceName(name) && q.MilliValue()%1000 != 0 {
		return field.ErrorList{field.Invalid(p, q.String(), isNotIntegerErrorMsg)}
	}
	return nil
}

// validateResourceList checks names and quantities of a quota-style list.
func validateResourceList(rl ResourceList, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, name := range sortedNames(rl) {
		kp := p.Key(string(name))
		errs = append(errs, validateResourceName(name, kp)...)
		errs = append(errs, validateQuantity(name, rl[name], kp)...)
	}
	return errs
}

func sortedNames(rl ResourceList) []ResourceName {
	names := make([]ResourceName, 0, len(rl))
	for n := range rl {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Keys and paths -----------------------------------------------------------

var configMapKeyRE = regexp.MustCompile(`^[-._a-zA-Z0-9]+$`)

// IsConfigMapKey returns what is wrong with k as a key of a ConfigMap or
// Secret (nil when valid), worded as Kubernetes words it.
func IsConfigMapKey(k string) []string {
	var errs []string
	if len(k) > validationDNS1123SubdomainMaxLength {
		errs = append(errs, fmt.Sprintf("must be no more than %d characters", validationDNS1123SubdomainMaxLength))
	}
	if !configMapKeyRE.MatchString(k) {
		errs = append(errs, "a valid config key must consist of alphanumeric characters, '-', '_' or '.' "+
			"(e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')")
	}
	switch {
	case k == ".":
		errs = append(errs, `must not be '.'`)
	case k == "..":
		errs = append(errs, `must not be '..'`)
	case strings.HasPrefix(k, ".."):
		errs = append(errs, `must not start with '..'`)
	}
	return errs
}

const validationDNS1123SubdomainMaxLength = 253

// validateLocalDescendingPath checks a relative path that stays below its root.
func validateLocalDescendingPath(s string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if strings.HasPrefix(s, "/") {
		errs = append(errs, field.Invalid(p, s, "must be a relative path"))
	}
	for _, part := range strings.Split(s, "/") {
		if part == ".." {
			errs = append(errs, field.Invalid(p, s, "must not contain '..'"))
			break
		}
	}
	return errs
}

func validateFileMode(mode *int32, p *field.Path) field.ErrorList {
	if mode != nil && (*mode > 0o777 || *mode < 0) {
		return field.ErrorList{field.Invalid(p, *mode, fileModeErrorMsg)}
	}
	return nil
}

// metaUpdate checks metadata changes with api/validation's rules.
func metaUpdate(n, o *meta.ObjectMeta) field.ErrorList {
	return validation.ValidateObjectMetaUpdate(n, o, field.NewPath("metadata"))
}
