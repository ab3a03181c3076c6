package networking

import (
	"net/netip"
	"strings"

	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/validation"
)

// ValidateIngress checks a new Ingress as Kubernetes does: a default
// backend or rules, DNS hosts (a leading "*." allowed), absolute paths
// with a path type, and backends naming exactly one Service port or
// resource.
func ValidateIngress(ing *Ingress) field.ErrorList {
	errs := validation.ValidateObjectMeta(&ing.ObjectMeta, true, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(errs, validateIngressSpec(&ing.Spec, field.NewPath("spec"))...)
}

// ValidateIngressUpdate checks ing as a replacement for old.
func ValidateIngressUpdate(ing, old *Ingress) field.ErrorList {
	errs := validation.ValidateObjectMetaUpdate(&ing.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	return append(errs, validateIngressSpec(&ing.Spec, field.NewPath("spec"))...)
}

func validateIngressSpec(spec *IngressSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if spec.DefaultBackend == nil && len(spec.Rules) == 0 {
		errs = append(errs, field.Invalid(p, "null", "either `defaultBackend` or `rules` must be specified"))
	}
	if spec.DefaultBackend != nil {
		errs = append(errs, validateBackend(spec.DefaultBackend, p.Child("defaultBackend"))...)
	}
	if n := spec.IngressClassName; n != nil {
		errs = append(errs, invalidAll(p.Child("ingressClassName"), *n, validation.IsDNS1123Subdomain(*n))...)
	}
	for i, tls := range spec.TLS {
		for j, h := range tls.Hosts {
			errs = append(errs, invalidAll(p.Child("tls").Index(i).Child("hosts").Index(j), h, checkHost(h))...)
		}
	}
	for i, r := range spec.Rules {
		rp := p.Child("rules").Index(i)
		if r.Host != "" {
			if _, err := netip.ParseAddr(r.Host); err == nil {
				errs = append(errs, field.Invalid(rp.Child("host"), r.Host, "must be a DNS name, not an IP address"))
			} else {
				errs = append(errs, invalidAll(rp.Child("host"), r.Host, checkHost(r.Host))...)
			}
		}
		if r.HTTP != nil {
			errs = append(errs, validateHTTPRule(r.HTTP, rp.Child("http"))...)
		}
	}
	return errs
}

// checkHost allows a DNS subdomain or a wildcard one ("*.example.com").
func checkHost(h string) []string {
	if rest, ok := strings.CutPrefix(h, "*."); ok {
		if msgs := validation.IsDNS1123Subdomain(rest); len(msgs) > 0 {
			return []string{"a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com')"}
		}
		return nil
	}
	return validation.IsDNS1123Subdomain(h)
}

func validateHTTPRule(rule *HTTPIngressRuleValue, p *field.Path) field.ErrorList {
	if len(rule.Paths) == 0 {
		return field.ErrorList{field.Required(p.Child("paths"), "")}
	}
	var errs field.ErrorList
	for i, hp := range rule.Paths {
		pp := p.Child("paths").Index(i)
		errs = append(errs, validatePath(hp, pp)...)
		errs = append(errs, validateBackend(&hp.Backend, pp.Child("backend"))...)
	}
	return errs
}

func validatePath(hp HTTPIngressPath, p *field.Path) field.ErrorList {
	if hp.PathType == nil {
		return field.ErrorList{field.Required(p.Child("pathType"), "pathType must be specified")}
	}
	switch *hp.PathType {
	case PathTypeExact, PathTypePrefix:
		if !strings.HasPrefix(hp.Path, "/") {
			return field.ErrorList{field.Invalid(p.Child("path"), hp.Path, "must be an absolute path")}
		}
		for _, bad := range []string{"//", "/./", "/../", "%2f", "%2F"} {
			if strings.Contains(hp.Path, bad) {
				return field.ErrorList{field.Invalid(p.Child("path"), hp.Path, "must not contain '"+bad+"'")}
			}
		}
		for _, bad := range []string{"/..", "/."} {
			if strings.HasSuffix(hp.Path, bad) {
				return field.ErrorList{field.Invalid(p.Child("path"), hp.Path, "cannot end with '"+bad+"'")}
			}
		}
	case PathTypeImplementationSpecific:
		if hp.Path != "" && !strings.HasPrefix(hp.Path, "/") {
			return field.ErrorList{field.Invalid(p.Child("path"), hp.Path, "must be an absolute path")}
		}
	default:
		return field.ErrorList{field.NotSupported(p.Child("pathType"), string(*hp.PathType),
			[]string{string(PathTypeExact), string(PathTypeImplementationSpecific), string(PathTypePrefix)})}
	}
	return nil
}

func validateBackend(b *IngressBackend, p *field.Path) field.ErrorList {
	switch {
	case b.Service != nil && b.Resource != nil:
		return field.ErrorList{field.Invalid(p, "", "cannot set both resource and service backends")}
	case b.Resource != nil:
		var errs field.ErrorList
		if b.Resource.Kind == "" {
			errs = append(errs, field.Required(p.Child("resource", "kind"), ""))
		}
		if b.Resource.Name == "" {
			errs = append(errs, field.Required(p.Child("resource", "name"), ""))
		}
		return errs
	case b.Service != nil:
		return validateServiceBackend(b.Service, p.Child("service"))
	}
	return field.ErrorList{field.Invalid(p, "", "resource or service backend is required")}
}

func validateServiceBackend(s *IngressServiceBackend, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if s.Name == "" {
		errs = append(errs, field.Required(p.Child("name"), ""))
	} else {
		errs = append(errs, invalidAll(p.Child("name"), s.Name, validation.IsDNS1035Label(s.Name))...)
	}
	pp := p.Child("port")
	switch {
	case s.Port.Name != "" && s.Port.Number != 0:
		errs = append(errs, field.Invalid(pp, s.Port, "cannot set both port name & port number"))
	case s.Port.Name != "":
		errs = append(errs, invalidAll(pp.Child("name"), s.Port.Name, validation.IsValidPortName(s.Port.Name))...)
	case s.Port.Number != 0:
		errs = append(errs, invalidAll(pp.Child("number"), s.Port.Number, validation.IsValidPortNum(int(s.Port.Number)))...)
	default:
		errs = append(errs, field.Required(pp, "port name or number is required"))
	}
	return errs
}

// ValidateIngressClass checks a new IngressClass: a domain-prefixed
// controller name of at most 250 characters and complete parameters.
func ValidateIngressClass(c *IngressClass) field.ErrorList {
	errs := validation.ValidateObjectMeta(&c.ObjectMeta, false, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(errs, validateIngressClassSpec(&c.Spec, field.NewPath("spec"))...)
}

// ValidateIngressClassUpdate checks c as a replacement for old: the
// controller may not change.
func ValidateIngressClassUpdate(c, old *IngressClass) field.ErrorList {
	errs := validation.ValidateObjectMetaUpdate(&c.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	errs = append(errs, validation.ValidateImmutableField(c.Spec.Controller, old.Spec.Controller, field.NewPath("spec", "controller"))...)
	return append(errs, validateIngressClassSpec(&c.Spec, field.NewPath("spec"))...)
}

func validateIngressClassSpec(spec *IngressClassSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	cp := p.Child("controller")
	switch {
	case spec.Controller == "":
		errs = append(errs, field.Required(cp, ""))
	case len(spec.Controller) > 250:
		errs = append(errs, field.TooLong(cp, "", 250))
	case !isDomainPrefixedPath(spec.Controller):
		errs = append(errs, field.Invalid(cp, spec.Controller, "must be a domain-prefixed path (such as \"acme.io/foo\")"))
	}
	if ref := spec.Parameters; ref != nil {
		errs = append(errs, validateParameters(ref, p.Child("parameters"))...)
	}
	return errs
}

// isDomainPrefixedPath: a DNS subdomain, a slash, and a non-empty path.
func isDomainPrefixedPath(s string) bool {
	host, path, ok := strings.Cut(s, "/")
	return ok && path != "" && len(validation.IsDNS1123Subdomain(host)) == 0
}

func validateParameters(ref *IngressClassParametersReference, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if ref.Kind == "" {
		errs = append(errs, field.Required(p.Child("kind"), ""))
	}
	if ref.Name == "" {
		errs = append(errs, field.Required(p.Child("name"), ""))
	}
	scope := ""
	if ref.Scope != nil {
		scope = *ref.Scope
	}
	switch scope {
	case IngressClassParametersReferenceScopeCluster:
		if ref.Namespace != nil {
			errs = append(errs, field.Forbidden(p.Child("namespace"), "`parameters.scope` is set to 'Cluster'"))
		}
	case IngressClassParametersReferenceScopeNamespace:
		if ref.Namespace == nil {
			errs = append(errs, field.Required(p.Child("namespace"), "`parameters.scope` is set to 'Namespace'"))
		} else {
			errs = append(errs, invalidAll(p.Child("namespace"), *ref.Namespace, validation.IsDNS1123Label(*ref.Namespace))...)
		}
	case "":
		errs = append(errs, field.Required(p.Child("scope"), ""))
	default:
		errs = append(errs, field.NotSupported(p.Child("scope"), scope, []string{"Cluster", "Namespace"}))
	}
	return errs
}

// DefaultIngressClass sets a parameters reference's scope to Cluster when
// unset, as Kubernetes defaults it.
func DefaultIngressClass(c *IngressClass) {
	if ref := c.Spec.Parameters; ref != nil && ref.Scope == nil {
		s := IngressClassParametersReferenceScopeCluster
		ref.Scope = &s
	}
}

func invalidAll(p *field.Path, v any, msgs []string) field.ErrorList {
	var errs field.ErrorList
	for _, m := range msgs {
		errs = append(errs, field.Invalid(p, v, m))
	}
	return errs
}
