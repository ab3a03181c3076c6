package rbac

import (
	"fmt"
	"strings"

	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/validation"
)

// ValidateName checks the name of an RBAC object, which Kubernetes allows to
// be any valid path segment: not "." or "..", and without "/" or "%".
// prefix is true when name is a generateName prefix. It has the signature
// of validation.NameFunc.
func ValidateName(name string, prefix bool) []string {
	if !prefix {
		for _, bad := range []string{".", ".."} {
			if name == bad {
				return []string{fmt.Sprintf("may not be '%s'", bad)}
			}
		}
	}
	var msgs []string
	for _, bad := range []string{"/", "%"} {
		if strings.Contains(name, bad) {
			msgs = append(msgs, fmt.Sprintf("may not contain '%s'", bad))
		}
	}
	return msgs
}

// ValidatePolicyRule checks one rule at p: it needs verbs, and either
// non-resource URLs (only when not namespaced, and never with resources) or
// API groups and resources.
func ValidatePolicyRule(rule PolicyRule, namespaced bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(rule.Verbs) == 0 {
		errs = append(errs, field.Required(p.Child("verbs"), "verbs must contain at least one value"))
	}
	if len(rule.NonResourceURLs) > 0 {
		if namespaced {
			errs = append(errs, field.Invalid(p.Child("nonResourceURLs"), rule.NonResourceURLs,
				"namespaced rules cannot apply to non-resource URLs"))
		}
		if len(rule.APIGroups) > 0 || len(rule.Resources) > 0 {
			errs = append(errs, field.Invalid(p.Child("nonResourceURLs"), rule.NonResourceURLs,
				"rules cannot apply to both regular resources and non-resource URLs"))
		}
		return errs
	}
	if len(rule.APIGroups) == 0 {
		errs = append(errs, field.Required(p.Child("apiGroups"), "resource rules must supply at least one api group"))
	}
	if len(rule.Resources) == 0 {
		errs = append(errs, field.Required(p.Child("resources"), "resource rules must supply at least one resource"))
	}
	return errs
}

// ValidateRole checks a new Role.
func ValidateRole(r *Role) field.ErrorList {
	errs := validation.ValidateObjectMeta(&r.ObjectMeta, true, ValidateName, field.NewPath("metadata"))
	for i, rule := range r.Rules {
		errs = append(errs, ValidatePolicyRule(rule, true, field.NewPath("rules").Index(i))...)
	}
	return errs
}

// ValidateRoleUpdate checks r as a replacement for old.
func ValidateRoleUpdate(r, old *Role) field.ErrorList {
	errs := ValidateRole(r)
	return append(errs, validation.ValidateObjectMetaUpdate(&r.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))...)
}

// ValidateClusterRole checks a new ClusterRole, including its aggregation
// rule's selectors.
func ValidateClusterRole(r *ClusterRole) field.ErrorList {
	errs := validation.ValidateObjectMeta(&r.ObjectMeta, false, ValidateName, field.NewPath("metadata"))
	for i, rule := range r.Rules {
		errs = append(errs, ValidatePolicyRule(rule, false, field.NewPath("rules").Index(i))...)
	}
	if r.AggregationRule != nil {
		p := field.NewPath("aggregationRule", "clusterRoleSelectors")
		if len(r.AggregationRule.ClusterRoleSelectors) == 0 {
			errs = append(errs, field.Required(p, "at least one clusterRoleSelector required if aggregationRule is non-nil"))
		}
		for i := range r.AggregationRule.ClusterRoleSelectors {
			errs = append(errs, validation.ValidateLabelSelector(&r.AggregationRule.ClusterRoleSelectors[i], p.Index(i))...)
		}
	}
	return errs
}

// ValidateClusterRoleUpdate checks r as a replacement for old.
func ValidateClusterRoleUpdate(r, old *ClusterRole) field.ErrorList {
	errs := ValidateClusterRole(r)
	return append(errs, validation.ValidateObjectMetaUpdate(&r.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))...)
}

// ValidateRoleBinding checks a new RoleBinding: its roleRef names a Role or
// ClusterRole in this API group, and each subject is well formed.
func ValidateRoleBinding(b *RoleBinding) field.ErrorList {
	errs := validation.ValidateObjectMeta(&b.ObjectMeta, true, ValidateName, field.NewPath("metadata"))
	errs = append(errs, validateRoleRef(b.RoleRef, []string{"Role", "ClusterRole"})...)
	for i, s := range b.Subjects {
		errs = append(errs, ValidateSubject(s, true, field.NewPath("subjects").Index(i))...)
	}
	return errs
}

// ValidateRoleBindingUpdate checks b as a replacement for old; roleRef is
// immutable.
func ValidateRoleBindingUpdate(b, old *RoleBinding) field.ErrorList {
	errs := ValidateRoleBinding(b)
	errs = append(errs, validation.ValidateObjectMetaUpdate(&b.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))...)
	if b.RoleRef != old.RoleRef {
		errs = append(errs, field.Invalid(field.NewPath("roleRef"), b.RoleRef, "cannot change roleRef"))
	}
	return errs
}

// ValidateClusterRoleBinding checks a new ClusterRoleBinding: its roleRef
// names a ClusterRole, and each subject is well formed (service accounts
// need a namespace).
func ValidateClusterRoleBinding(b *ClusterRoleBinding) field.ErrorList {
	errs := validation.ValidateObjectMeta(&b.ObjectMeta, false, ValidateName, field.NewPath("metadata"))
	errs = append(errs, validateRoleRef(b.RoleRef, []string{"ClusterRole"})...)
	for i, s := range b.Subjects {
		errs = append(errs, ValidateSubject(s, false, field.NewPath("subjects").Index(i))...)
	}
	return errs
}

// ValidateClusterRoleBindingUpdate checks b as a replacement for old;
// roleRef is immutable.
func ValidateClusterRoleBindingUpdate(b, old *ClusterRoleBinding) field.ErrorList {
	errs := ValidateClusterRoleBinding(b)
	errs = append(errs, validation.ValidateObjectMetaUpdate(&b.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))...)
	if b.RoleRef != old.RoleRef {
		errs = append(errs, field.Invalid(field.NewPath("roleRef"), b.RoleRef, "cannot change roleRef"))
	}
	return errs
}

func validateRoleRef(ref RoleRef, kinds []string) field.ErrorList {
	var errs field.ErrorList
	p := field.NewPath("roleRef")
	if ref.APIGroup != GroupName {
		errs = append(errs, field.NotSupported(p.Child("apiGroup"), ref.APIGroup, []string{GroupName}))
	}
	if !contains(kinds, ref.Kind) {
		errs = append(errs, field.NotSupported(p.Child("kind"), ref.Kind, kinds))
	}
	if ref.Name == "" {
		errs = append(errs, field.Required(p.Child("name"), ""))
	}
	for _, msg := range ValidateName(ref.Name, false) {
		errs = append(errs, field.Invalid(p.Child("name"), ref.Name, msg))
	}
	return errs
}

// ValidateSubject checks one subject at p. namespaced is true for a
// RoleBinding, where a service account may omit its namespace.
func ValidateSubject(s Subject, namespaced bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if s.Name == "" {
		errs = append(errs, field.Required(p.Child("name"), ""))
	}
	switch s.Kind {
	case ServiceAccountKind:
		if s.Name != "" {
			for _, msg := range validation.NameIsDNSSubdomain(s.Name, false) {
				errs = append(errs, field.Invalid(p.Child("name"), s.Name, msg))
			}
		}
		if s.APIGroup != "" {
			errs = append(errs, field.NotSupported(p.Child("apiGroup"), s.APIGroup, []string{""}))
		}
		if !namespaced && s.Namespace == "" {
			errs = append(errs, field.Required(p.Child("namespace"), ""))
		}
	case UserKind, GroupKind:
		if s.APIGroup != GroupName {
			errs = append(errs, field.NotSupported(p.Child("apiGroup"), s.APIGroup, []string{GroupName}))
		}
	default:
		errs = append(errs, field.NotSupported(p.Child("kind"), s.Kind,
			[]string{ServiceAccountKind, UserKind, GroupKind}))
	}
	return errs
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
