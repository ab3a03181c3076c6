package namespace

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/client"
)

// Finalizer writes a namespace's spec.finalizers through the finalize
// subresource (PUT /api/v1/namespaces/<name>/finalize), which the typed
// client does not wrap.
type Finalizer interface {
	Finalize(ctx context.Context, ns *core.Namespace) error
}

// HTTPFinalizer is a Finalizer over HTTP with the credentials of a
// client.Config (CA, client certificate, bearer token or basic auth).
// Safe for concurrent use.
type HTTPFinalizer struct {
	host string
	cfg  client.Config
	hc   *http.Client
}

var _ Finalizer = (*HTTPFinalizer)(nil)

// NewHTTPFinalizer returns a finalizer for the server cfg names. It
// fails with ErrInvalidOptions when cfg's TLS material does not load.
func NewHTTPFinalizer(cfg *client.Config) (*HTTPFinalizer, error) {
	if cfg == nil || cfg.Host == "" {
		return nil, fmt.Errorf("%w: a client config with a host is required", ErrInvalidOptions)
	}
	tc := &tls.Config{InsecureSkipVerify: cfg.Insecure, ServerName: cfg.ServerName, MinVersion: tls.VersionTLS12} //nolint:gosec // as the config says
	if len(cfg.CAData) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(cfg.CAData) {
			return nil, fmt.Errorf("%w: no certificate in CAData", ErrInvalidOptions)
		}
		tc.RootCAs = pool
	}
	if len(cfg.CertData) > 0 {
		cert, err := tls.X509KeyPair(cfg.CertData, cfg.KeyData)
		if err != nil {
			return nil, fmt.Errorf("%w: client certificate: %w", ErrInvalidOptions, err)
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	hc := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: tc}}
	return &HTTPFinalizer{host: strings.TrimSuffix(cfg.Host, "/"), cfg: *cfg, hc: hc}, nil
}

// Finalize PUTs ns (its spec.finalizers as given) to the finalize
// subresource. Errors wrap ErrFinalize with the server's answer.
func (f *HTTPFinalizer) Finalize(ctx context.Context, ns *core.Namespace) error {
	cp := *ns
	cp.APIVersion, cp.Kind = "v1", "Namespace"
	body, err := json.Marshal(&cp)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, f.host+"/api/v1/namespaces/"+ns.Name+"/finalize", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	switch {
	case f.cfg.BearerToken != "":
		req.Header.Set("Authorization", "Bearer "+f.cfg.BearerToken)
	case f.cfg.Username != "":
		req.SetBasicAuth(f.cfg.Username, f.cfg.Password)
	}
	resp, err := f.hc.Do(req)
	if err != nil {
		return fmt.Errorf("%w: namespace %s: %w", ErrFinalize, ns.Name, err)
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode == http.StatusNotFound {
		return nil // already gone
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%w: namespace %s: %s: %s", ErrFinalize, ns.Name, resp.Status, bytes.TrimSpace(msg))
	}
	return nil
}

// CloseIdleConnections closes the finalizer's idle connections.
func (f *HTTPFinalizer) CloseIdleConnections() { f.hc.CloseIdleConnections() }
