package certificates

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"net"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"

	certs "github.com/orkit/orkit/api/certificates"
)

func TestCheckKubeletServing(t *testing.T) {
	serving := []certs.KeyUsage{certs.UsageDigitalSignature, certs.UsageServerAuth}
	node := pkix.Name{CommonName: "system:node:n1", Organization: []string{"system:nodes"}}
	ip := []net.IP{net.IPv4(10, 0, 0, 1)}
	for _, tc := range []struct {
		name   string
		req    x509.CertificateRequest
		usages []certs.KeyUsage
		ok     bool
	}{
		{"IP", x509.CertificateRequest{Subject: node, IPAddresses: ip}, serving, true},
		{"DNS, key encipherment", x509.CertificateRequest{Subject: node, DNSNames: []string{"n1"}}, append(serving, certs.UsageKeyEncipherment), true},
		{"no names", x509.CertificateRequest{Subject: node}, serving, false},
		{"email", x509.CertificateRequest{Subject: node, IPAddresses: ip, EmailAddresses: []string{"a@b"}}, serving, false},
		{"URI", x509.CertificateRequest{Subject: node, IPAddresses: ip, URIs: []*url.URL{{Scheme: "spiffe", Host: "x"}}}, serving, false},
		{"other CN", x509.CertificateRequest{Subject: pkix.Name{CommonName: "n1", Organization: []string{"system:nodes"}}, IPAddresses: ip}, serving, false},
		{"other O", x509.CertificateRequest{Subject: pkix.Name{CommonName: "system:node:n1"}, IPAddresses: ip}, serving, false},
		{"client auth", x509.CertificateRequest{Subject: node, IPAddresses: ip}, append(serving, certs.UsageClientAuth), false},
		{"no server auth", x509.CertificateRequest{Subject: node, IPAddresses: ip}, []certs.KeyUsage{certs.UsageDigitalSignature}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckKubeletServing(&tc.req, tc.usages)
			if tc.ok {
				assert.NoError(t, err)
			} else {
				assert.ErrorIs(t, err, ErrNotKubeletServing)
			}
		})
	}
}
