package apiserver_test

import (
	"context"
	"crypto/tls"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/controlplane"
)

// TestRBACChangesReachCachedDecisions: the RBAC authorizer keeps each
// user's resolved rules until an RBAC object changes; granting and then
// revoking a role must show in the user's next requests.
func TestRBACChangesReachCachedDecisions(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cp, err := controlplane.Start(ctx, controlplane.Config{DataDir: t.TempDir(), Listen: freeAddr(t)})
	require.NoError(t, err)
	admin := adminHTTP(t, cp)
	kp, err := cp.CA.IssueClient("rita")
	require.NoError(t, err)
	cert, err := tls.X509KeyPair(kp.CertPEM, kp.KeyPEM)
	require.NoError(t, err)
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: cp.CA.Pool(), Certificates: []tls.Certificate{cert}}, ForceAttemptHTTP2: true}
	t.Cleanup(tr.CloseIdleConnections)
	rita := &http.Client{Transport: tr}
	list := func() int {
		resp, err := rita.Get(cp.URL + "/api/v1/namespaces/default/configmaps")
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	waitFor := func(want int) {
		deadline := time.Now().Add(10 * time.Second)
		for got := list(); got != want; got = list() {
			require.True(t, time.Now().Before(deadline), "still %d, want %d", got, want)
			time.Sleep(10 * time.Millisecond) // polling, not synchronisation
		}
	}
	require.Equal(t, http.StatusForbidden, list())
	require.Equal(t, http.StatusForbidden, list(), "asked twice: the second answer may come from the cache")

	code, body := post(t, admin, cp.URL+"/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings", map[string]any{
		"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": map[string]any{"name": "rita-view"},
		"subjects": []map[string]string{{"kind": "User", "name": "rita", "apiGroup": "rbac.authorization.k8s.io"}},
		"roleRef":  map[string]string{"kind": "ClusterRole", "name": "view", "apiGroup": "rbac.authorization.k8s.io"}})
	require.Equal(t, http.StatusCreated, code, body)
	waitFor(http.StatusOK)

	req, err := http.NewRequest(http.MethodDelete, cp.URL+"/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings/rita-view", nil)
	require.NoError(t, err)
	resp, err := admin.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	waitFor(http.StatusForbidden)
}
