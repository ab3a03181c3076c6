package controlplane

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"time"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/apiserver"
	"github.com/orkit/orkit/client"
)

// The ConfigMap through which the control plane tells aggregated API
// servers whom to trust (kube-apiserver's cluster authentication trust
// controller writes the same one): k8s.io/apiserver's delegated
// authentication reads it with the Role
// extension-apiserver-authentication-reader.
const (
	AuthenticationConfigMapNamespace = "kube-system"
	AuthenticationConfigMapName      = "extension-apiserver-authentication"
)

// The keys of the authentication ConfigMap. The CA bundles are PEM; the
// others are JSON arrays of strings.
const (
	keyClientCA                  = "client-ca-file"
	keyRequestHeaderCA           = "requestheader-client-ca-file"
	keyRequestHeaderAllowedNames = "requestheader-allowed-names"
	keyRequestHeaderUsername     = "requestheader-username-headers"
	keyRequestHeaderGroup        = "requestheader-group-headers"
	keyRequestHeaderExtraPrefix  = "requestheader-extra-headers-prefix"
)

// authTrustEvery is how often the control plane checks the ConfigMap.
const authTrustEvery = time.Minute

// authenticationInfo is what one API server asks aggregated servers to
// trust: the CAs of the client certificates it accepts, and how it
// passes users on as a front proxy (the CA of its proxy client
// certificate, the names that certificate may carry and the headers).
type authenticationInfo struct {
	ClientCA            []*x509.Certificate
	RequestHeaderCA     []*x509.Certificate
	AllowedNames        []string
	UsernameHeaders     []string
	GroupHeaders        []string
	ExtraHeaderPrefixes []string
}

// authenticationData returns the ConfigMap data that trusts both what
// existing holds (other API servers of the cluster wrote it) and want,
// as kube-apiserver combines them: CA bundles are the union of the
// unexpired certificates, the string lists the union in order of first
// appearance. An existing entry that does not parse is replaced, so a
// damaged ConfigMap heals. The request-header keys are written only when
// there is a request-header CA.
func authenticationData(existing map[string]string, want authenticationInfo, now time.Time) (map[string]string, error) {
	have := parseAuthenticationData(existing)
	all := authenticationInfo{
		ClientCA:            unionCerts(now, have.ClientCA, want.ClientCA),
		RequestHeaderCA:     unionCerts(now, have.RequestHeaderCA, want.RequestHeaderCA),
		AllowedNames:        unionStrings(have.AllowedNames, want.AllowedNames),
		UsernameHeaders:     unionStrings(have.UsernameHeaders, want.UsernameHeaders),
		GroupHeaders:        unionStrings(have.GroupHeaders, want.GroupHeaders),
		ExtraHeaderPrefixes: unionStrings(have.ExtraHeaderPrefixes, want.ExtraHeaderPrefixes),
	}
	data := map[string]string{}
	if len(all.ClientCA) > 0 {
		data[keyClientCA] = string(encodeCerts(all.ClientCA))
	}
	if len(all.RequestHeaderCA) == 0 {
		return data, nil
	}
	data[keyRequestHeaderCA] = string(encodeCerts(all.RequestHeaderCA))
	for key, v := range map[string][]string{
		keyRequestHeaderAllowedNames: all.AllowedNames,
		keyRequestHeaderUsername:     all.UsernameHeaders,
		keyRequestHeaderGroup:        all.GroupHeaders,
		keyRequestHeaderExtraPrefix:  all.ExtraHeaderPrefixes,
	} {
		if v == nil {
			v = []string{} // "[]", as kube-apiserver writes an empty list
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("encode %s: %w", key, err)
		}
		data[key] = string(b)
	}
	return data, nil
}

// parseAuthenticationData reads the ConfigMap's data; entries that do
// not parse count as absent.
func parseAuthenticationData(data map[string]string) authenticationInfo {
	list := func(key string) []string {
		var v []string
		if json.Unmarshal([]byte(data[key]), &v) != nil {
			return nil
		}
		return v
	}
	return authenticationInfo{
		ClientCA:            parseCerts([]byte(data[keyClientCA])),
		RequestHeaderCA:     parseCerts([]byte(data[keyRequestHeaderCA])),
		AllowedNames:        list(keyRequestHeaderAllowedNames),
		UsernameHeaders:     list(keyRequestHeaderUsername),
		GroupHeaders:        list(keyRequestHeaderGroup),
		ExtraHeaderPrefixes: list(keyRequestHeaderExtraPrefix),
	}
}

// parseCerts returns the certificates of a PEM bundle, skipping blocks
// that are not certificates or do not parse.
func parseCerts(b []byte) []*x509.Certificate {
	var out []*x509.Certificate
	for {
		var block *pem.Block
		block, b = pem.Decode(b)
		if block == nil {
			return out
		}
		if block.Type != "CERTIFICATE" {
			continue
		}
		if c, err := x509.ParseCertificate(block.Bytes); err == nil {
			out = append(out, c)
		}
	}
}

func encodeCerts(certs []*x509.Certificate) []byte {
	var buf bytes.Buffer
	for _, c := range certs {
		_ = pem.Encode(&buf, &pem.Block{Type: "CERTIFICATE", Bytes: c.Raw}) // writes to memory
	}
	return buf.Bytes()
}

// unionCerts returns the certificates of both lists once each, in order,
// without those expired at now.
func unionCerts(now time.Time, lists ...[]*x509.Certificate) []*x509.Certificate {
	var out []*x509.Certificate
	for _, l := range lists {
		for _, c := range l {
			if now.After(c.NotAfter) || slices.ContainsFunc(out, func(o *x509.Certificate) bool { return o.Equal(c) }) {
				continue
			}
			out = append(out, c)
		}
	}
	return out
}

func unionStrings(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		for _, s := range l {
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// authTrust keeps kube-system/extension-apiserver-authentication trusting
// this API server, every authTrustEvery, until ctx ends. Owned by the
// control plane.
type authTrust struct {
	c    *client.Client
	want authenticationInfo
	log  *slog.Logger
}

func (a *authTrust) run(ctx context.Context) {
	t := time.NewTicker(authTrustEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := a.reconcile(ctx); err != nil && ctx.Err() == nil {
			a.log.Warn("controlplane: authentication configmap", "err", err)
		}
	}
}

// reconcile writes the ConfigMap when it lacks what this server needs
// trusted, creating it (and kube-system) if missing.
func (a *authTrust) reconcile(ctx context.Context) error {
	cms := client.For[core.ConfigMap](a.c, AuthenticationConfigMapNamespace)
	cur, err := cms.Get(ctx, AuthenticationConfigMapName)
	if apierrors.IsNotFound(err) {
		cur, err = nil, nil
	}
	if err != nil {
		return fmt.Errorf("get: %w", err)
	}
	var existing map[string]string
	if cur != nil {
		existing = cur.Data
	}
	data, err := authenticationData(existing, a.want, time.Now())
	if err != nil {
		return err
	}
	if cur == nil {
		if err := a.ensureNamespace(ctx); err != nil {
			return err
		}
		cm := &core.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: AuthenticationConfigMapName, Namespace: AuthenticationConfigMapNamespace}, Data: data}
		if _, err := cms.Create(ctx, cm); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create: %w", err)
		}
		return nil
	}
	if maps.Equal(cur.Data, data) {
		return nil
	}
	cur.Data = data
	if _, err := cms.Update(ctx, cur); err != nil {
		return fmt.Errorf("update: %w", err)
	}
	return nil
}

func (a *authTrust) ensureNamespace(ctx context.Context) error {
	nss := client.For[core.Namespace](a.c, "")
	if _, err := nss.Get(ctx, AuthenticationConfigMapNamespace); err == nil {
		return nil
	}
	_, err := nss.Create(ctx, &core.Namespace{ObjectMeta: meta.ObjectMeta{Name: AuthenticationConfigMapNamespace}})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create namespace %s: %w", AuthenticationConfigMapNamespace, err)
	}
	return nil
}

// FrontProxyClientCN is the subject of the API server's proxy client
// certificate (kubeadm's front-proxy-client), the one name the
// authentication ConfigMap allows to pass users in request headers.
const FrontProxyClientCN = "front-proxy-client"

// proxyClientCert issues the API server's proxy client certificate from
// the front-proxy CA.
func (cp *ControlPlane) proxyClientCert() (*tls.Certificate, error) {
	kp, err := cp.FrontProxyCA.IssueClient(FrontProxyClientCN)
	if err != nil {
		return nil, fmt.Errorf("controlplane: proxy client certificate: %w", err)
	}
	cert, err := kp.TLSCertificate()
	if err != nil {
		return nil, fmt.Errorf("controlplane: proxy client certificate: %w", err)
	}
	return &cert, nil
}

// authenticationInfo is what this control plane asks aggregated API
// servers to trust: client certificates of the cluster CA, and users in
// the apiserver.Remote* headers from the front-proxy client certificate.
func (cp *ControlPlane) authenticationInfo() authenticationInfo {
	return authenticationInfo{
		ClientCA:            []*x509.Certificate{cp.CA.Cert},
		RequestHeaderCA:     []*x509.Certificate{cp.FrontProxyCA.Cert},
		AllowedNames:        []string{FrontProxyClientCN},
		UsernameHeaders:     []string{apiserver.RemoteUserHeader},
		GroupHeaders:        []string{apiserver.RemoteGroupHeader},
		ExtraHeaderPrefixes: []string{apiserver.RemoteExtraHeaderPrefix},
	}
}

// startAuthTrust writes the authentication ConfigMap before Start
// returns and keeps it up to date until ctx ends.
func (cp *ControlPlane) startAuthTrust(ctx context.Context, cfg Config) error {
	ccfg, err := cp.ClientConfig("system:apiserver", "system:masters")
	if err != nil {
		return fmt.Errorf("controlplane: %w", err)
	}
	c, err := client.New(ccfg)
	if err != nil {
		return fmt.Errorf("controlplane: %w", err)
	}
	a := &authTrust{c: c, want: cp.authenticationInfo(), log: cfg.Logger}
	if err := a.reconcile(ctx); err != nil {
		return fmt.Errorf("controlplane: %s configmap: %w", AuthenticationConfigMapName, err)
	}
	go a.run(ctx)
	return nil
}
