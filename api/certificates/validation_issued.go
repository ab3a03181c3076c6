package certificates

import (
	"crypto"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net/mail"
	"strings"
	"time"

	"github.com/orkit/orkit/api/field"
)

// validateIssued checks the status of a request moving to Issued.
func validateIssued(r, old *PodCertificateRequest, now time.Time) field.ErrorList {
	st := &r.Status
	if len(st.CertificateChain) > MaxCertificateChainSize {
		return field.ErrorList{field.TooLong(chainPath, "", MaxCertificateChainSize)}
	}
	leafBlock, rest := pem.Decode([]byte(st.CertificateChain))
	switch {
	case leafBlock == nil:
		return field.ErrorList{field.Invalid(chainPath, "", "issued certificate chain must contain at least one certificate")}
	case leafBlock.Type != "CERTIFICATE":
		return field.ErrorList{field.Invalid(chainPath, "", "issued certificate chain must consist entirely of CERTIFICATE PEM blocks")}
	}
	leaf, err := x509.ParseCertificate(leafBlock.Bytes)
	if err != nil {
		return field.ErrorList{field.Invalid(chainPath, "", "leaf certificate does not parse as valid X.509")}
	}
	if errs := checkLeafNames(leaf); len(errs) > 0 {
		return errs
	}
	if errs := checkIssuedKey(leaf, old); len(errs) > 0 {
		return errs
	}
	if errs := checkIssuedTimes(r, leaf, now); len(errs) > 0 {
		return errs
	}
	for {
		var b *pem.Block
		if b, rest = pem.Decode(rest); b == nil {
			return nil
		}
		if b.Type != "CERTIFICATE" {
			return field.ErrorList{field.Invalid(chainPath, "", "issued certificate chain must consist entirely of CERTIFICATE PEM blocks")}
		}
		if _, err := x509.ParseCertificate(b.Bytes); err != nil {
			return field.ErrorList{field.Invalid(chainPath, "", "intermediate certificate does not parse as valid X.509")}
		}
	}
}

// checkLeafNames rejects malformed DNS names and e-mail addresses.
func checkLeafNames(leaf *x509.Certificate) field.ErrorList {
	var errs field.ErrorList
	for _, n := range leaf.DNSNames {
		switch {
		case n == "":
			errs = append(errs, field.Invalid(chainPath, n, "leaf certificate should not contain empty DNSName"))
		case strings.Contains(n, ".."):
			errs = append(errs, field.Invalid(chainPath, n, "leaf certificate's DNSName should not contain '..'"))
		case strings.HasPrefix(n, ".") || strings.HasSuffix(n, "."):
			errs = append(errs, field.Invalid(chainPath, n, "leaf certificate's DNSName should not start or end with '.'"))
		}
	}
	for _, e := range leaf.EmailAddresses {
		if _, err := mail.ParseAddress(e); err != nil {
			errs = append(errs, field.Invalid(chainPath, e, "leaf certificate should not contain invalid EmailAddress"))
		}
	}
	return errs
}

// checkIssuedKey requires the leaf to certify the key of the request.
func checkIssuedKey(leaf *x509.Certificate, old *PodCertificateRequest) field.ErrorList {
	req, err := x509.ParseCertificateRequest(old.Spec.StubPKCS10Request)
	if err != nil {
		return field.ErrorList{field.Invalid(pkcs10Path, "", "must be a valid PKCS#10 CSR")}
	}
	want, ok := req.PublicKey.(interface{ Equal(crypto.PublicKey) bool })
	if !ok || !want.Equal(leaf.PublicKey) {
		return field.ErrorList{field.Invalid(chainPath, "", "leaf certificate was not issued to the requested public key")}
	}
	return nil
}

// checkIssuedTimes checks notBefore, notAfter and beginRefreshAt against
// the leaf, the clock and the requested lifetime.
func checkIssuedTimes(r *PodCertificateRequest, leaf *x509.Certificate, now time.Time) field.ErrorList {
	st := &r.Status
	var errs field.ErrorList
	if st.NotBefore == nil {
		errs = append(errs, field.Required(notBeforePath, "must be present and consistent with the issued certificate"))
	}
	if st.NotAfter == nil {
		errs = append(errs, field.Required(notAfterPath, "must be present and consistent with the issued certificate"))
	}
	if st.BeginRefreshAt == nil {
		errs = append(errs, field.Required(refreshPath, "must be present and in the range [notbefore+10min, notafter-10min]"))
	}
	if len(errs) > 0 {
		return errs
	}
	nb, na, br := st.NotBefore.Time, st.NotAfter.Time, st.BeginRefreshAt.Time
	lifetime := leaf.NotAfter.Sub(leaf.NotBefore)
	maxLife := time.Duration(DefaultMaxExpirationSeconds) * time.Second
	if r.Spec.MaxExpirationSeconds != nil {
		maxLife = time.Duration(*r.Spec.MaxExpirationSeconds) * time.Second
	}
	switch {
	case !nb.Equal(leaf.NotBefore):
		return field.ErrorList{field.Invalid(notBeforePath, nb, "must be set to the NotBefore time encoded in the leaf certificate")}
	case nb.Before(now.Add(-statusClockSkew)) || nb.After(now.Add(statusClockSkew)):
		return field.ErrorList{field.Invalid(notBeforePath, nb, "must be set to within 5 minutes of kube-apiserver's current time")}
	case !na.Equal(leaf.NotAfter):
		return field.ErrorList{field.Invalid(notAfterPath, na, "must be set to the NotAfter time encoded in the leaf certificate")}
	case lifetime < time.Hour:
		return field.ErrorList{field.Invalid(chainPath, lifetime.String(), "leaf certificate lifetime must be >= 1 hour")}
	case lifetime > maxLife:
		return field.ErrorList{field.Invalid(chainPath, lifetime.String(),
			fmt.Sprintf("leaf certificate lifetime must be <= spec.maxExpirationSeconds (%d)", int64(maxLife/time.Second)))}
	case br.Before(nb.Add(minRefreshMargin)):
		return field.ErrorList{field.Invalid(refreshPath, br, "must be at least 10 minutes after status.notBefore")}
	case br.After(na.Add(-minRefreshMargin)):
		return field.ErrorList{field.Invalid(refreshPath, br, "must be at least 10 minutes before status.notAfter")}
	}
	return nil
}
