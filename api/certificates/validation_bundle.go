package certificates

import (
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/validation"
)

// valueOmitted stands for a trust bundle in error messages, as
// Kubernetes leaves the PEM out of them.
const valueOmitted = "<value omitted>"

// ValidateClusterTrustBundle checks a new bundle: its name (prefixed by
// its signer name when it has one), its signer name, and its PEM trust
// anchors (ParseTrustBundle).
func ValidateClusterTrustBundle(b *ClusterTrustBundle) field.ErrorList {
	return validateClusterTrustBundle(b, true)
}

// ValidateClusterTrustBundleUpdate checks b replacing old: the signer
// name does not change; the trust bundle is parsed again only when it
// changed (so a stored bundle stays updatable if parsing ever gets
// stricter), as Kubernetes does.
func ValidateClusterTrustBundleUpdate(b, old *ClusterTrustBundle) field.ErrorList {
	errs := validateClusterTrustBundle(b, b.Spec.TrustBundle != old.Spec.TrustBundle)
	errs = append(errs, validation.ValidateObjectMetaUpdate(&b.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))...)
	return append(errs, validation.ValidateImmutableField(b.Spec.SignerName, old.Spec.SignerName, field.NewPath("spec", "signerName"))...)
}

func validateClusterTrustBundle(b *ClusterTrustBundle, parseBundle bool) field.ErrorList {
	errs := validation.ValidateObjectMeta(&b.ObjectMeta, false, validation.ClusterTrustBundleNameFunc(b.Spec.SignerName), field.NewPath("metadata"))
	if b.Spec.SignerName != "" {
		errs = append(errs, validation.ValidateSignerName(field.NewPath("spec", "signerName"), b.Spec.SignerName)...)
	}
	if !parseBundle {
		return errs
	}
	p := field.NewPath("spec", "trustBundle")
	if len(b.Spec.TrustBundle) > MaxTrustBundleSize {
		return append(errs, field.TooLong(p, "", MaxTrustBundleSize))
	}
	_, msgs := ParseTrustBundle(b.Spec.TrustBundle)
	for _, m := range msgs {
		errs = append(errs, field.Invalid(p, valueOmitted, m))
	}
	return errs
}
