package controlplane

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/authn"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/pki"
)

// kubectlOrSkip returns kubectl's path; with CI=true a missing kubectl
// fails the test.
func kubectlOrSkip(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("kubectl")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("kubectl is required: %v", err)
		}
		t.Skipf("kubectl not found: %v", err)
	}
	return p
}

// runKubectl runs kubectl against cp as admin and returns its trimmed
// stdout, failing the test on an error.
func runKubectl(t *testing.T, cp *ControlPlane, args ...string) string {
	t.Helper()
	out, err := kubectlOut(t, cp, args...)
	require.NoError(t, err, out)
	return strings.TrimSpace(out)
}

func kubectlOut(t *testing.T, cp *ControlPlane, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, kubectlOrSkip(t), append([]string{"--kubeconfig", cp.AdminKubeconfig}, args...)...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// tokenKubeconfig writes a kubeconfig that authenticates with tok.
func tokenKubeconfig(t *testing.T, cp *ControlPlane, tok string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "token.kubeconfig")
	require.NoError(t, cp.WriteTokenKubeconfig(p, "robot", tok))
	return p
}

func TestServiceAccountTokensWithKubectl(t *testing.T) {
	kubectlOrSkip(t)
	cp := start(t, Config{})
	runKubectl(t, cp, "create", "serviceaccount", "robot")

	tok := runKubectl(t, cp, "create", "token", "robot", "--duration", "20m")
	assert.Equal(t, 2, strings.Count(tok, "."), "a JWT: %s", tok)
	kc := tokenKubeconfig(t, cp, tok)
	out := runKubectl(t, cp, "--kubeconfig", kc, "auth", "whoami", "-o", "jsonpath={.status.userInfo.username} {.status.userInfo.groups}")
	assert.Equal(t, `system:serviceaccount:default:robot ["system:serviceaccounts","system:serviceaccounts:default","system:authenticated"]`, out)

	// Least privilege: the account may do nothing RBAC does not grant.
	out, err := kubectlOut(t, cp, "--kubeconfig", kc, "get", "pods")
	require.Error(t, err)
	assert.Contains(t, out, `User "system:serviceaccount:default:robot" cannot list resource "pods" in API group "" in the namespace "default"`)
	runKubectl(t, cp, "create", "rolebinding", "robot-view", "--clusterrole", "view", "--serviceaccount", "default:robot")
	require.Eventually(t, func() bool {
		_, err := kubectlOut(t, cp, "--kubeconfig", kc, "get", "pods")
		return err == nil
	}, 20*time.Second, 100*time.Millisecond)

	// Audience, and a bad duration, as kubectl reports them.
	other := runKubectl(t, cp, "create", "token", "robot", "--audience", "https://vault.example")
	code, _ := whoami(t, cp, bearer(other))
	assert.Equal(t, http.StatusUnauthorized, code, "a token for another audience")
	out, err = kubectlOut(t, cp, "create", "token", "robot", "--duration", "5m")
	require.Error(t, err)
	assert.Contains(t, out, "may not specify a duration less than 10 minutes")
	out, err = kubectlOut(t, cp, "create", "token", "nobody")
	require.Error(t, err)
	assert.Contains(t, out, `serviceaccounts "nobody" not found`)
}

// podFor creates a pod running as account and returns it.
func podFor(t *testing.T, c *client.Client, name, account string) *core.Pod {
	t.Helper()
	pod := &core.Pod{ObjectMeta: meta.ObjectMeta{Name: name, Namespace: "default"},
		Spec: core.PodSpec{ServiceAccountName: account, Containers: []core.Container{{Name: "c", Image: "orkit.local/hello:v1"}}}}
	out, err := client.For[core.Pod](c, "default").Create(context.Background(), pod)
	require.NoError(t, err)
	return out
}

func TestBoundServiceAccountToken(t *testing.T) {
	kubectlOrSkip(t)
	cp := start(t, Config{})
	runKubectl(t, cp, "create", "serviceaccount", "robot")
	runKubectl(t, cp, "create", "serviceaccount", "other")
	cfg, err := cp.ClientConfig("admin", "system:masters")
	require.NoError(t, err)
	c, err := client.New(cfg)
	require.NoError(t, err)
	pod := podFor(t, c, "web", "robot")

	tok := runKubectl(t, cp, "create", "token", "robot", "--bound-object-kind", "Pod", "--bound-object-name", "web",
		"--bound-object-uid", string(pod.UID))
	out := runKubectl(t, cp, "--kubeconfig", tokenKubeconfig(t, cp, tok), "auth", "whoami", "-o", "jsonpath={.status.userInfo.extra}")
	assert.Contains(t, out, `"authentication.kubernetes.io/pod-name":["web"]`)
	assert.Contains(t, out, `"authentication.kubernetes.io/pod-uid":["`+string(pod.UID)+`"]`)

	// Binding errors, worded as kube-apiserver words them.
	out, err = kubectlOut(t, cp, "create", "token", "other", "--bound-object-kind", "Pod", "--bound-object-name", "web")
	require.Error(t, err)
	assert.Contains(t, out, `cannot bind token for serviceaccount "other" to pod running with different serviceaccount name.`)
	out, err = kubectlOut(t, cp, "create", "token", "robot", "--bound-object-kind", "Pod", "--bound-object-name", "web", "--bound-object-uid", "not-the-uid")
	require.Error(t, err)
	assert.Contains(t, out, "does not match the UID in record")

	// Deleting the pod (force: no kubelet here) invalidates the token.
	runKubectl(t, cp, "delete", "pod", "web", "--grace-period=0", "--force")
	require.Eventually(t, func() bool {
		code, _ := whoami(t, cp, bearer(tok))
		return code == http.StatusUnauthorized
	}, 10*time.Second, 50*time.Millisecond)
	// A new pod of the same name has another UID: still refused.
	podFor(t, c, "web", "robot")
	code, _ := whoami(t, cp, bearer(tok))
	assert.Equal(t, http.StatusUnauthorized, code)

	// Deleting the account invalidates its unbound tokens.
	plain := runKubectl(t, cp, "create", "token", "robot")
	code, _ = whoami(t, cp, bearer(plain))
	require.Equal(t, http.StatusCreated, code)
	runKubectl(t, cp, "delete", "serviceaccount", "robot")
	code, _ = whoami(t, cp, bearer(plain))
	assert.Equal(t, http.StatusUnauthorized, code)
}

// signWith signs a token of robot with the control plane's own key on a
// clock of its choosing, as a forger holding the key (or time) would.
func signWith(t *testing.T, cp *ControlPlane, key *ecdsa.PrivateKey, now time.Time, uid string, aud ...string) string {
	t.Helper()
	if key == nil {
		k, err := pki.LoadSigningKey(filepath.Join(cp.dataDir, "sa.key"))
		require.NoError(t, err)
		key = k.(*ecdsa.PrivateKey)
	}
	ti, err := authn.NewTokenIssuer(authn.TokenIssuerConfig{SigningKey: key, Now: func() time.Time { return now }})
	require.NoError(t, err)
	if len(aud) == 0 {
		aud = ti.APIAudiences()
	}
	tok, err := ti.Issue(authn.ServiceAccountToken{Namespace: "default", ServiceAccount: authn.ObjectRef{Name: "robot", UID: uid},
		Audiences: aud, Expiration: now.Add(time.Hour)})
	require.NoError(t, err)
	return tok
}

func TestServiceAccountTokenRejected(t *testing.T) {
	cp := start(t, Config{})
	cfg, err := cp.ClientConfig("admin", "system:masters")
	require.NoError(t, err)
	c, err := client.New(cfg)
	require.NoError(t, err)
	sa, err := client.For[core.ServiceAccount](c, "default").Create(context.Background(),
		&core.ServiceAccount{ObjectMeta: meta.ObjectMeta{Name: "robot", Namespace: "default"}})
	require.NoError(t, err)
	uid := string(sa.UID)
	good := signWith(t, cp, nil, time.Now(), uid)
	code, who := whoami(t, cp, bearer(good))
	require.Equal(t, http.StatusCreated, code, who)
	assert.Contains(t, who, "system:serviceaccount:default:robot ")

	forger, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	parts := strings.Split(good, ".")
	tests := map[string]string{
		"expired":             signWith(t, cp, nil, time.Now().Add(-3*time.Hour), uid),
		"not yet valid":       signWith(t, cp, nil, time.Now().Add(time.Hour), uid),
		"other audience":      signWith(t, cp, nil, time.Now(), uid, "https://vault.example"),
		"forged":              signWith(t, cp, forger, time.Now(), uid),
		"other account UID":   signWith(t, cp, nil, time.Now(), "another-uid"),
		"tampered payload":    parts[0] + "." + strings.TrimRight(parts[1], "A") + "A." + parts[2],
		"signature cut":       parts[0] + "." + parts[1] + ".",
		"malformed":           "not.a.jwt",
		"two parts":           parts[0] + "." + parts[1],
		"alg none":            "eyJhbGciOiJub25lIn0." + parts[1] + ".",
		"oversized":           strings.Repeat("a", 20000) + "." + parts[1] + "." + parts[2],
		"garbage base64 json": "e30.e30.e30",
	}
	for name, tok := range tests {
		t.Run(name, func(t *testing.T) {
			code, body := whoami(t, cp, bearer(tok))
			assert.Equal(t, http.StatusUnauthorized, code, body)
		})
	}
}

func TestServiceAccountIssuerDiscovery(t *testing.T) {
	kubectlOrSkip(t)
	cp := start(t, Config{ServiceAccounts: ServiceAccountConfig{Issuer: "https://issuer.example", APIAudiences: []string{"api", "https://issuer.example"}}})
	code, _ := call(t, cp, http.MethodGet, "/.well-known/openid-configuration", nil, nil)
	assert.Equal(t, http.StatusUnauthorized, code, "anonymous is off")

	runKubectl(t, cp, "create", "serviceaccount", "robot")
	tok := runKubectl(t, cp, "create", "token", "robot")
	jwt, err := authn.ParseJWT(tok)
	require.NoError(t, err)
	assert.JSONEq(t, `["api","https://issuer.example"]`, string(jwt.Claims["aud"]), "the API audiences by default")
	assert.JSONEq(t, `"https://issuer.example"`, string(jwt.Claims["iss"]))
	code, who := whoami(t, cp, bearer(tok))
	require.Equal(t, http.StatusCreated, code, who)

	// Any service account may read the discovery document and key set.
	code, body := call(t, cp, http.MethodGet, "/.well-known/openid-configuration", nil, bearer(tok))
	require.Equal(t, http.StatusOK, code, body)
	var doc map[string]any
	require.NoError(t, json.Unmarshal([]byte(body), &doc))
	assert.Equal(t, "https://issuer.example", doc["issuer"])
	assert.Equal(t, "https://issuer.example/openid/v1/jwks", doc["jwks_uri"])
	assert.Equal(t, []any{"ES256"}, doc["id_token_signing_alg_values_supported"])
	code, body = call(t, cp, http.MethodGet, "/openid/v1/jwks", nil, bearer(tok))
	require.Equal(t, http.StatusOK, code, body)
	var set struct {
		Keys []map[string]string `json:"keys"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &set))
	require.Len(t, set.Keys, 1)
	assert.Equal(t, "EC", set.Keys[0]["kty"])
	assert.Equal(t, "ES256", set.Keys[0]["alg"])
	assert.Equal(t, set.Keys[0]["kid"], jwt.Header.Kid, "the token names the published key")
}

func TestSigningKeyPersists(t *testing.T) {
	kubectlOrSkip(t)
	ctx, cancel := context.WithCancel(context.Background())
	dir := t.TempDir()
	cp, err := Start(ctx, Config{DataDir: dir, Listen: freeAddr(t)})
	require.NoError(t, err)
	runKubectl(t, cp, "create", "serviceaccount", "robot")
	tok := runKubectl(t, cp, "create", "token", "robot")
	cancel()
	waitDone(t, cp)

	ctx2, cancel2 := context.WithCancel(context.Background())
	t.Cleanup(cancel2)
	cp2, err := Start(ctx2, Config{DataDir: dir, Listen: freeAddr(t)})
	require.NoError(t, err)
	code, who := whoami(t, cp2, bearer(tok))
	assert.Equal(t, http.StatusCreated, code, "a token of the first run is valid after a restart: %s", who)
}

// TestTokenRequestBadInput: bodies kube-apiserver refuses are refused
// with its status and wording, and a node may mint only tokens bound to
// its own pods.
func TestTokenRequestBadInput(t *testing.T) {
	kubectlOrSkip(t)
	cp := start(t, Config{})
	runKubectl(t, cp, "create", "serviceaccount", "robot")
	const path = "/api/v1/namespaces/default/serviceaccounts/robot/token"
	tests := []struct {
		name, body, want string
	}{
		{"malformed JSON", `{"spec":`, "the object provided is unrecognized or malformed"},
		{"name differs", `{"metadata":{"name":"other"},"spec":{}}`, "name in URL does not match name in TokenRequest body"},
		{"namespace differs", `{"metadata":{"namespace":"kube-system"},"spec":{}}`, "namespace in URL does not match namespace in TokenRequest body"},
		{"too long", `{"spec":{"expirationSeconds":5000000000}}`, "may not specify a duration larger than 2^32 seconds"},
		{"empty audience", `{"spec":{"audiences":[""]}}`, "spec.audiences[0]"},
		{"bound to a Deployment", `{"spec":{"boundObjectRef":{"kind":"Deployment","apiVersion":"apps/v1","name":"web"}}}`,
			"cannot bind token to object of type apps/v1, Deployment"},
		{"bound to a missing pod", `{"spec":{"boundObjectRef":{"kind":"Pod","apiVersion":"v1","name":"ghost"}}}`, `pods "ghost" not found`},
		{"bound to a missing secret", `{"spec":{"boundObjectRef":{"kind":"Secret","apiVersion":"v1","name":"ghost"}}}`, `secrets "ghost" not found`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := writeFile(t, "body.json", tt.body)
			out, err := kubectlOut(t, cp, "create", "--raw", path, "-f", f)
			require.Error(t, err, out)
			assert.Contains(t, out, tt.want)
		})
	}

	// A kubelet: only tokens of its pods' accounts, bound to such a pod.
	cfg, err := cp.ClientConfig("admin", "system:masters")
	require.NoError(t, err)
	c, err := client.New(cfg)
	require.NoError(t, err)
	pod := podFor(t, c, "web", "robot")
	_, err = client.For[core.Node](c, "").Create(context.Background(), &core.Node{ObjectMeta: meta.ObjectMeta{Name: "n1"}})
	require.NoError(t, err)
	pod.Spec.NodeName = "n1"
	require.NoError(t, c.Bind(context.Background(), &core.Binding{ObjectMeta: meta.ObjectMeta{Name: "web", Namespace: "default"},
		Target: core.ObjectReference{Kind: "Node", Name: "n1"}}))
	nodeKC := filepath.Join(t.TempDir(), "node.kubeconfig")
	require.NoError(t, cp.WriteKubeconfig(nodeKC, "system:node:n1", "system:nodes"))
	asNode := func(args ...string) (string, error) {
		return kubectlOut(t, cp, append([]string{"--kubeconfig", nodeKC}, args...)...)
	}
	require.Eventually(t, func() bool {
		out, err := asNode("create", "token", "robot", "--bound-object-kind", "Pod", "--bound-object-name", "web")
		return err == nil && strings.Count(out, ".") == 2
	}, 10*time.Second, 100*time.Millisecond, "the node mints a token bound to its pod")
	out, err := asNode("create", "token", "robot")
	require.Error(t, err)
	assert.Contains(t, out, "node requested token not bound to a pod")
	runKubectl(t, cp, "create", "serviceaccount", "stranger")
	out, err = asNode("create", "token", "stranger")
	require.Error(t, err)
	assert.Contains(t, out, "no relationship found between node")
}
