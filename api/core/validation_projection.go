package core

import (
	"fmt"

	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/validation"
)

// Limits of podCertificate projections, as in Kubernetes (the same as
// PodCertificateRequests').
const (
	minPodCertificateExpiration           = 60 * 60
	maxPodCertificateExpiration           = 91 * 24 * 60 * 60
	maxKubernetesPodCertificateExpiration = 24 * 60 * 60
)

// podCertificateKeyTypes are the key types a podCertificate source may ask for.
var podCertificateKeyTypes = []string{"RSA3072", "RSA4096", "ECDSAP256", "ECDSAP384", "ECDSAP521", "ED25519"}

// projectedPaths are the file paths of a projected volume's
// clusterTrustBundle and podCertificate sources seen so far.
type projectedPaths map[string]bool

// add records path, reporting it when another source already wrote it.
func (ps projectedPaths) add(p *field.Path, path string) field.ErrorList {
	if path == "" {
		return nil
	}
	if ps[path] {
		return field.ErrorList{field.Invalid(p, path, "conflicting duplicate paths")}
	}
	ps[path] = true
	return nil
}

// validateClusterTrustBundleProjection checks a clusterTrustBundle
// source: a bundle name (valid for the signer its prefix implies, no
// label selector) or a signer name with a valid label selector, and a
// relative path.
func validateClusterTrustBundleProjection(c *ClusterTrustBundleProjection, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch {
	case c.Name != nil && c.SignerName != nil:
		errs = append(errs, field.Invalid(p, "", "only one of name and signerName may be used"))
	case c.Name != nil:
		if *c.Name == "" {
			errs = append(errs, field.Required(p.Child("name"), "must be a valid object name"))
		}
		signer, _ := validation.SignerNameFromClusterTrustBundleName(*c.Name)
		for _, msg := range validation.ClusterTrustBundleNameFunc(signer)(*c.Name, false) {
			errs = append(errs, field.Invalid(p.Child("name"), *c.Name, "not a valid clustertrustbundlename: "+msg))
		}
		if c.LabelSelector != nil {
			errs = append(errs, field.Invalid(p.Child("labelSelector"), "", "labelSelector must be unset if name is specified"))
		}
	case c.SignerName != nil:
		if *c.SignerName == "" {
			errs = append(errs, field.Required(p.Child("signerName"), "must be a valid signer name"))
		} else {
			errs = append(errs, validation.ValidateSignerName(p.Child("signerName"), *c.SignerName)...)
		}
		errs = append(errs, validation.ValidateLabelSelector(c.LabelSelector, p.Child("labelSelector"))...)
	default:
		errs = append(errs, field.Required(p, "either name or signerName must be specified"))
	}
	if c.Path == "" {
		errs = append(errs, field.Required(p.Child("path"), ""))
	}
	return append(errs, validateLocalDescendingPath(c.Path, p.Child("path"))...)
}

// validatePodCertificateProjection checks a podCertificate source: a
// signer name, user annotations, a known key type, maxExpirationSeconds
// from an hour to 91 days (a day for kubernetes.io signers) and at least
// one relative file path.
func validatePodCertificateProjection(c *PodCertificateProjection, p *field.Path) field.ErrorList {
	errs := validation.ValidateSignerName(p.Child("signerName"), c.SignerName)
	errs = append(errs, validation.ValidateUserAnnotations(c.UserAnnotations, p.Child("userAnnotations"))...)
	known := false
	for _, k := range podCertificateKeyTypes {
		known = known || k == c.KeyType
	}
	if !known {
		errs = append(errs, field.NotSupported(p.Child("keyType"), c.KeyType, podCertificateKeyTypes))
	}
	if e := c.MaxExpirationSeconds; e != nil {
		if *e < minPodCertificateExpiration {
			errs = append(errs, field.Invalid(p.Child("maxExpirationSeconds"), *e,
				fmt.Sprintf("if provided, maxExpirationSeconds must be >= %d", minPodCertificateExpiration)))
		}
		hi := int32(maxPodCertificateExpiration)
		if validation.IsKubernetesSignerName(c.SignerName) {
			hi = maxKubernetesPodCertificateExpiration
		}
		if *e > hi {
			errs = append(errs, field.Invalid(p.Child("maxExpirationSeconds"), *e,
				fmt.Sprintf("if provided, maxExpirationSeconds must be <= %d", hi)))
		}
	}
	n := 0
	for _, f := range []struct{ name, path string }{
		{"credentialBundlePath", c.CredentialBundlePath}, {"keyPath", c.KeyPath}, {"certificateChainPath", c.CertificateChainPath},
	} {
		if f.path != "" {
			n++
			errs = append(errs, validateLocalDescendingPath(f.path, p.Child(f.name))...)
		}
	}
	if n == 0 {
		errs = append(errs, field.Required(p, "specify at least one of credentialBundlePath, keyPath, and certificateChainPath"))
	}
	return errs
}
