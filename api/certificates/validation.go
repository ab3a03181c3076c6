package certificates

import (
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"slices"
	"strings"

	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/validation"
)

// minExpirationSeconds is the shortest validity a request may ask for.
const minExpirationSeconds = 600

// ValidateName accepts any name usable as one path segment, as Kubernetes
// accepts for CertificateSigningRequests ("csr-abc", "node-csr-X_y").
func ValidateName(name string, prefix bool) []string {
	switch {
	case !prefix && (name == "." || name == ".."):
		return []string{fmt.Sprintf("may not be '%s'", name)}
	case strings.ContainsAny(name, "/%"):
		return []string{"may not contain '/' or '%'"}
	}
	return nil
}

// ValidateCertificateSigningRequest checks a new request: its metadata,
// a parseable PEM certificate request, a signer name, known and distinct
// usages, an expiration of at least 600 s, and its status.
func ValidateCertificateSigningRequest(csr *CertificateSigningRequest) field.ErrorList {
	errs := validation.ValidateObjectMeta(&csr.ObjectMeta, false, ValidateName, field.NewPath("metadata"))
	errs = append(errs, validateSpec(&csr.Spec, field.NewPath("spec"))...)
	return append(errs, validateStatus(csr, field.NewPath("status"))...)
}

// ValidateCertificateSigningRequestUpdate checks csr replacing old: the
// spec does not change, Approved and Denied conditions are not removed
// and an issued certificate is not replaced.
func ValidateCertificateSigningRequestUpdate(csr, old *CertificateSigningRequest) field.ErrorList {
	errs := validation.ValidateObjectMetaUpdate(&csr.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	errs = append(errs, validateSpec(&csr.Spec, field.NewPath("spec"))...)
	errs = append(errs, validateStatus(csr, field.NewPath("status"))...)
	if !validation.SemanticEqual(csr.Spec, old.Spec) {
		errs = append(errs, field.Invalid(field.NewPath("spec"), "", "field is immutable"))
	}
	conds := field.NewPath("status", "conditions")
	for _, t := range []RequestConditionType{CertificateApproved, CertificateDenied} {
		if old.HasCondition(t) && !csr.HasCondition(t) {
			errs = append(errs, field.Forbidden(conds, fmt.Sprintf("updates may not remove a condition of type %q", t)))
		}
	}
	if len(old.Status.Certificate) > 0 && string(old.Status.Certificate) != string(csr.Status.Certificate) {
		errs = append(errs, field.Forbidden(field.NewPath("status", "certificate"), "updates may not modify existing certificate content"))
	}
	return errs
}

func validateSpec(spec *CertificateSigningRequestSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if _, err := ParseRequest(spec.Request); err != nil {
		errs = append(errs, field.Invalid(p.Child("request"), "", err.Error()))
	}
	errs = append(errs, validateSignerName(spec.SignerName, p.Child("signerName"))...)
	if e := spec.ExpirationSeconds; e != nil && *e < minExpirationSeconds {
		errs = append(errs, field.Invalid(p.Child("expirationSeconds"), *e, "may not specify a duration less than 600 seconds (10 minutes)"))
	}
	if len(spec.Usages) == 0 {
		errs = append(errs, field.Required(p.Child("usages"), "usages must be provided"))
	}
	seen := map[KeyUsage]bool{}
	for i, u := range spec.Usages {
		switch {
		case !knownUsages[u]:
			errs = append(errs, field.NotSupported(p.Child("usages").Index(i), string(u), usageNames()))
		case seen[u]:
			errs = append(errs, field.Duplicate(p.Child("usages").Index(i), string(u)))
		}
		seen[u] = true
	}
	return errs
}

// validateSignerName checks "<domain>/<path>": a DNS subdomain, one
// slash, then a path of qualified-name characters.
func validateSignerName(name string, p *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	domain, path, ok := strings.Cut(name, "/")
	if !ok || path == "" {
		return field.ErrorList{field.Invalid(p, name, "must be a fully qualified domain and path of the form 'example.com/signer-name'")}
	}
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Subdomain(domain) {
		errs = append(errs, field.Invalid(p, name, "the domain "+msg))
	}
	if len(name) > 571 {
		errs = append(errs, field.TooLong(p, name, 571))
	}
	for _, part := range strings.Split(path, "/") {
		if len(validation.IsQualifiedName(part)) > 0 && len(validation.IsDNS1123Subdomain(part)) > 0 {
			errs = append(errs, field.Invalid(p, name, "the path may contain only alphanumerics, '-', '_', '.' and '/'"))
			break
		}
	}
	return errs
}

// validateStatus checks the conditions (typed, one of each approval
// type, Approved and Denied not both) and the certificate (PEM
// certificates, only on an approved request).
func validateStatus(csr *CertificateSigningRequest, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[RequestConditionType]bool{}
	for i, c := range csr.Status.Conditions {
		cp := p.Child("conditions").Index(i)
		switch {
		case c.Type == "":
			errs = append(errs, field.Required(cp.Child("type"), ""))
		case seen[c.Type] && (c.Type == CertificateApproved || c.Type == CertificateDenied || c.Type == CertificateFailed):
			errs = append(errs, field.Duplicate(cp.Child("type"), string(c.Type)))
		}
		seen[c.Type] = true
		switch c.Status {
		case meta.ConditionTrue, meta.ConditionFalse, meta.ConditionUnknown:
		case "":
			errs = append(errs, field.Required(cp.Child("status"), ""))
		default:
			errs = append(errs, field.NotSupported(cp.Child("status"), string(c.Status), []string{"True", "False", "Unknown"}))
		}
		if (c.Type == CertificateApproved || c.Type == CertificateDenied) && c.Status != meta.ConditionTrue && c.Status != "" {
			errs = append(errs, field.Invalid(cp.Child("status"), string(c.Status), fmt.Sprintf("%s conditions may only be set to True", c.Type)))
		}
	}
	if csr.HasCondition(CertificateApproved) && csr.HasCondition(CertificateDenied) {
		errs = append(errs, field.Invalid(p.Child("conditions"), "", "Approved and Denied conditions are mutually exclusive"))
	}
	if len(csr.Status.Certificate) > 0 {
		if !csr.IsApproved() {
			errs = append(errs, field.Forbidden(p.Child("certificate"), "may not be set unless the request is approved"))
		} else if err := checkCertificates(csr.Status.Certificate); err != nil {
			errs = append(errs, field.Invalid(p.Child("certificate"), "<certificate data>", err.Error()))
		}
	}
	return errs
}

// ParseRequest decodes a PEM "CERTIFICATE REQUEST" and checks its
// signature.
func ParseRequest(pemBytes []byte) (*x509.CertificateRequest, error) {
	b, _ := pem.Decode(pemBytes)
	if b == nil || b.Type != "CERTIFICATE REQUEST" {
		return nil, fmt.Errorf("PEM block type must be CERTIFICATE REQUEST")
	}
	req, err := x509.ParseCertificateRequest(b.Bytes)
	if err != nil {
		return nil, err
	}
	if err := req.CheckSignature(); err != nil {
		return nil, fmt.Errorf("signature: %w", err)
	}
	return req, nil
}

// checkCertificates requires one or more PEM CERTIFICATE blocks, without
// headers, each a parseable certificate; text around the blocks is
// allowed (RFC 7468 explanatory text), as Kubernetes allows it.
func checkCertificates(data []byte) error {
	n := 0
	for rest := data; ; n++ {
		var b *pem.Block
		if b, rest = pem.Decode(rest); b == nil {
			break
		}
		if b.Type != "CERTIFICATE" || len(b.Headers) > 0 {
			return fmt.Errorf("only CERTIFICATE PEM blocks without headers are allowed, found %q", b.Type)
		}
		if _, err := x509.ParseCertificate(b.Bytes); err != nil {
			return err
		}
	}
	if n == 0 {
		return fmt.Errorf("must contain at least one CERTIFICATE PEM block")
	}
	return nil
}

func usageNames() []string {
	out := make([]string, 0, len(knownUsages))
	for u := range knownUsages {
		out = append(out, string(u))
	}
	slices.Sort(out)
	return out
}
