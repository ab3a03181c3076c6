package etcdtest

import (
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"path/filepath"

	"github.com/orkit/orkit/pki"
)

// makeCerts makes a CA, a serving certificate for 127.0.0.1 and a client
// certificate in the cluster's directory, sets the client configuration
// and returns the members' TLS flags.
func (c *Cluster) makeCerts() ([]string, error) {
	ca, err := pki.NewCA("etcdtest-ca")
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(c.dir, "pki")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	if err := ca.Save(dir); err != nil {
		return nil, err
	}
	srv, err := ca.IssueServing("etcd", []string{"localhost"}, []net.IP{net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return nil, err
	}
	if err := srv.Write(dir, "server"); err != nil {
		return nil, err
	}
	cli, err := ca.IssueClient("root")
	if err != nil {
		return nil, err
	}
	pair, err := tls.X509KeyPair(cli.CertPEM, cli.KeyPEM)
	if err != nil {
		return nil, fmt.Errorf("client certificate: %w", err)
	}
	c.clientTLS = &tls.Config{RootCAs: ca.Pool(), Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}
	return []string{
		"--cert-file", filepath.Join(dir, "server.crt"),
		"--key-file", filepath.Join(dir, "server.key"),
		"--trusted-ca-file", filepath.Join(dir, "ca.crt"),
		"--client-cert-auth",
	}, nil
}
