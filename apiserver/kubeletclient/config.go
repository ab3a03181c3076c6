package kubeletclient

import (
	"crypto/tls"
	"crypto/x509"
	"slices"
	"time"

	"github.com/orkit/orkit/api/core"
)

// Config is how the API server reaches kubelets. The zero value presents
// no client certificate (orkit's kubelets then refuse every request) and
// verifies kubelets against the system roots; set ClientCert and RootCAs.
// A Config is copied by New and not retained.
type Config struct {
	// ClientCert is the API server's client certificate, presented to
	// every kubelet (--kubelet-client-certificate/--kubelet-client-key).
	// orkit's kubelet accepts a certificate signed by its ClientCA whose
	// CN is kubelet.APIServerClientCN ("kube-apiserver-kubelet-client").
	// nil presents none.
	ClientCert *tls.Certificate
	// RootCAs verifies the kubelets' serving certificates
	// (--kubelet-certificate-authority); nil uses the system roots.
	RootCAs *x509.CertPool
	// PreferredAddressTypes is the order in which a Node's addresses are
	// tried for its kubelet's host (--kubelet-preferred-address-types);
	// default InternalIP, ExternalIP, Hostname.
	PreferredAddressTypes []core.NodeAddressType
	// DialTimeout bounds connecting to a kubelet and the TLS handshake;
	// default 10 s.
	DialTimeout time.Duration
	// UpgradeTimeout bounds the wait for a kubelet's answer to a
	// connection upgrade (exec); default 30 s. Log streams have no such
	// bound: a followed log may stay silent for as long as the container.
	UpgradeTimeout time.Duration
}

// defaultPreferredAddressTypes is the address order when
// Config.PreferredAddressTypes is empty.
var defaultPreferredAddressTypes = [...]core.NodeAddressType{core.NodeInternalIP, core.NodeExternalIP, core.NodeHostName}

// withDefaults returns a copy of c with every zero field set.
func (c Config) withDefaults() Config {
	if len(c.PreferredAddressTypes) == 0 {
		c.PreferredAddressTypes = defaultPreferredAddressTypes[:]
	}
	c.PreferredAddressTypes = slices.Clone(c.PreferredAddressTypes)
	if c.DialTimeout <= 0 {
		c.DialTimeout = 10 * time.Second
	}
	if c.UpgradeTimeout <= 0 {
		c.UpgradeTimeout = 30 * time.Second
	}
	return c
}

// tlsConfig is the client TLS configuration of every kubelet connection.
func (c Config) tlsConfig() *tls.Config {
	cfg := &tls.Config{RootCAs: c.RootCAs, MinVersion: tls.VersionTLS12}
	if c.ClientCert != nil {
		cfg.Certificates = []tls.Certificate{*c.ClientCert}
	}
	return cfg
}
