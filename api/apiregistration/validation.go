package apiregistration

import (
	"fmt"
	"strings"

	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/validation"
)

// ValidateAPIService checks a new APIService as Kubernetes does: its name
// is "<version>.<group>", group and version are DNS names, the
// priorities are in range, and a Service reference names a Service, a
// valid port, and either a CA bundle or insecureSkipTLSVerify (not both).
func ValidateAPIService(a *APIService) field.ErrorList {
	errs := validation.ValidateObjectMeta(&a.ObjectMeta, false, nameFunc, field.NewPath("metadata"))
	return append(errs, validateSpec(a, field.NewPath("spec"))...)
}

// ValidateAPIServiceUpdate checks a as a replacement for old.
func ValidateAPIServiceUpdate(a, old *APIService) field.ErrorList {
	errs := validation.ValidateObjectMetaUpdate(&a.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	return append(errs, validateSpec(a, field.NewPath("spec"))...)
}

// nameFunc allows "<version>.<group>" names: a DNS-1035 label, a dot,
// and a DNS subdomain.
func nameFunc(name string, _ bool) []string {
	version, group, ok := strings.Cut(name, ".")
	if !ok {
		return []string{`must be in the form: <version>.<group>`}
	}
	if msgs := validation.IsDNS1035Label(version); len(msgs) > 0 {
		return msgs
	}
	return validation.IsDNS1123Subdomain(group)
}

func validateSpec(a *APIService, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	s := &a.Spec
	if want := Name(s.Group, s.Version); a.Name != want && s.Version != "" {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), a.Name, fmt.Sprintf("must be %v", want)))
	}
	if s.Group == "" && a.Name != "v1." {
		errs = append(errs, field.Required(p.Child("group"), "only v1 may have an empty group and it better be legacy kube"))
	} else if s.Group != "" {
		for _, msg := range validation.IsDNS1123Subdomain(s.Group) {
			errs = append(errs, field.Invalid(p.Child("group"), s.Group, msg))
		}
	}
	if s.Version == "" {
		errs = append(errs, field.Required(p.Child("version"), ""))
	} else {
		for _, msg := range validation.IsDNS1035Label(s.Version) {
			errs = append(errs, field.Invalid(p.Child("version"), s.Version, msg))
		}
	}
	if s.GroupPriorityMinimum <= 0 || s.GroupPriorityMinimum > 20000 {
		errs = append(errs, field.Invalid(p.Child("groupPriorityMinimum"), s.GroupPriorityMinimum, "must be positive and less than 20000"))
	}
	if s.VersionPriority <= 0 || s.VersionPriority > 1000 {
		errs = append(errs, field.Invalid(p.Child("versionPriority"), s.VersionPriority, "must be positive and less than 1000"))
	}
	if s.Service == nil {
		if len(s.CABundle) > 0 {
			errs = append(errs, field.Invalid(p.Child("caBundle"), fmt.Sprintf("%d bytes", len(s.CABundle)), "local APIServices may not have a caBundle"))
		}
		if s.InsecureSkipTLSVerify {
			errs = append(errs, field.Invalid(p.Child("insecureSkipTLSVerify"), s.InsecureSkipTLSVerify, "local APIServices may not have insecureSkipTLSVerify"))
		}
		return errs
	}
	if s.Service.Namespace == "" {
		errs = append(errs, field.Required(p.Child("service", "namespace"), ""))
	}
	if s.Service.Name == "" {
		errs = append(errs, field.Required(p.Child("service", "name"), ""))
	}
	if port := s.Service.Port; port != nil {
		for _, msg := range validation.IsValidPortNum(int(*port)) {
			errs = append(errs, field.Invalid(p.Child("service", "port"), *port, msg))
		}
	}
	if s.InsecureSkipTLSVerify && len(s.CABundle) > 0 {
		errs = append(errs, field.Invalid(p.Child("insecureSkipTLSVerify"), s.InsecureSkipTLSVerify, "may not be true if caBundle is present"))
	}
	return errs
}
