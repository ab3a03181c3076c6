package certificates

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"net"
	"testing"

	"github.com/stretchr/testify/assert"

	certs "github.com/orkit/orkit/api/certificates"
)

func TestCheckNodeClient(t *testing.T) {
	client := []certs.KeyUsage{certs.UsageDigitalSignature, certs.UsageClientAuth}
	node := pkix.Name{CommonName: "system:node:n1", Organization: []string{"system:nodes"}}
	for _, tc := range []struct {
		name   string
		req    x509.CertificateRequest
		usages []certs.KeyUsage
		ok     bool
	}{
		{"node", x509.CertificateRequest{Subject: node}, client, true},
		{"with key encipherment", x509.CertificateRequest{Subject: node}, append(client, certs.UsageKeyEncipherment), true},
		{"other CN", x509.CertificateRequest{Subject: pkix.Name{CommonName: "admin", Organization: []string{"system:nodes"}}}, client, false},
		{"empty node name", x509.CertificateRequest{Subject: pkix.Name{CommonName: "system:node:", Organization: []string{"system:nodes"}}}, client, false},
		{"masters", x509.CertificateRequest{Subject: pkix.Name{CommonName: "system:node:n1", Organization: []string{"system:nodes", "system:masters"}}}, client, false},
		{"SAN", x509.CertificateRequest{Subject: node, IPAddresses: []net.IP{net.IPv4(10, 0, 0, 1)}}, client, false},
		{"server auth", x509.CertificateRequest{Subject: node}, []certs.KeyUsage{certs.UsageDigitalSignature, certs.UsageServerAuth}, false},
		{"no client auth", x509.CertificateRequest{Subject: node}, []certs.KeyUsage{certs.UsageDigitalSignature}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckNodeClient(&tc.req, tc.usages)
			if tc.ok {
				assert.NoError(t, err)
			} else {
				assert.ErrorIs(t, err, ErrNotNodeClient)
			}
		})
	}
}
