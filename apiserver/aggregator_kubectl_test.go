package apiserver_test

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/pki"
)

// TestKubectlAPIServiceUnavailable: an APIService whose Service does not
// exist is listed with Available False (ServiceNotFound) and its
// group/version answers 503 instead of 404; an invalid APIService gets
// kube's messages.
func TestKubectlAPIServiceUnavailable(t *testing.T) {
	c := startCluster(t)
	mustKubectl(t, c.admin, `
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: v1.widgets.example.com}
spec:
  group: widgets.example.com
  version: v1
  service: {namespace: default, name: widgets}
  insecureSkipTLSVerify: true
  groupPriorityMinimum: 1000
  versionPriority: 15
`, "apply", "-f", "-")
	re := regexp.MustCompile(`v1.widgets.example.com\s+default/widgets\s+False \(ServiceNotFound\)`)
	deadline := time.Now().Add(20 * time.Second)
	for out := ""; !re.MatchString(out); out = mustKubectl(t, c.admin, "", "get", "apiservice", "v1.widgets.example.com") {
		require.True(t, time.Now().Before(deadline), "APIService not reported unavailable: %s", out)
		time.Sleep(100 * time.Millisecond) // polling kubectl: nothing to wait on
	}
	_, errOut, err := kubectl(t, c.admin, "", "get", "--raw", "/apis/widgets.example.com/v1/namespaces/default/widgets")
	require.Error(t, err)
	assert.Contains(t, errOut, "the server is currently unable to handle the request")
	assert.Equal(t, "443", mustKubectl(t, c.admin, "", "get", "apiservice", "v1.widgets.example.com", "-o", "jsonpath={.spec.service.port}"), "defaulted")

	_, errOut, err = kubectl(t, c.admin, `
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: v2.widgets.example.com}
spec:
  group: widgets.example.com
  version: v1
  service: {namespace: default, name: widgets}
  insecureSkipTLSVerify: true
  caBundle: Zm9v
  groupPriorityMinimum: 0
  versionPriority: 15
`, "apply", "-f", "-")
	require.Error(t, err)
	for _, want := range []string{`The APIService "v2.widgets.example.com" is invalid`,
		`metadata.name: Invalid value: "v2.widgets.example.com": must be v1.widgets.example.com`,
		"spec.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000",
		"spec.insecureSkipTLSVerify: Invalid value: true: may not be true if caBundle is present"} {
		assert.Contains(t, errOut, want)
	}
}

// TestKubectlAPIServiceFrontProxy: an aggregated API server that trusts
// what kube-system/extension-apiserver-authentication says (as
// k8s.io/apiserver's delegated authentication does) gets the API
// server's proxy client certificate (front-proxy-client, from the
// front-proxy CA) and the user in X-Remote-User and X-Remote-Group; the
// availability check comes as system:kube-aggregator in system:masters;
// a client's own X-Remote-* headers are dropped.
func TestKubectlAPIServiceFrontProxy(t *testing.T) {
	c := startCluster(t)
	fpCA := []byte(mustKubectl(t, c.admin, "", "get", "configmap", "-n", "kube-system", "extension-apiserver-authentication",
		"-o", "jsonpath={.data.requestheader-client-ca-file}"))
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(fpCA))
	allowed := mustKubectl(t, c.admin, "", "get", "configmap", "-n", "kube-system", "extension-apiserver-authentication",
		"-o", "jsonpath={.data.requestheader-allowed-names}")
	require.JSONEq(t, `["front-proxy-client"]`, allowed)

	servingCA, err := pki.NewCA("wardle-ca")
	require.NoError(t, err)
	kp, err := servingCA.IssueServing("wardle", []string{"wardle.default.svc"}, nil)
	require.NoError(t, err)
	cert, err := kp.TLSCertificate()
	require.NoError(t, err)
	var mu sync.Mutex
	seen := map[string][]string{} // path -> user and groups
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(r.TLS.PeerCertificates) == 0 || r.TLS.PeerCertificates[0].Subject.CommonName != "front-proxy-client" {
			http.Error(w, "not the front proxy", http.StatusUnauthorized)
			return
		}
		mu.Lock()
		seen[r.URL.Path] = append([]string{r.Header.Get("X-Remote-User")}, r.Header.Values("X-Remote-Group")...)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/apis/wardle.example.com/v1alpha1" {
			_, _ = w.Write([]byte(`{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"wardle.example.com/v1alpha1","resources":[{"name":"flunders","singularName":"flunder","namespaced":true,"kind":"Flunder","verbs":["get","list"]}]}`))
			return
		}
		_, _ = w.Write([]byte(`{"kind":"FlunderList","apiVersion":"wardle.example.com/v1alpha1","metadata":{},"items":[]}`))
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, ClientCAs: pool, ClientAuth: tls.RequireAndVerifyClientCert}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	port := srv.Listener.Addr().(*net.TCPAddr).Port

	mustKubectl(t, c.admin, fmt.Sprintf(`
apiVersion: v1
kind: Service
metadata: {name: wardle, namespace: default}
spec: {type: ExternalName, externalName: localhost}
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: v1alpha1.wardle.example.com}
spec:
  group: wardle.example.com
  version: v1alpha1
  service: {namespace: default, name: wardle, port: %d}
  caBundle: %s
  groupPriorityMinimum: 2000
  versionPriority: 200
`, port, base64.StdEncoding.EncodeToString(servingCA.CertPEM)), "apply", "-f", "-")
	deadline := time.Now().Add(20 * time.Second)
	for out := ""; out != "all checks passed"; out = mustKubectl(t, c.admin, "", "get", "apiservice", "v1alpha1.wardle.example.com",
		"-o", `jsonpath={.status.conditions[?(@.type=="Available")].message}`) {
		require.True(t, time.Now().Before(deadline), "APIService not available: %s", out)
		time.Sleep(100 * time.Millisecond) // polling kubectl: nothing to wait on
	}
	mu.Lock()
	assert.Equal(t, []string{"system:kube-aggregator", "system:masters"}, seen["/apis/wardle.example.com/v1alpha1"])
	mu.Unlock()

	// The admin's request arrives as the admin, with a client's own
	// identity headers dropped.
	cfg, err := c.cp.ClientConfig("alice", "system:masters", "team-a")
	require.NoError(t, err)
	ccert, err := tls.X509KeyPair(cfg.CertData, cfg.KeyData)
	require.NoError(t, err)
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(cfg.CAData)
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, Certificates: []tls.Certificate{ccert}}}}
	t.Cleanup(hc.CloseIdleConnections)
	req, err := http.NewRequest(http.MethodGet, c.cp.URL+"/apis/wardle.example.com/v1alpha1/namespaces/default/flunders", nil)
	require.NoError(t, err)
	req.Header.Set("X-Remote-User", "mallory")
	req.Header.Set("X-Remote-Group", "evil")
	resp, err := hc.Do(req)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
	mu.Lock()
	assert.ElementsMatch(t, []string{"alice", "system:masters", "team-a", "system:authenticated"}, seen["/apis/wardle.example.com/v1alpha1/namespaces/default/flunders"])
	mu.Unlock()

	// A user the API server does not authorize never reaches the server.
	_, errOut, err := kubectl(t, c.dev, "", "get", "--raw", "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders")
	require.Error(t, err)
	assert.Contains(t, errOut, "Forbidden")
}

// TestKubectlListByNameSelector: a Role limited to one object by
// resourceNames allows list and watch of it with a metadata.name field
// selector, as kube-apiserver authorizes them (the informer k8s.io/apiserver
// runs on extension-apiserver-authentication), and nothing wider.
func TestKubectlListByNameSelector(t *testing.T) {
	c := startCluster(t)
	mustKubectl(t, c.admin, `
apiVersion: v1
kind: ConfigMap
metadata: {name: one, namespace: default}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: read-one, namespace: default}
rules: [{apiGroups: [""], resources: [configmaps], resourceNames: [one], verbs: [get, list, watch]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: read-one, namespace: default}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: read-one}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: dev}]
`, "apply", "-f", "-")
	assert.Equal(t, "one", mustKubectl(t, c.dev, "", "get", "configmaps", "-n", "default", "--field-selector", "metadata.name=one", "-o", "jsonpath={.items[*].metadata.name}"))
	for _, args := range [][]string{
		{"get", "configmaps", "-n", "default"},
		{"get", "configmaps", "-n", "default", "--field-selector", "metadata.name=two"},
		{"get", "configmaps", "-n", "default", "--field-selector", "metadata.name!=one"},
		{"get", "configmaps", "-n", "kube-system", "--field-selector", "metadata.name=one"},
	} {
		_, errOut, err := kubectl(t, c.dev, "", args...)
		require.Error(t, err, "%v", args)
		assert.Contains(t, errOut, "forbidden", "%v", args)
	}
}
