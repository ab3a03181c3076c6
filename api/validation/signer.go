package validation

import (
	"fmt"
	"strings"

	"github.com/orkit/orkit/api/field"
)

// Signer-name limits, as Kubernetes derives them: a domain (a DNS
// subdomain, at most 253 characters), one '/', and a path that fits
// "<namespace>.<name>" (a label, a dot and a subdomain).
const (
	maxSignerDomainLength = 253
	maxSignerPathLength   = 253 + 63 + 1
	// MaxSignerNameLength is the longest signer name accepted (571).
	MaxSignerNameLength = maxSignerDomainLength + maxSignerPathLength + 1
)

// IsKubernetesSignerName reports whether signerName is reserved for the
// Kubernetes project: its domain is kubernetes.io or a subdomain of it.
func IsKubernetesSignerName(signerName string) bool {
	host, _, _ := strings.Cut(signerName, "/")
	return host == "kubernetes.io" || strings.HasSuffix(host, ".kubernetes.io")
}

// ValidateSignerName checks a signer name of the form
// "example.com/signer-name" as Kubernetes does for ClusterTrustBundles,
// PodCertificateRequests and their projected volume sources: exactly one
// '/', a domain of at least two DNS-1123 labels, a path of dot-separated
// DNS-1123 subdomains, at most MaxSignerNameLength characters.
func ValidateSignerName(p *field.Path, signerName string) field.ErrorList {
	if signerName == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	segments := strings.Split(signerName, "/")
	if len(segments) != 2 {
		return field.ErrorList{field.Invalid(p, signerName, "must be a fully qualified domain and path of the form 'example.com/signer-name'")}
	}
	var errs field.ErrorList
	domain, path := segments[0], segments[1]
	if len(domain) > maxSignerDomainLength {
		errs = append(errs, field.TooLong(p, "", maxSignerDomainLength))
	}
	labels := strings.Split(domain, ".")
	for _, l := range labels {
		if msgs := IsDNS1123Label(l); len(msgs) > 0 {
			for _, m := range msgs {
				errs = append(errs, field.Invalid(p, domain, fmt.Sprintf("validating label %q: %s", l, m)))
			}
			break
		}
	}
	if len(labels) < 2 {
		errs = append(errs, field.Invalid(p, domain, "should be a domain with at least two segments separated by dots"))
	}
	for _, l := range strings.Split(path, ".") {
		if msgs := IsDNS1123Subdomain(l); len(msgs) > 0 {
			for _, m := range msgs {
				errs = append(errs, field.Invalid(p, path, fmt.Sprintf("validating label %q: %s", l, m)))
			}
			break
		}
	}
	if len(signerName) > MaxSignerNameLength {
		errs = append(errs, field.TooLong(p, "", MaxSignerNameLength))
	}
	return errs
}

// ClusterTrustBundleNameFunc returns the NameFunc of a ClusterTrustBundle
// with signerName: without a signer the name is a DNS subdomain without
// ':'; with one it starts with the signer name, '/' replaced by ':', and
// a ':' ("example.com:signer:"), and the rest is a DNS subdomain.
func ClusterTrustBundleNameFunc(signerName string) NameFunc {
	return func(name string, prefix bool) []string {
		if signerName == "" {
			if strings.Contains(name, ":") {
				return []string{`ClusterTrustBundle without signer name must not have ":" in its name`}
			}
			return NameIsDNSSubdomain(name, prefix)
		}
		want := strings.ReplaceAll(signerName, "/", ":") + ":"
		if !strings.HasPrefix(name, want) {
			return []string{fmt.Sprintf("ClusterTrustBundle for signerName %s must be named with prefix %s", signerName, want)}
		}
		return NameIsDNSSubdomain(strings.TrimPrefix(name, want), prefix)
	}
}

// SignerNameFromClusterTrustBundleName is the signer name a
// ClusterTrustBundle name implies: what comes before its last ':', with
// ':' turned back into '/'; ok is false for a name without ':'.
func SignerNameFromClusterTrustBundleName(name string) (signerName string, ok bool) {
	i := strings.LastIndex(name, ":")
	if i < 0 {
		return "", false
	}
	return strings.ReplaceAll(name[:i], ":", "/"), true
}

// maxUserAnnotationsSize is Kubernetes' total annotation size limit,
// which user annotations share.
const maxUserAnnotationsSize = 256 * 1024

// ValidateUserAnnotations checks the keys of user annotations (domain
// prefixed: "example.com/name", compared in lower case) and their total
// size, as Kubernetes does for podCertificate projections and
// PodCertificateRequests.
func ValidateUserAnnotations(a map[string]string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	size := 0
	for k, v := range a {
		size += len(k) + len(v)
		domain, name, ok := strings.Cut(strings.ToLower(k), "/")
		if !ok || domain == "" {
			errs = append(errs, field.Invalid(p, k, "must be a domain-prefixed path (such as \"acme.io/foo\")"))
			continue
		}
		for _, msg := range IsDNS1123Subdomain(domain) {
			errs = append(errs, field.Invalid(p, k, "prefix part "+msg))
		}
		for _, msg := range IsQualifiedName(name) {
			errs = append(errs, field.Invalid(p, k, msg))
		}
	}
	if size > maxUserAnnotationsSize {
		errs = append(errs, field.TooLong(p, "", maxUserAnnotationsSize))
	}
	return errs
}
