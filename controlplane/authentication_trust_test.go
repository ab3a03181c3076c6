package controlplane

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/pki"
)

func newTestCA(t *testing.T, cn string) *pki.CA {
	t.Helper()
	ca, err := pki.NewCA(cn)
	require.NoError(t, err)
	return ca
}

func jsonList(t *testing.T, s string) []string {
	t.Helper()
	var v []string
	require.NoError(t, json.Unmarshal([]byte(s), &v), "%q", s)
	return v
}

func certNames(certs []*x509.Certificate) []string {
	var out []string
	for _, c := range certs {
		out = append(out, c.Subject.CommonName)
	}
	return out
}

// TestAuthenticationData: the ConfigMap's data trusts what it held and
// what this server needs, as kube-apiserver's cluster authentication
// trust controller combines them.
func TestAuthenticationData(t *testing.T) {
	now := time.Now()
	clientCA, frontCA, otherCA := newTestCA(t, "client-ca"), newTestCA(t, "front-proxy-ca"), newTestCA(t, "other-front-proxy-ca")
	expired := newTestCA(t, "expired-ca")
	want := authenticationInfo{
		ClientCA: []*x509.Certificate{clientCA.Cert}, RequestHeaderCA: []*x509.Certificate{frontCA.Cert},
		AllowedNames: []string{"front-proxy-client"}, UsernameHeaders: []string{"X-Remote-User"},
		GroupHeaders: []string{"X-Remote-Group"}, ExtraHeaderPrefixes: []string{"X-Remote-Extra-"},
	}
	tests := []struct {
		name         string
		existing     map[string]string
		want         authenticationInfo
		at           time.Time
		clientCAs    []string
		requestCAs   []string
		allowedNames []string
		userHeaders  []string
	}{
		{name: "empty", want: want, at: now, clientCAs: []string{"client-ca"}, requestCAs: []string{"front-proxy-ca"},
			allowedNames: []string{"front-proxy-client"}, userHeaders: []string{"X-Remote-User"}},
		{name: "another server's CA and names are kept", want: want, at: now,
			existing: map[string]string{
				keyRequestHeaderCA:           string(otherCA.CertPEM),
				keyRequestHeaderAllowedNames: `["aggregator"]`,
				keyRequestHeaderUsername:     `["X-Remote-User"]`,
			},
			clientCAs: []string{"client-ca"}, requestCAs: []string{"other-front-proxy-ca", "front-proxy-ca"},
			allowedNames: []string{"aggregator", "front-proxy-client"}, userHeaders: []string{"X-Remote-User"}},
		{name: "own CA is not repeated", want: want, at: now,
			existing:  map[string]string{keyClientCA: string(clientCA.CertPEM) + string(clientCA.CertPEM)},
			clientCAs: []string{"client-ca"}, requestCAs: []string{"front-proxy-ca"},
			allowedNames: []string{"front-proxy-client"}, userHeaders: []string{"X-Remote-User"}},
		{name: "expired certificates are dropped", want: want, at: expired.Cert.NotAfter.Add(time.Hour),
			existing: map[string]string{keyClientCA: string(expired.CertPEM)},
			// every test CA expires together: none is left
			clientCAs: nil, requestCAs: nil},
		{name: "malformed entries are replaced", want: want, at: now,
			existing: map[string]string{
				keyClientCA:                  "-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n",
				keyRequestHeaderCA:           "garbage",
				keyRequestHeaderAllowedNames: `{"not":"a list"}`,
				keyRequestHeaderUsername:     `[`,
			},
			clientCAs: []string{"client-ca"}, requestCAs: []string{"front-proxy-ca"},
			allowedNames: []string{"front-proxy-client"}, userHeaders: []string{"X-Remote-User"}},
		{name: "no request-header CA: client CA only",
			want: authenticationInfo{ClientCA: []*x509.Certificate{clientCA.Cert}}, at: now,
			clientCAs: []string{"client-ca"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := authenticationData(tt.existing, tt.want, tt.at)
			require.NoError(t, err)
			assert.Equal(t, tt.clientCAs, certNames(parseCerts([]byte(data[keyClientCA]))))
			if tt.requestCAs == nil {
				for _, k := range []string{keyRequestHeaderCA, keyRequestHeaderAllowedNames, keyRequestHeaderUsername,
					keyRequestHeaderGroup, keyRequestHeaderExtraPrefix} {
					assert.NotContains(t, data, k)
				}
				return
			}
			assert.Equal(t, tt.requestCAs, certNames(parseCerts([]byte(data[keyRequestHeaderCA]))))
			assert.Equal(t, tt.allowedNames, jsonList(t, data[keyRequestHeaderAllowedNames]))
			assert.Equal(t, tt.userHeaders, jsonList(t, data[keyRequestHeaderUsername]))
			assert.Equal(t, []string{"X-Remote-Group"}, jsonList(t, data[keyRequestHeaderGroup]))
			assert.Equal(t, []string{"X-Remote-Extra-"}, jsonList(t, data[keyRequestHeaderExtraPrefix]))
		})
	}
}

// TestAuthenticationDataEmptyLists: an empty list is written as "[]", as
// kube-apiserver writes it, never "null".
func TestAuthenticationDataEmptyLists(t *testing.T) {
	data, err := authenticationData(nil, authenticationInfo{RequestHeaderCA: []*x509.Certificate{newTestCA(t, "fp").Cert}}, time.Now())
	require.NoError(t, err)
	assert.Equal(t, "[]", data[keyRequestHeaderAllowedNames])
	assert.Equal(t, "[]", data[keyRequestHeaderExtraPrefix])
}

// TestFrontProxyTrust: a control plane publishes
// kube-system/extension-apiserver-authentication (its client CA, its
// front-proxy CA, front-proxy-client and the X-Remote-* headers), keeps
// its front-proxy CA across restarts, and presents a proxy client
// certificate that CA verifies for the name the ConfigMap allows.
func TestFrontProxyTrust(t *testing.T) {
	dir, addr := t.TempDir(), freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	cp, err := Start(ctx, Config{DataDir: dir, Listen: addr})
	require.NoError(t, err)
	require.NotNil(t, cp.FrontProxyCA)
	assert.NotEqual(t, cp.CA.CertPEM, cp.FrontProxyCA.CertPEM, "the front proxy has a CA of its own, as kubeadm's")

	cfg, err := cp.ClientConfig("admin", "system:masters")
	require.NoError(t, err)
	c, err := client.New(cfg)
	require.NoError(t, err)
	cm, err := client.For[core.ConfigMap](c, AuthenticationConfigMapNamespace).Get(ctx, AuthenticationConfigMapName)
	require.NoError(t, err)
	assert.Equal(t, string(cp.CA.CertPEM), cm.Data["client-ca-file"])
	assert.Equal(t, string(cp.FrontProxyCA.CertPEM), cm.Data["requestheader-client-ca-file"])
	assert.JSONEq(t, `["front-proxy-client"]`, cm.Data["requestheader-allowed-names"])
	assert.JSONEq(t, `["X-Remote-User"]`, cm.Data["requestheader-username-headers"])
	assert.JSONEq(t, `["X-Remote-Group"]`, cm.Data["requestheader-group-headers"])
	assert.JSONEq(t, `["X-Remote-Extra-"]`, cm.Data["requestheader-extra-headers-prefix"])

	proxy, err := cp.proxyClientCert()
	require.NoError(t, err)
	leaf, err := x509.ParseCertificate(proxy.Certificate[0])
	require.NoError(t, err)
	assert.Equal(t, FrontProxyClientCN, leaf.Subject.CommonName)
	_, err = leaf.Verify(x509.VerifyOptions{Roots: cp.FrontProxyCA.Pool(), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
	assert.NoError(t, err, "the front-proxy CA verifies the proxy client certificate")
	_, err = leaf.Verify(x509.VerifyOptions{Roots: cp.CA.Pool(), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
	assert.Error(t, err, "the cluster CA does not: the proxy certificate is no API client credential")

	c.CloseIdleConnections()
	cancel()
	waitDone(t, cp)

	ctx2, cancel2 := context.WithCancel(context.Background())
	t.Cleanup(cancel2)
	cp2, err := Start(ctx2, Config{DataDir: dir, Listen: addr})
	require.NoError(t, err)
	assert.Equal(t, cp.FrontProxyCA.CertPEM, cp2.FrontProxyCA.CertPEM, "the front-proxy CA is kept in DATA/pki/front-proxy")
	cancel2()
	waitDone(t, cp2)
}

// TestFrontProxyCAGiven: a given front-proxy CA is used, and a second
// server of the cluster with another one adds it to the ConfigMap rather
// than replacing the first's.
func TestFrontProxyCAGiven(t *testing.T) {
	dir, addr := t.TempDir(), freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	first := newTestCA(t, "first-front-proxy-ca")
	cp, err := Start(ctx, Config{DataDir: dir, Listen: addr, PKI: PKIConfig{FrontProxyCA: first}})
	require.NoError(t, err)
	assert.Same(t, first, cp.FrontProxyCA)

	second := newTestCA(t, "second-front-proxy-ca")
	cp2 := &ControlPlane{CA: cp.CA, FrontProxyCA: second, URL: cp.URL}
	cfg, err := cp.ClientConfig("admin", "system:masters")
	require.NoError(t, err)
	c, err := client.New(cfg)
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	a := &authTrust{c: c, want: cp2.authenticationInfo()}
	require.NoError(t, a.reconcile(ctx))
	cm, err := client.For[core.ConfigMap](c, AuthenticationConfigMapNamespace).Get(ctx, AuthenticationConfigMapName)
	require.NoError(t, err)
	bundle := cm.Data["requestheader-client-ca-file"]
	assert.Equal(t, []string{"first-front-proxy-ca", "second-front-proxy-ca"}, certNames(parseCerts([]byte(bundle))))
	assert.Equal(t, 1, strings.Count(cm.Data["requestheader-allowed-names"], FrontProxyClientCN))
	require.NoError(t, a.reconcile(ctx), "a second pass with nothing new writes nothing")
}
