package certificates

import (
	"crypto/x509"
	"errors"
	"fmt"
	"slices"
	"strings"

	certs "github.com/orkit/orkit/api/certificates"
)

// ErrNotKubeletServing reports a request that is not a kubelet serving
// certificate request.
var ErrNotKubeletServing = errors.New("not a kubelet serving certificate request")

// CheckKubeletServing checks that req, asked with usages, is a kubelet
// serving certificate request as Kubernetes defines it (signer
// kubernetes.io/kubelet-serving): subject CN system:node:<name> and O
// exactly [system:nodes], at least one DNS or IP name and no email or URI
// names, usages "digital signature" and "server auth" (with "key
// encipherment" optionally). Errors wrap ErrNotKubeletServing.
func CheckKubeletServing(req *x509.CertificateRequest, usages []certs.KeyUsage) error {
	if !strings.HasPrefix(req.Subject.CommonName, NodeUserPrefix) || len(req.Subject.CommonName) == len(NodeUserPrefix) {
		return fmt.Errorf("%w: subject common name %q does not begin with %q", ErrNotKubeletServing, req.Subject.CommonName, NodeUserPrefix)
	}
	if !slices.Equal(req.Subject.Organization, []string{NodesGroup}) {
		return fmt.Errorf("%w: subject organization %v is not [%s]", ErrNotKubeletServing, req.Subject.Organization, NodesGroup)
	}
	if len(req.DNSNames)+len(req.IPAddresses) == 0 {
		return fmt.Errorf("%w: no DNS or IP subject alternative name", ErrNotKubeletServing)
	}
	if len(req.EmailAddresses)+len(req.URIs) > 0 {
		return fmt.Errorf("%w: email and URI subject alternative names are not allowed", ErrNotKubeletServing)
	}
	has := map[certs.KeyUsage]bool{}
	for _, u := range usages {
		switch u {
		case certs.UsageDigitalSignature, certs.UsageKeyEncipherment, certs.UsageServerAuth:
			has[u] = true
		default:
			return fmt.Errorf("%w: usage %q is not allowed", ErrNotKubeletServing, u)
		}
	}
	if !has[certs.UsageServerAuth] || !has[certs.UsageDigitalSignature] {
		return fmt.Errorf("%w: usages must include \"digital signature\" and \"server auth\"", ErrNotKubeletServing)
	}
	return nil
}
