package controlplane

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/authorization"
	"github.com/orkit/orkit/authn"
	"github.com/orkit/orkit/client"
)

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().String()
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
	return p
}

// start runs a control plane for the test with cfg (DataDir and Listen
// filled in); it stops when the test ends.
func start(t *testing.T, cfg Config) *ControlPlane {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	cfg.DataDir, cfg.Listen = t.TempDir(), freeAddr(t)
	cp, err := Start(ctx, cfg)
	require.NoError(t, err)
	return cp
}

// call sends one request to the control plane with the credentials set
// by auth and returns the status code and body.
func call(t *testing.T, cp *ControlPlane, method, path string, body any, auth func(*http.Request)) (int, string) {
	t.Helper()
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(cp.CA.CertPEM))
	hc := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		require.NoError(t, err)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, cp.URL+path, rd)
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	if auth != nil {
		auth(req)
	}
	resp, err := hc.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

func bearer(tok string) func(*http.Request) {
	return func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+tok) }
}

func basic(user, password string) func(*http.Request) {
	return func(r *http.Request) { r.SetBasicAuth(user, password) }
}

var whoamiBody = map[string]any{"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}

// whoami returns the user name the server sees (SelfSubjectReview).
func whoami(t *testing.T, cp *ControlPlane, auth func(*http.Request)) (int, string) {
	t.Helper()
	code, body := call(t, cp, http.MethodPost, "/apis/authentication.k8s.io/v1/selfsubjectreviews", whoamiBody, auth)
	if code != http.StatusCreated && code != http.StatusOK {
		return code, body
	}
	var r struct {
		Status struct {
			UserInfo struct {
				Username string   `json:"username"`
				Groups   []string `json:"groups"`
			} `json:"userInfo"`
		} `json:"status"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &r))
	return code, r.Status.UserInfo.Username + " " + strings.Join(r.Status.UserInfo.Groups, ",")
}

func TestABACPolicyFile(t *testing.T) {
	policy := writeFile(t, "policy.jsonl", `{"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy","spec":{"user":"alice","namespace":"*","resource":"pods","apiGroup":"","readonly":true}}
`)
	tokens := writeFile(t, "tokens.csv", "alice-token,alice,1\nbob-token,bob,2\n")
	cp := start(t, Config{Auth: AuthConfig{TokenFile: tokens,
		AuthorizationMode: "Node,RBAC,ABAC", AuthorizationPolicyFile: policy}})

	code, body := call(t, cp, http.MethodGet, "/api/v1/namespaces/default/pods", nil, bearer("alice-token"))
	assert.Equal(t, http.StatusOK, code, body)
	code, body = call(t, cp, http.MethodGet, "/api/v1/pods", nil, bearer("alice-token"))
	assert.Equal(t, http.StatusOK, code, "namespace * covers every namespace: %s", body)
	code, body = call(t, cp, http.MethodDelete, "/api/v1/namespaces/default/pods/x", nil, bearer("alice-token"))
	assert.Equal(t, http.StatusForbidden, code, "readonly: %s", body)
	code, _ = call(t, cp, http.MethodGet, "/api/v1/namespaces/default/secrets", nil, bearer("alice-token"))
	assert.Equal(t, http.StatusForbidden, code)
	code, body = call(t, cp, http.MethodGet, "/api/v1/namespaces/default/pods", nil, bearer("bob-token"))
	assert.Equal(t, http.StatusForbidden, code)
	assert.Contains(t, body, `User \"bob\" cannot list resource \"pods\"`)
	assert.Contains(t, body, "No policy matched.", "the ABAC reason is appended")

	// The rules review lists the policy's grant.
	code, body = call(t, cp, http.MethodPost, "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
		map[string]any{"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectRulesReview", "spec": map[string]any{"namespace": "team"}},
		bearer("alice-token"))
	require.Equal(t, http.StatusCreated, code, body)
	var review authorization.SelfSubjectRulesReview
	require.NoError(t, json.Unmarshal([]byte(body), &review))
	assert.Contains(t, review.Status.ResourceRules, authorization.ResourceRule{
		Verbs: []string{"get", "list", "watch"}, APIGroups: []string{""}, Resources: []string{"pods"}})
	assert.False(t, review.Status.Incomplete)
}

// reviewServer answers SubjectAccessReviews on 127.0.0.1 over TLS: it
// allows user "wendy" to read configmaps and has no opinion otherwise.
func reviewServer(t *testing.T) (*httptest.Server, *[]string) {
	t.Helper()
	var seen []string
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var sar authorization.SubjectAccessReview
		if r.Header.Get("Authorization") != "Bearer webhook-secret" || json.NewDecoder(r.Body).Decode(&sar) != nil {
			http.Error(w, "bad request", http.StatusUnauthorized)
			return
		}
		ra := sar.Spec.ResourceAttributes
		if ra != nil {
			seen = append(seen, sar.Spec.User+" "+ra.Verb+" "+ra.Resource)
		}
		sar.Status.Allowed = ra != nil && sar.Spec.User == "wendy" && ra.Resource == "configmaps" && ra.Verb != "delete"
		if sar.Status.Allowed {
			sar.Status.Reason = "wendy reads configmaps"
		}
		_ = json.NewEncoder(w).Encode(&sar)
	}))
	t.Cleanup(srv.Close)
	return srv, &seen
}

func webhookKubeconfig(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	kc := client.NewKubeconfig(srv.URL+"/authorize", caPEM, "kube-apiserver", client.AuthInfo{Token: "webhook-secret"})
	p := filepath.Join(t.TempDir(), "webhook.kubeconfig")
	require.NoError(t, kc.Write(p))
	return p
}

func TestWebhookAuthorizer(t *testing.T) {
	srv, seen := reviewServer(t)
	tokens := writeFile(t, "tokens.csv", "wendy-token,wendy,1\n")
	cp := start(t, Config{Auth: AuthConfig{TokenFile: tokens,
		AuthorizationMode: "Node,RBAC,Webhook", AuthorizationWebhookConfigFile: webhookKubeconfig(t, srv)}})

	code, body := call(t, cp, http.MethodGet, "/api/v1/namespaces/default/configmaps", nil, bearer("wendy-token"))
	assert.Equal(t, http.StatusOK, code, body)
	code, _ = call(t, cp, http.MethodGet, "/api/v1/namespaces/default/secrets", nil, bearer("wendy-token"))
	assert.Equal(t, http.StatusForbidden, code)
	assert.Contains(t, *seen, "wendy list configmaps")

	// The webhook cannot list rules: the review says so.
	code, body = call(t, cp, http.MethodPost, "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
		map[string]any{"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectRulesReview", "spec": map[string]any{"namespace": "default"}},
		bearer("wendy-token"))
	require.Equal(t, http.StatusCreated, code, body)
	var review authorization.SelfSubjectRulesReview
	require.NoError(t, json.Unmarshal([]byte(body), &review))
	assert.True(t, review.Status.Incomplete)
	assert.Equal(t, "webhook authorizer does not support user rule resolution", review.Status.EvaluationError)

	if _, err := exec.LookPath("kubectl"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("kubectl is required: %v", err)
		}
		t.Skipf("kubectl not found: %v", err)
	}
	kc := filepath.Join(t.TempDir(), "wendy.kubeconfig")
	require.NoError(t, cp.WriteTokenKubeconfig(kc, "wendy", "wendy-token"))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "kubectl", "--kubeconfig", kc, "auth", "can-i", "--list")
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), stderr.String())
	assert.Contains(t, stderr.String(), "Warning: the list may be incomplete: webhook authorizer does not support user rule resolution")
	assert.Contains(t, stdout.String(), "selfsubjectrulesreviews.authorization.k8s.io")
}

// oidcProvider serves discovery and a JWK Set on 127.0.0.1 over TLS and
// signs ID tokens with an ES256 key.
type oidcProvider struct {
	srv *httptest.Server
	key *ecdsa.PrivateKey
}

func newOIDCProvider(t *testing.T) *oidcProvider {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	p := &oidcProvider{key: key}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]string{"issuer": p.srv.URL, "jwks_uri": p.srv.URL + "/keys"})
	})
	mux.HandleFunc("/keys", func(w http.ResponseWriter, _ *http.Request) {
		b64 := base64.RawURLEncoding
		x, y := make([]byte, 32), make([]byte, 32)
		key.X.FillBytes(x) //nolint:staticcheck // the JWK needs the raw coordinates
		key.Y.FillBytes(y) //nolint:staticcheck
		_ = json.NewEncoder(w).Encode(map[string]any{"keys": []map[string]string{{
			"kty": "EC", "crv": "P-256", "kid": "k1", "use": "sig", "alg": "ES256",
			"x": b64.EncodeToString(x), "y": b64.EncodeToString(y)}}})
	})
	p.srv = httptest.NewTLSServer(mux)
	t.Cleanup(p.srv.Close)
	return p
}

// caFile writes the provider's serving certificate as a PEM file.
func (p *oidcProvider) caFile(t *testing.T) string {
	return writeFile(t, "oidc-ca.crt", string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: p.srv.Certificate().Raw})))
}

// token mints an ID token with claims over the defaults (iss, aud, exp, iat).
func (p *oidcProvider) token(t *testing.T, claims map[string]any) string {
	t.Helper()
	all := map[string]any{"iss": p.srv.URL, "aud": "orkit", "iat": time.Now().Unix(), "exp": time.Now().Add(time.Hour).Unix()}
	for k, v := range claims {
		all[k] = v
	}
	b64 := base64.RawURLEncoding
	h, err := json.Marshal(map[string]string{"alg": "ES256", "kid": "k1", "typ": "JWT"})
	require.NoError(t, err)
	c, err := json.Marshal(all)
	require.NoError(t, err)
	input := b64.EncodeToString(h) + "." + b64.EncodeToString(c)
	digest := sha256.Sum256([]byte(input))
	r, s, err := ecdsa.Sign(rand.Reader, p.key, digest[:])
	require.NoError(t, err)
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	return input + "." + b64.EncodeToString(sig)
}

func TestOIDCAuthenticator(t *testing.T) {
	p := newOIDCProvider(t)
	cp := start(t, Config{Auth: AuthConfig{OIDC: authn.Config{
		IssuerURL: p.srv.URL, ClientID: "orkit", UsernameClaim: "email", GroupsClaim: "groups", GroupsPrefix: "oidc:",
		CAFile: p.caFile(t)}}})

	tok := p.token(t, map[string]any{"sub": "123", "email": "jane@example.com", "email_verified": true, "groups": []string{"dev"}})
	code, who := whoami(t, cp, bearer(tok))
	require.Equal(t, http.StatusCreated, code, who)
	assert.Equal(t, "jane@example.com oidc:dev,system:authenticated", who)

	code, body := whoami(t, cp, bearer(p.token(t, map[string]any{"email": "jane@example.com", "aud": "someone-else"})))
	assert.Equal(t, http.StatusUnauthorized, code, body)
	code, body = whoami(t, cp, bearer(p.token(t, map[string]any{"email": "jane@example.com", "exp": time.Now().Add(-time.Hour).Unix()})))
	assert.Equal(t, http.StatusUnauthorized, code, body)
}

func TestBasicAuthAndAnonymous(t *testing.T) {
	users := writeFile(t, "users.csv", "s3cret,bert,7,\"ops,dev\"\n")
	cp := start(t, Config{Auth: AuthConfig{BasicAuthFile: users, AnonymousAuth: true}})
	code, who := whoami(t, cp, basic("bert", "s3cret"))
	require.Equal(t, http.StatusCreated, code, who)
	assert.Equal(t, "bert ops,dev,system:authenticated", who)
	code, _ = whoami(t, cp, basic("bert", "wrong"))
	assert.Equal(t, http.StatusUnauthorized, code, "a bad credential never falls back to anonymous")
	code, body := call(t, cp, http.MethodGet, "/version", nil, nil)
	assert.Equal(t, http.StatusOK, code, "system:public-info-viewer for anonymous: %s", body)
	code, body = call(t, cp, http.MethodGet, "/api/v1/namespaces", nil, nil)
	assert.Equal(t, http.StatusForbidden, code)
	assert.Contains(t, body, `User \"system:anonymous\" cannot list resource \"namespaces\"`)

	closed := start(t, Config{})
	code, _ = call(t, closed, http.MethodGet, "/api/v1/namespaces", nil, nil)
	assert.Equal(t, http.StatusUnauthorized, code, "anonymous requests are off by default")
}

func TestBadAuthConfig(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing")
	badPolicy := writeFile(t, "bad.jsonl", "{\"apiVersion\":\"abac.authorization.kubernetes.io/v1beta1\",\"kind\":\"Policy\",\"spec\":{}}\n")
	badKubeconfig := writeFile(t, "bad.kubeconfig", "clusters: [this is: not, valid")
	noContext := writeFile(t, "nocontext.kubeconfig", "apiVersion: v1\nkind: Config\nclusters: []\n")
	tests := []struct {
		name string
		auth AuthConfig
		want string
	}{
		{name: "unknown mode", auth: AuthConfig{AuthorizationMode: "Node,RBAC,Magic"},
			want: `authorization-mode "Magic" is not a valid mode`},
		{name: "empty mode in the list", auth: AuthConfig{AuthorizationMode: "Node,,RBAC"},
			want: `authorization-mode "" is not a valid mode`},
		{name: "mode twice", auth: AuthConfig{AuthorizationMode: "RBAC,Node,RBAC"},
			want: `has mode specified more than once`},
		{name: "ABAC without policy file", auth: AuthConfig{AuthorizationMode: "RBAC,ABAC"},
			want: "authorization-mode ABAC's authorization policy file not passed"},
		{name: "policy file without ABAC", auth: AuthConfig{AuthorizationPolicyFile: badPolicy},
			want: "cannot specify --authorization-policy-file without mode ABAC"},
		{name: "missing policy file", auth: AuthConfig{AuthorizationMode: "ABAC", AuthorizationPolicyFile: missing},
			want: "authorization-policy-file: invalid authorization policy: open " + missing},
		{name: "malformed policy file", auth: AuthConfig{AuthorizationMode: "ABAC", AuthorizationPolicyFile: badPolicy},
			want: badPolicy + ":1: spec names neither user nor group"},
		{name: "Webhook without config file", auth: AuthConfig{AuthorizationMode: "Webhook"},
			want: "authorization-mode Webhook's authorization config file not passed"},
		{name: "webhook config without Webhook", auth: AuthConfig{AuthorizationWebhookConfigFile: badKubeconfig},
			want: "cannot specify --authorization-webhook-config-file without mode Webhook"},
		{name: "missing webhook config", auth: AuthConfig{AuthorizationMode: "Webhook", AuthorizationWebhookConfigFile: missing},
			want: "authorization-webhook-config-file: read kubeconfig"},
		{name: "malformed webhook config", auth: AuthConfig{AuthorizationMode: "Webhook", AuthorizationWebhookConfigFile: badKubeconfig},
			want: "authorization-webhook-config-file: invalid kubeconfig"},
		{name: "webhook config without a context", auth: AuthConfig{AuthorizationMode: "Webhook", AuthorizationWebhookConfigFile: noContext},
			want: "current-context is not set"},
		{name: "missing basic auth file", auth: AuthConfig{BasicAuthFile: missing}, want: "basic-auth-file: "},
		{name: "malformed basic auth file", auth: AuthConfig{BasicAuthFile: writeFile(t, "u.csv", "onlyone\n")}, want: "basic-auth-file: "},
		{name: "missing token file", auth: AuthConfig{TokenFile: missing}, want: "token-auth-file: "},
		{name: "OIDC issuer not https", auth: AuthConfig{OIDC: authn.Config{IssuerURL: "http://127.0.0.1:1", ClientID: "x"}},
			want: `issuer URL "http://127.0.0.1:1" must be an https URL`},
		{name: "OIDC without client id", auth: AuthConfig{OIDC: authn.Config{IssuerURL: "https://127.0.0.1:1"}},
			want: "client ID is required"},
		{name: "OIDC CA file missing", auth: AuthConfig{OIDC: authn.Config{IssuerURL: "https://127.0.0.1:1", ClientID: "x", CAFile: missing}},
			want: "CA file: open " + missing},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			_, err := Start(ctx, Config{DataDir: t.TempDir(), Listen: freeAddr(t), Auth: tt.auth})
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrInvalidConfig), "%v", err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestParseAuthorizationModes(t *testing.T) {
	tests := []struct {
		in      string
		want    []string
		wantErr bool
	}{
		{in: "", want: []string{"Node", "RBAC"}},
		{in: "  ", want: []string{"Node", "RBAC"}},
		{in: "Node,RBAC,ABAC,Webhook", want: []string{"Node", "RBAC", "ABAC", "Webhook"}},
		{in: " RBAC , Node ", want: []string{"RBAC", "Node"}},
		{in: "AlwaysAllow", want: []string{"AlwaysAllow"}},
		{in: "rbac", wantErr: true},
		{in: "RBAC,", wantErr: true},
		{in: "Node,Node", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseAuthorizationModes(tt.in)
			if tt.wantErr {
				require.ErrorIs(t, err, ErrInvalidConfig)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func FuzzParseAuthorizationModes(f *testing.F) {
	for _, s := range []string{"", "Node,RBAC", "ABAC,Webhook,AlwaysAllow,AlwaysDeny", "Node,,", "RBAC,RBAC", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		modes, err := ParseAuthorizationModes(s)
		if err != nil {
			if !errors.Is(err, ErrInvalidConfig) {
				t.Fatalf("error %v does not wrap ErrInvalidConfig", err)
			}
			return
		}
		seen := map[string]bool{}
		for _, m := range modes {
			if seen[m] {
				t.Fatalf("%q: mode %q twice", s, m)
			}
			seen[m] = true
		}
		if len(modes) == 0 {
			t.Fatalf("%q: no modes and no error", s)
		}
	})
}

func ExampleParseAuthorizationModes() {
	modes, _ := ParseAuthorizationModes("Node,RBAC,Webhook")
	_, err := ParseAuthorizationModes("Node,Magic")
	fmt.Println(modes)
	fmt.Println(err)
	// Output:
	// [Node RBAC Webhook]
	// controlplane: invalid configuration: authorization-mode "Magic" is not a valid mode (valid: AlwaysAllow, AlwaysDeny, ABAC, Webhook, RBAC, Node)
}
