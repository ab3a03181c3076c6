package signer

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"time"

	certs "github.com/orkit/orkit/api/certificates"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/controller/certificates"
	"github.com/orkit/orkit/informer"
	"github.com/orkit/orkit/pki"
)

// Name is the controller's name.
const Name = "csrsigning"

// DefaultDuration is the longest validity the signer issues
// (kube-controller-manager's --cluster-signing-duration default).
const DefaultDuration = 365 * 24 * time.Hour

// backdate is how far before now a certificate becomes valid, for clocks
// that lag (Kubernetes backdates by five minutes).
const backdate = 5 * time.Minute

// ErrInvalidConfig reports a Config New cannot use.
var ErrInvalidConfig = errors.New("signer: invalid config")

// Config configures the signer. CA is required.
type Config struct {
	// CA signs the certificates (the cluster CA the API server trusts
	// for client certificates).
	CA *pki.CA
	// Duration is the longest validity issued; a request's
	// expirationSeconds may ask for less (not under 10 minutes). Default
	// DefaultDuration. Never beyond the CA's own expiry.
	Duration time.Duration
	// Logger; default the manager's.
	Logger *slog.Logger
}

// Controller issues certificates for approved requests to the signers it
// serves. It is a controller.Runnable; make it with New and add it to its
// Manager. Safe for concurrent use.
type Controller struct {
	*controller.Controller
	cfg    Config
	client *client.Client
	csrs   informer.Lister[*certs.CertificateSigningRequest]
	log    *slog.Logger
	now    func() time.Time
}

// New makes the signer over m's CertificateSigningRequest informer,
// writing certificates through m's client; add it to m (m.Add) to run it
// while m leads. It fails with ErrInvalidConfig without a manager or CA.
func New(m *controller.Manager, cfg Config) (*Controller, error) {
	if m == nil || cfg.CA == nil {
		return nil, fmt.Errorf("%w: a manager and a CA are required", ErrInvalidConfig)
	}
	if cfg.Duration <= 0 {
		cfg.Duration = DefaultDuration
	}
	if cfg.Logger == nil {
		cfg.Logger = m.Logger()
	}
	inf, err := controller.InformerFor[certs.CertificateSigningRequest](m, "")
	if err != nil {
		return nil, err
	}
	s := &Controller{cfg: cfg, client: m.Client(), csrs: inf.Lister(), log: cfg.Logger.With("controller", Name), now: time.Now}
	c, err := controller.New(Name, controller.ReconcilerFunc(s.reconcile), controller.Config{Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	controller.WatchObjects[*certs.CertificateSigningRequest](c, inf)
	s.Controller = c
	return s, nil
}

// serves reports the signers this controller answers.
func serves(signer string) bool {
	return signer == certs.KubeAPIServerClientKubeletSignerName || signer == certs.KubeAPIServerClientSignerName ||
		signer == certs.KubeletServingSignerName
}

func (s *Controller) reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	csr, err := s.csrs.Get("", req.Name)
	if apierrors.IsNotFound(err) {
		return controller.Result{}, nil
	}
	if err != nil {
		return controller.Result{}, err
	}
	if !serves(csr.Spec.SignerName) || !csr.IsApproved() || csr.IsFinished() {
		return controller.Result{}, nil
	}
	x509cr, err := certs.ParseRequest(csr.Spec.Request)
	if err == nil {
		err = check(csr, x509cr)
	}
	if err != nil {
		return controller.Result{}, s.fail(ctx, csr, err)
	}
	pemCert, err := s.cfg.CA.Sign(s.template(csr, x509cr), x509cr.PublicKey)
	if err != nil {
		return controller.Result{}, fmt.Errorf("sign csr %s: %w", csr.Name, err)
	}
	next := meta.DeepCopy(csr)
	next.Status.Certificate = pemCert
	if _, err := client.For[certs.CertificateSigningRequest](s.client, "").UpdateStatus(ctx, next); err != nil {
		return controller.Result{}, fmt.Errorf("write certificate of csr %s: %w", csr.Name, err)
	}
	s.log.Info("issued", "csr", csr.Name, "subject", x509cr.Subject.CommonName)
	return controller.Result{}, nil
}

// check applies the signer's rules: kubelet client requests must be
// kubelet client requests, kubelet serving requests kubelet serving
// requests; apiserver client requests need client usages.
func check(csr *certs.CertificateSigningRequest, req *x509.CertificateRequest) error {
	switch csr.Spec.SignerName {
	case certs.KubeAPIServerClientKubeletSignerName:
		return certificates.CheckNodeClient(req, csr.Spec.Usages)
	case certs.KubeletServingSignerName:
		return certificates.CheckKubeletServing(req, csr.Spec.Usages)
	}
	return certificates.CheckClientUsages(csr.Spec.Usages)
}

// template is the certificate for req: its subject, client auth (server
// auth and the request's DNS and IP names for a kubelet serving request), valid
// from a little before now for the shorter of the request's expiration
// and the signer's Duration, and never beyond the CA.
func (s *Controller) template(csr *certs.CertificateSigningRequest, req *x509.CertificateRequest) *x509.Certificate {
	now := s.now()
	d := s.cfg.Duration
	if e := csr.Spec.ExpirationSeconds; e != nil && time.Duration(*e)*time.Second < d {
		d = time.Duration(*e) * time.Second
	}
	notAfter := now.Add(d)
	if ca := s.cfg.CA.Cert.NotAfter; notAfter.After(ca) {
		notAfter = ca
	}
	ku := x509.KeyUsageDigitalSignature
	for _, u := range csr.Spec.Usages {
		if u == certs.UsageKeyEncipherment {
			ku |= x509.KeyUsageKeyEncipherment
		}
	}
	tmpl := &x509.Certificate{
		Subject: req.Subject, NotBefore: now.Add(-backdate), NotAfter: notAfter,
		KeyUsage: ku, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, BasicConstraintsValid: true,
	}
	if csr.Spec.SignerName == certs.KubeletServingSignerName {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
		tmpl.DNSNames, tmpl.IPAddresses = req.DNSNames, req.IPAddresses
	}
	return tmpl
}

// fail marks the request Failed with the reason, through the status
// subresource.
func (s *Controller) fail(ctx context.Context, csr *certs.CertificateSigningRequest, why error) error {
	next := meta.DeepCopy(csr)
	next.Status.Conditions = append(next.Status.Conditions, certs.CertificateSigningRequestCondition{
		Type: certs.CertificateFailed, Status: meta.ConditionTrue, Reason: "SignerValidationFailure", Message: why.Error(),
		LastUpdateTime: meta.Now(),
	})
	if _, err := client.For[certs.CertificateSigningRequest](s.client, "").UpdateStatus(ctx, next); err != nil {
		return fmt.Errorf("mark csr %s failed: %w", csr.Name, err)
	}
	s.log.Info("refused", "csr", csr.Name, "reason", why)
	return nil
}
