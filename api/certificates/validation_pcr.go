package certificates

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/x509"
	"fmt"

	"time"

	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/validation"
)

// Limits of PodCertificateRequest fields.
const (
	maxUIDLength = 128
	// statusClockSkew is how far notBefore may be from the server's clock.
	statusClockSkew = 5 * time.Minute
	// minRefreshMargin keeps beginRefreshAt this far from both ends of
	// the certificate's validity.
	minRefreshMargin = 10 * time.Minute
)

var (
	pcrSpecPath   = field.NewPath("spec")
	pkcs10Path    = pcrSpecPath.Child("stubPKCS10Request")
	chainPath     = field.NewPath("status", "certificateChain")
	notBeforePath = field.NewPath("status", "notBefore")
	notAfterPath  = field.NewPath("status", "notAfter")
	refreshPath   = field.NewPath("status", "beginRefreshAt")
)

// ValidatePodCertificateRequest checks a new request: metadata, signer
// name, user annotations, the pod, service account and node names and
// UIDs, maxExpirationSeconds (1 h to 91 days; to 1 day for kubernetes.io
// signers) and a stub PKCS#10 request signed by an Ed25519, ECDSA
// P-256/384/521 or RSA 3072/4096 key.
func ValidatePodCertificateRequest(r *PodCertificateRequest) field.ErrorList {
	errs := validation.ValidateObjectMeta(&r.ObjectMeta, true, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	errs = append(errs, validation.ValidateSignerName(pcrSpecPath.Child("signerName"), r.Spec.SignerName)...)
	errs = append(errs, validation.ValidateUserAnnotations(r.Spec.UnverifiedUserAnnotations, pcrSpecPath.Child("unverifiedUserAnnotations"))...)
	for _, n := range []struct{ path, value string }{
		{"podName", r.Spec.PodName}, {"serviceAccountName", r.Spec.ServiceAccountName}, {"nodeName", r.Spec.NodeName},
	} {
		for _, msg := range validation.NameIsDNSSubdomain(n.value, false) {
			errs = append(errs, field.Invalid(pcrSpecPath.Child(n.path), n.value, msg))
		}
	}
	for _, u := range []struct{ path, value string }{
		{"podUID", r.Spec.PodUID}, {"serviceAccountUID", r.Spec.ServiceAccountUID}, {"nodeUID", r.Spec.NodeUID},
	} {
		switch {
		case u.value == "":
			errs = append(errs, field.Invalid(pcrSpecPath.Child(u.path), u.value, "must not be empty"))
		case len(u.value) > maxUIDLength:
			errs = append(errs, field.TooLong(pcrSpecPath.Child(u.path), u.value, maxUIDLength))
		}
	}
	if r.Spec.MaxExpirationSeconds == nil {
		return append(errs, field.Required(pcrSpecPath.Child("maxExpirationSeconds"), "must be set"))
	}
	hi := int32(MaxMaxExpirationSeconds)
	if validation.IsKubernetesSignerName(r.Spec.SignerName) {
		hi = KubernetesMaxMaxExpirationSeconds
	}
	if e := *r.Spec.MaxExpirationSeconds; e < MinMaxExpirationSeconds || e > hi {
		errs = append(errs, field.Invalid(pcrSpecPath.Child("maxExpirationSeconds"), e,
			fmt.Sprintf("must be in the range [%d, %d]", MinMaxExpirationSeconds, hi)))
	}
	if len(r.Spec.StubPKCS10Request) == 0 {
		return append(errs, field.Invalid(pcrSpecPath, "", "exactly one of (stubPKCS10Request) or (pkixPublicKey, proofOfPossession) must be set"))
	}
	return append(errs, validateStubRequest(r.Spec.StubPKCS10Request)...)
}

// validateStubRequest checks the size, key type and self-signature of a
// DER PKCS#10 request; its subject and extensions are not looked at.
func validateStubRequest(der []byte) field.ErrorList {
	if len(der) > MaxStubPKCS10RequestSize {
		return field.ErrorList{field.TooLong(pkcs10Path, "", MaxStubPKCS10RequestSize)}
	}
	req, err := x509.ParseCertificateRequest(der)
	if err != nil {
		return field.ErrorList{field.Invalid(pkcs10Path, "", "must be a valid PKCS#10 CSR")}
	}
	if msg := checkPublicKey(req.PublicKey); msg != "" {
		return field.ErrorList{field.Invalid(pkcs10Path, "", msg)}
	}
	if err := req.CheckSignature(); err != nil {
		return field.ErrorList{field.Invalid(pkcs10Path, "", "invalid signature")}
	}
	return nil
}

// checkPublicKey says why a key type is not accepted, "" if it is.
func checkPublicKey(pub crypto.PublicKey) string {
	switch k := pub.(type) {
	case ed25519.PublicKey:
	case *ecdsa.PublicKey:
		if k.Curve != elliptic.P256() && k.Curve != elliptic.P384() && k.Curve != elliptic.P521() {
			return "elliptic public keys must use curve P256, P384, or P521"
		}
	case *rsa.PublicKey:
		if bits := k.Size() * 8; bits != 3072 && bits != 4096 {
			return "RSA keys must have modulus size 3072 or 4096"
		}
	default:
		return "unknown public key type; supported types are Ed25519, ECDSA, and RSA"
	}
	return ""
}

// ValidatePodCertificateRequestUpdate checks r replacing old through the
// main resource or the status subresource (the server's strategy keeps
// the stored status, or the stored spec, so the one that may change is
// the one checked): metadata rules, an immutable spec, and the status
// rules of ValidatePodCertificateRequestStatus at time now.
func ValidatePodCertificateRequestUpdate(r, old *PodCertificateRequest, now time.Time) field.ErrorList {
	errs := validation.ValidateObjectMetaUpdate(&r.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	errs = append(errs, validation.ValidateImmutableField(r.Spec, old.Spec, pcrSpecPath)...)
	if len(errs) > 0 {
		return errs
	}
	return ValidatePodCertificateRequestStatus(r, old, now)
}

// ValidatePodCertificateRequestStatus checks a status change: at most one
// of the Issued, Denied and Failed conditions, with status True, no other
// condition types; a terminal status never changes; Denied and Failed
// carry nothing but conditions; Issued carries a chain whose leaf is
// issued to the requested key, lives at least an hour and at most
// maxExpirationSeconds, with notBefore/notAfter matching the leaf
// (notBefore within 5 minutes of now) and beginRefreshAt at least 10
// minutes inside the validity. A non-terminal status cannot change.
func ValidatePodCertificateRequestStatus(r, old *PodCertificateRequest, now time.Time) field.ErrorList {
	errs := validatePCRConditions(r.Status.Conditions, field.NewPath("status", "conditions"))
	if len(errs) > 0 {
		return errs
	}
	switch {
	case old.IsTerminal():
		return sameStatus(r.Status, old.Status, "immutable after PodCertificateRequest is issued, denied, or failed")
	case r.HasCondition(PodCertificateRequestConditionTypeDenied), r.HasCondition(PodCertificateRequestConditionTypeFailed):
		return sameStatus(r.Status, PodCertificateRequestStatus{Conditions: r.Status.Conditions},
			"non-condition status fields must be empty when denying or failing the PodCertificateRequest")
	case r.HasCondition(PodCertificateRequestConditionTypeIssued):
		return validateIssued(r, old, now)
	}
	return sameStatus(r.Status, old.Status, `status is immutable unless transitioning to "Issued", "Denied", or "Failed"`)
}

func sameStatus(a, b PodCertificateRequestStatus, detail string) field.ErrorList {
	if validation.SemanticEqual(a, b) {
		return nil
	}
	return field.ErrorList{field.Invalid(field.NewPath("status"), "", detail)}
}

// validatePCRConditions checks the condition list as Kubernetes does.
func validatePCRConditions(cs []meta.Condition, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	known, seen := 0, map[string]bool{}
	for i, c := range cs {
		cp := p.Index(i)
		switch c.Type {
		case PodCertificateRequestConditionTypeIssued, PodCertificateRequestConditionTypeDenied, PodCertificateRequestConditionTypeFailed:
			if known++; known > 1 {
				errs = append(errs, field.Invalid(cp.Child("type"), c.Type, `There may be at most one condition with type "Issued", "Denied", or "Failed"`))
			}
			if c.Status != meta.ConditionTrue {
				errs = append(errs, field.NotSupported(cp.Child("status"), string(c.Status), []string{"True"}))
			}
		default:
			errs = append(errs, field.NotSupported(cp.Child("type"), c.Type, []string{"Issued", "Denied", "Failed"}))
		}
		if seen[c.Type] {
			errs = append(errs, field.Duplicate(cp.Child("type"), c.Type))
		}
		seen[c.Type] = true
		if c.Reason == "" {
			errs = append(errs, field.Required(cp.Child("reason"), "must be set"))
		}
		if c.LastTransitionTime.IsZero() {
			errs = append(errs, field.Required(cp.Child("lastTransitionTime"), "must be set"))
		}
	}
	return errs
}
