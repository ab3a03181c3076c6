package admissionregistration

import (
	"slices"
	"strings"

	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/validation"
)

// ValidateInitializerConfiguration checks a new configuration: a
// DNS-subdomain name, fully qualified unique initializer names and
// well-formed rules.
func ValidateInitializerConfiguration(c *InitializerConfiguration) field.ErrorList {
	errs := validation.ValidateObjectMeta(&c.ObjectMeta, false, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	seen := map[string]bool{}
	for i, in := range c.Initializers {
		p := field.NewPath("initializers").Index(i)
		errs = append(errs, validateInitializer(in, p)...)
		if seen[in.Name] && in.Name != "" {
			errs = append(errs, field.Duplicate(p.Child("name"), in.Name))
		}
		seen[in.Name] = true
	}
	return errs
}

// ValidateInitializerConfigurationUpdate checks c as a replacement for old.
func ValidateInitializerConfigurationUpdate(c, old *InitializerConfiguration) field.ErrorList {
	errs := ValidateInitializerConfiguration(c)
	return append(errs, validation.ValidateObjectMetaUpdate(&c.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))...)
}

// ValidateFullyQualifiedName checks that name is a DNS subdomain of at
// least three segments, as Kubernetes requires of initializer names.
func ValidateFullyQualifiedName(name string, p *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	if msgs := validation.IsDNS1123Subdomain(name); len(msgs) > 0 {
		return field.ErrorList{field.Invalid(p, name, strings.Join(msgs, ","))}
	}
	if len(strings.Split(name, ".")) < 3 {
		return field.ErrorList{field.Invalid(p, name, "should be a domain with at least three segments separated by dots")}
	}
	return nil
}

func validateInitializer(in Initializer, p *field.Path) field.ErrorList {
	errs := ValidateFullyQualifiedName(in.Name, p.Child("name"))
	for i, r := range in.Rules {
		errs = append(errs, validateRule(r, p.Child("rules").Index(i))...)
	}
	return errs
}

func validateRule(r Rule, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(r.APIGroups) == 0 {
		errs = append(errs, field.Required(p.Child("apiGroups"), ""))
	}
	if len(r.APIGroups) > 1 && slices.Contains(r.APIGroups, "*") {
		errs = append(errs, field.Invalid(p.Child("apiGroups"), r.APIGroups, "if '*' is present, must not specify other API groups"))
	}
	if len(r.APIVersions) == 0 {
		errs = append(errs, field.Required(p.Child("apiVersions"), ""))
	}
	if len(r.APIVersions) > 1 && slices.Contains(r.APIVersions, "*") {
		errs = append(errs, field.Invalid(p.Child("apiVersions"), r.APIVersions, "if '*' is present, must not specify other API versions"))
	}
	for i, v := range r.APIVersions {
		if v == "" {
			errs = append(errs, field.Required(p.Child("apiVersions").Index(i), ""))
		}
	}
	return append(errs, validateResources(r.Resources, p.Child("resources"))...)
}

func validateResources(resources []string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(resources) == 0 {
		errs = append(errs, field.Required(p, ""))
	}
	for i, res := range resources {
		if res == "" {
			errs = append(errs, field.Required(p.Index(i), ""))
		}
		if strings.Contains(res, "/") {
			errs = append(errs, field.Invalid(p.Index(i), res, "must not specify subresources"))
		}
	}
	if len(resources) > 1 && slices.Contains(resources, "*") {
		errs = append(errs, field.Invalid(p, resources, "if '*' is present, must not specify other resources"))
	}
	return errs
}
