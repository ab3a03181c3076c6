package apiserver_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/controlplane"
)

// adminHTTP returns an HTTP/2 client authenticated as an admin.
func adminHTTP(t *testing.T, cp *controlplane.ControlPlane) *http.Client {
	kp, err := cp.CA.IssueClient("admin", "system:masters")
	require.NoError(t, err)
	cert, err := tls.X509KeyPair(kp.CertPEM, kp.KeyPEM)
	require.NoError(t, err)
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: cp.CA.Pool(), Certificates: []tls.Certificate{cert}}, ForceAttemptHTTP2: true}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

func post(t *testing.T, c *http.Client, url string, obj any) (int, string) {
	b, err := json.Marshal(obj)
	require.NoError(t, err)
	resp, err := c.Post(url, "application/json", bytes.NewReader(b))
	require.NoError(t, err)
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(out)
}

func pod(name string) map[string]any {
	return map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": name},
		"spec": map[string]any{"containers": []map[string]any{{"name": "c", "image": "orkit.local/hello:v1"}}}}
}

// TestQuotaExactUnderConcurrency: 50 parallel pod creates against a
// quota of 10 pods give exactly 10 successes.
func TestQuotaExactUnderConcurrency(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cp, err := controlplane.Start(ctx, controlplane.Config{DataDir: t.TempDir(), Listen: freeAddr(t)})
	require.NoError(t, err)
	c := adminHTTP(t, cp)
	code, body := post(t, c, cp.URL+"/api/v1/namespaces/default/resourcequotas", map[string]any{
		"apiVersion": "v1", "kind": "ResourceQuota", "metadata": map[string]any{"name": "q"},
		"spec": map[string]any{"hard": map[string]string{"pods": "10"}}})
	require.Equal(t, http.StatusCreated, code, body)

	var ok, forbidden atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			code, body := post(t, c, cp.URL+"/api/v1/namespaces/default/pods", pod(fmt.Sprintf("p%d", i)))
			switch code {
			case http.StatusCreated:
				ok.Add(1)
			case http.StatusForbidden:
				forbidden.Add(1)
				assert.Contains(t, body, "exceeded quota: q")
			default:
				t.Errorf("unexpected %d: %s", code, body)
			}
		}(i)
	}
	wg.Wait()
	assert.Equal(t, int32(10), ok.Load())
	assert.Equal(t, int32(40), forbidden.Load())
	resp, err := c.Get(cp.URL + "/api/v1/namespaces/default/pods")
	require.NoError(t, err)
	var list struct{ Items []any }
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&list))
	resp.Body.Close()
	assert.Len(t, list.Items, 10)
}

// TestAdmissionChainThroughKubectl: NamespaceLifecycle and LimitRanger
// act on requests made with kubectl.
func TestAdmissionChainThroughKubectl(t *testing.T) {
	c := startCluster(t)
	_, errOut, err := kubectl(t, c.admin, "", "-n", "nowhere", "create", "configmap", "x")
	require.Error(t, err)
	assert.Contains(t, errOut, `namespaces "nowhere" not found`)

	mustKubectl(t, c.admin, `{"apiVersion":"v1","kind":"LimitRange","metadata":{"name":"lr","namespace":"default"},
	 "spec":{"limits":[{"type":"Container","default":{"cpu":"500m"},"defaultRequest":{"cpu":"100m"},"max":{"cpu":"1"}}]}}`, "apply", "-f", "-")
	mustKubectl(t, c.admin, "", "run", "p", "--image=orkit.local/hello:v1")
	out := mustKubectl(t, c.admin, "", "get", "pod", "p", "-o", "jsonpath={.spec.containers[0].resources.limits.cpu} {.spec.containers[0].resources.requests.cpu}")
	assert.Equal(t, "500m 100m", out)
	_, errOut, err = kubectl(t, c.admin, `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"big","namespace":"default"},
	 "spec":{"containers":[{"name":"c","image":"orkit.local/hello:v1","resources":{"limits":{"cpu":"2"}}}]}}`, "create", "-f", "-")
	require.Error(t, err)
	assert.Contains(t, errOut, "maximum cpu usage per Container is 1, but limit is 2")

	_, errOut, err = kubectl(t, c.admin, "", "delete", "namespace", "kube-system")
	require.Error(t, err)
	assert.Contains(t, errOut, "forbidden")
}
