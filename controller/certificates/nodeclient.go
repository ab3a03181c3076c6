package certificates

import (
	"crypto/x509"
	"errors"
	"fmt"
	"slices"
	"strings"

	certs "github.com/orkit/orkit/api/certificates"
)

// NodeUserPrefix starts every kubelet's user name.
const NodeUserPrefix = "system:node:"

// NodesGroup is every kubelet's group.
const NodesGroup = "system:nodes"

// ErrNotNodeClient reports a request that is not a kubelet client
// certificate request.
var ErrNotNodeClient = errors.New("not a kubelet client certificate request")

// CheckNodeClient checks that req, asked with usages, is a kubelet client
// certificate request as Kubernetes defines it: subject CN
// system:node:<name> and O exactly [system:nodes], no DNS, email, IP or
// URI names, and usages "digital signature" and "client auth" (with
// "key encipherment" optionally). Errors wrap ErrNotNodeClient.
func CheckNodeClient(req *x509.CertificateRequest, usages []certs.KeyUsage) error {
	if !strings.HasPrefix(req.Subject.CommonName, NodeUserPrefix) || len(req.Subject.CommonName) == len(NodeUserPrefix) {
		return fmt.Errorf("%w: subject common name %q does not begin with %q", ErrNotNodeClient, req.Subject.CommonName, NodeUserPrefix)
	}
	if !slices.Equal(req.Subject.Organization, []string{NodesGroup}) {
		return fmt.Errorf("%w: subject organization %v is not [%s]", ErrNotNodeClient, req.Subject.Organization, NodesGroup)
	}
	if len(req.DNSNames)+len(req.EmailAddresses)+len(req.IPAddresses)+len(req.URIs) > 0 {
		return fmt.Errorf("%w: subject alternative names are not allowed", ErrNotNodeClient)
	}
	return CheckClientUsages(usages)
}

// CheckClientUsages accepts the usages of a client certificate:
// "client auth" and "digital signature", and optionally "key
// encipherment"; nothing else.
func CheckClientUsages(usages []certs.KeyUsage) error {
	has := map[certs.KeyUsage]bool{}
	for _, u := range usages {
		switch u {
		case certs.UsageDigitalSignature, certs.UsageKeyEncipherment, certs.UsageClientAuth:
			has[u] = true
		default:
			return fmt.Errorf("%w: usage %q is not allowed", ErrNotNodeClient, u)
		}
	}
	if !has[certs.UsageClientAuth] || !has[certs.UsageDigitalSignature] {
		return fmt.Errorf("%w: usages must include \"digital signature\" and \"client auth\"", ErrNotNodeClient)
	}
	return nil
}
