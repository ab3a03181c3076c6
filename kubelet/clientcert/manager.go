package clientcert

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	certs "github.com/orkit/orkit/api/certificates"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
)

// Defaults of Config.
const (
	DefaultRenewFraction = 0.8
	// FileName is the file in Config.Dir holding the client certificate
	// and its key (PEM), as the kubelet's kubelet-client-current.pem.
	FileName = "kubelet-client-current.pem"
	// ServingFileName holds a serving certificate (SignerName
	// kubernetes.io/kubelet-serving) and its key, as the kubelet's
	// kubelet-server-current.pem.
	ServingFileName = "kubelet-server-current.pem"
	pollInterval    = 200 * time.Millisecond
	retryDelay      = 10 * time.Second
)

// Config configures a Manager. Server, CAData, NodeName and Dir are
// required; BootstrapToken (or Client) is needed until a certificate is in
// Dir. The zero SignerName makes a kubelet client certificate manager;
// certs.KubeletServingSignerName with DNSNames or IPAddresses makes a
// kubelet serving certificate manager (the kubelet's serverTLSBootstrap),
// which asks with Client, the node's own identity.
type Config struct {
	// Server is the API server URL (or the balancer in front of several).
	Server string
	// CAData is the cluster CA (PEM) the server's certificate is checked
	// against.
	CAData []byte
	// BootstrapToken ("<id>.<secret>") authenticates the first request.
	BootstrapToken string
	// NodeName is the node; the certificate is for system:node:<NodeName>
	// in system:nodes.
	NodeName string
	// Dir keeps FileName, or ServingFileName for a serving certificate
	// (mode 0600); created if missing.
	Dir string
	// SignerName is certs.KubeAPIServerClientKubeletSignerName (the zero
	// value) or certs.KubeletServingSignerName.
	SignerName string
	// DNSNames and IPAddresses are a serving certificate's names (one at
	// least); a client certificate has none.
	DNSNames    []string
	IPAddresses []net.IP
	// Client makes the requests when set (a serving certificate's: the
	// node's client); nil means the bootstrap token for the first one and
	// the current certificate for renewals.
	Client *client.Client
	// ExpirationSeconds is the validity asked for (at least 600); zero
	// leaves it to the signer.
	ExpirationSeconds int32
	// RenewFraction is the part of the validity after which Run renews;
	// default 0.8.
	RenewFraction float64
	// Logger; default slog.Default().
	Logger *slog.Logger
}

// Manager holds a node's current client certificate and renews it. Its
// methods are safe for concurrent use; Run renews until its ctx ends.
type Manager struct {
	cfg Config

	mu   sync.RWMutex
	cert *tls.Certificate // nil until Bootstrap
}

// New checks cfg and returns a Manager without a certificate.
func New(cfg Config) (*Manager, error) {
	if cfg.Server == "" || len(cfg.CAData) == 0 || cfg.NodeName == "" || cfg.Dir == "" {
		return nil, fmt.Errorf("%w: Server, CAData, NodeName and Dir are required", ErrInvalidConfig)
	}
	if cfg.ExpirationSeconds != 0 && cfg.ExpirationSeconds < 600 {
		return nil, fmt.Errorf("%w: ExpirationSeconds %d is under 600", ErrInvalidConfig, cfg.ExpirationSeconds)
	}
	switch cfg.SignerName {
	case "", certs.KubeAPIServerClientKubeletSignerName:
		cfg.SignerName = certs.KubeAPIServerClientKubeletSignerName
		if len(cfg.DNSNames)+len(cfg.IPAddresses) > 0 {
			return nil, fmt.Errorf("%w: a client certificate has no DNS or IP names", ErrInvalidConfig)
		}
	case certs.KubeletServingSignerName:
		if len(cfg.DNSNames)+len(cfg.IPAddresses) == 0 || cfg.Client == nil {
			return nil, fmt.Errorf("%w: a serving certificate needs DNSNames or IPAddresses and a Client", ErrInvalidConfig)
		}
	default:
		return nil, fmt.Errorf("%w: signer %q", ErrInvalidConfig, cfg.SignerName)
	}
	if cfg.RenewFraction <= 0 || cfg.RenewFraction >= 1 {
		cfg.RenewFraction = DefaultRenewFraction
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &Manager{cfg: cfg}, nil
}

// Bootstrap loads the certificate in Dir when it is still valid (and,
// for a serving certificate, has the configured names), or else obtains
// one with Client or the bootstrap token (blocking until the cluster
// answers or ctx ends). Errors: ErrDenied, ErrInvalidConfig without a
// token, or the API error.
func (m *Manager) Bootstrap(ctx context.Context) error {
	if c, err := m.load(); err == nil && time.Now().Before(c.Leaf.NotAfter) && m.sameNames(c.Leaf) {
		m.set(c)
		return nil
	}
	if m.cfg.Client != nil {
		return m.request(ctx, m.cfg.Client)
	}
	if m.cfg.BootstrapToken == "" {
		return fmt.Errorf("%w: no valid certificate in %s and no bootstrap token", ErrInvalidConfig, m.cfg.Dir)
	}
	cl, err := client.New(&client.Config{Host: m.cfg.Server, CAData: m.cfg.CAData, BearerToken: m.cfg.BootstrapToken})
	if err != nil {
		return err
	}
	defer cl.CloseIdleConnections()
	return m.request(ctx, cl)
}

// ClientConfig returns settings for clients that authenticate with the
// current certificate, whichever it is at each new connection.
func (m *Manager) ClientConfig() *client.Config {
	return &client.Config{Host: m.cfg.Server, CAData: m.cfg.CAData, GetClientCertificate: m.getCertificate}
}

// Current returns the current certificate (nil before Bootstrap).
func (m *Manager) Current() *x509.Certificate {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.cert == nil {
		return nil
	}
	return m.cert.Leaf
}

// Renew asks for a new certificate now, authenticating with the current
// one (the approver's selfnodeclient case), and switches to it.
func (m *Manager) Renew(ctx context.Context) error {
	if m.Current() == nil {
		return ErrNoCertificate
	}
	if m.cfg.Client != nil {
		return m.request(ctx, m.cfg.Client)
	}
	cl, err := client.New(m.ClientConfig())
	if err != nil {
		return err
	}
	defer cl.CloseIdleConnections()
	return m.request(ctx, cl)
}

// Run renews the certificate once RenewFraction of its validity has
// passed, again and again, until ctx ends (retrying failures every 10 s).
// It returns ErrNoCertificate when Bootstrap did not run, else nil.
func (m *Manager) Run(ctx context.Context) error {
	for {
		cur := m.Current()
		if cur == nil {
			return ErrNoCertificate
		}
		t := time.NewTimer(time.Until(RenewAt(cur, m.cfg.RenewFraction)))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
		if err := m.Renew(ctx); err != nil && ctx.Err() == nil {
			m.cfg.Logger.Warn("renew client certificate", "node", m.cfg.NodeName, "err", err)
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(retryDelay):
			}
		}
	}
}

// RenewAt is when a certificate is due for renewal: fraction of the way
// from its NotBefore to its NotAfter.
func RenewAt(c *x509.Certificate, fraction float64) time.Time {
	life := c.NotAfter.Sub(c.NotBefore)
	return c.NotBefore.Add(time.Duration(float64(life) * fraction))
}

// ServingCertificate returns the current certificate for a TLS server
// (tls.Config.GetCertificate): handshakes fail with ErrNoCertificate
// until Bootstrap has one.
func (m *Manager) ServingCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	return m.getCertificate(nil)
}

func (m *Manager) getCertificate(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.cert == nil {
		return nil, ErrNoCertificate
	}
	return m.cert, nil
}

func (m *Manager) set(c *tls.Certificate) {
	m.mu.Lock()
	m.cert = c
	m.mu.Unlock()
}

func (m *Manager) path() string {
	if m.cfg.SignerName == certs.KubeletServingSignerName {
		return filepath.Join(m.cfg.Dir, ServingFileName)
	}
	return filepath.Join(m.cfg.Dir, FileName)
}

// load reads the certificate and key from Dir.
func (m *Manager) load() (*tls.Certificate, error) {
	b, err := os.ReadFile(m.path())
	if err != nil {
		return nil, err
	}
	c, err := tls.X509KeyPair(b, b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.path(), err)
	}
	return &c, nil // Leaf is set by X509KeyPair
}

// request makes a key and a CertificateSigningRequest through cl, waits
// for the certificate, saves both and switches to them.
func (m *Manager) request(ctx context.Context, cl *client.Client) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{
		Subject:  pkix.Name{CommonName: "system:node:" + m.cfg.NodeName, Organization: []string{"system:nodes"}},
		DNSNames: m.cfg.DNSNames, IPAddresses: m.cfg.IPAddresses}, key)
	if err != nil {
		return err
	}
	usage := certs.UsageClientAuth
	if m.cfg.SignerName == certs.KubeletServingSignerName {
		usage = certs.UsageServerAuth
	}
	csr := &certs.CertificateSigningRequest{ObjectMeta: meta.ObjectMeta{GenerateName: "csr-"},
		Spec: certs.CertificateSigningRequestSpec{
			Request:    pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der}),
			SignerName: m.cfg.SignerName,
			Usages:     []certs.KeyUsage{certs.UsageDigitalSignature, usage},
		}}
	if m.cfg.ExpirationSeconds > 0 {
		csr.Spec.ExpirationSeconds = &m.cfg.ExpirationSeconds
	}
	csrs := client.For[certs.CertificateSigningRequest](cl, "")
	created, err := csrs.Create(ctx, csr)
	if err != nil {
		return fmt.Errorf("create certificate request: %w", err)
	}
	certPEM, err := waitIssued(ctx, csrs, created.Name)
	if err != nil {
		return err
	}
	return m.store(certPEM, key)
}

// waitIssued polls the request until it has a certificate, or is denied
// or failed.
func waitIssued(ctx context.Context, csrs *client.Resource[certs.CertificateSigningRequest, *certs.CertificateSigningRequest], name string) ([]byte, error) {
	for {
		csr, err := csrs.Get(ctx, name)
		if err != nil {
			return nil, fmt.Errorf("certificate request %s: %w", name, err)
		}
		switch {
		case len(csr.Status.Certificate) > 0:
			return csr.Status.Certificate, nil
		case csr.HasCondition(certs.CertificateDenied) || csr.HasCondition(certs.CertificateFailed):
			return nil, fmt.Errorf("%w: %s", ErrDenied, name)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(pollInterval):
		}
	}
}

// store writes the certificate and key to Dir (atomically) and switches
// to them.
func (m *Manager) store(certPEM []byte, key *ecdsa.PrivateKey) error {
	kd, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return err
	}
	data := append(append([]byte(nil), certPEM...), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kd})...)
	c, err := tls.X509KeyPair(data, data)
	if err != nil {
		return fmt.Errorf("issued certificate: %w", err)
	}
	if err := os.MkdirAll(m.cfg.Dir, 0o700); err != nil {
		return err
	}
	tmp := m.path() + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	if err := os.Rename(tmp, m.path()); err != nil {
		return err
	}
	m.set(&c)
	m.cfg.Logger.Info("client certificate", "node", m.cfg.NodeName, "notAfter", c.Leaf.NotAfter)
	return nil
}

// sameNames reports whether c has exactly the configured DNS and IP names.
func (m *Manager) sameNames(c *x509.Certificate) bool {
	if !slices.Equal(slices.Sorted(slices.Values(c.DNSNames)), slices.Sorted(slices.Values(m.cfg.DNSNames))) ||
		len(c.IPAddresses) != len(m.cfg.IPAddresses) {
		return false
	}
	for _, ip := range m.cfg.IPAddresses {
		if !slices.ContainsFunc(c.IPAddresses, ip.Equal) {
			return false
		}
	}
	return true
}
