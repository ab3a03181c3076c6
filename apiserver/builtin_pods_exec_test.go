package apiserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/internal/testkubelet"
)

const execRBAC = `
apiVersion: v1
kind: Namespace
metadata: {name: team}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: dev, namespace: team}
rules:
- apiGroups: [""]
  resources: [pods]
  verbs: [get, list]
- apiGroups: [""]
  resources: [pods/exec]
  verbs: [%s]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: dev, namespace: team}
subjects: [{kind: User, name: dev, apiGroup: rbac.authorization.k8s.io}]
roleRef: {kind: Role, name: dev, apiGroup: rbac.authorization.k8s.io}
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: team}
spec:
  nodeName: node-1
  containers:
  - {name: app, image: orkit.local/hello:v1}
  - {name: sidecar, image: orkit.local/hello:v1}
---
apiVersion: v1
kind: Pod
metadata: {name: pending, namespace: team}
spec:
  containers:
  - {name: app, image: orkit.local/hello:v1}
`

// stubExecKubelet is node-1's kubelet endpoint (testkubelet): it reports
// the exec options that reached it (the container from the path) on the
// channel it returns and refuses each with a Status naming them.
func stubExecKubelet(t *testing.T, c *cluster) <-chan core.PodExecOptions {
	reached := make(chan core.PodExecOptions, 10)
	k := testkubelet.Start(t, c.cp.CA, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/"), "/") // exec/<ns>/<pod>/<container>
		opts, err := core.ParseKubeletExecQuery(r.URL.Query())
		if len(parts) != 4 || parts[0] != "exec" || err != nil {
			http.Error(w, fmt.Sprintf("unexpected request %s: %v", r.URL, err), http.StatusInternalServerError)
			return
		}
		opts.Container = parts[3]
		reached <- opts
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(apierrors.NewBadRequest(fmt.Sprintf("stub node agent: %s/%s container %s command %v",
			parts[1], parts[2], opts.Container, opts.Command)))
	}))
	cfg, err := client.ConfigFromKubeconfig(c.admin, "")
	require.NoError(t, err)
	admin, err := client.New(cfg)
	require.NoError(t, err)
	require.NoError(t, k.Register(context.Background(), admin, "node-1"))
	return reached
}

// TestPodExecChecks drives kubectl exec (WebSocket first, then its SPDY
// fallback) against the API server with a stub kubelet endpoint:
// authorization needs create on pods/exec, and requests are checked with
// kube-apiserver's errors before the API server proxies them to the
// pod's kubelet.
func TestPodExecChecks(t *testing.T) {
	c := startCluster(t)
	mustKubectl(t, c.admin, fmt.Sprintf(execRBAC, "get"), "apply", "-f", "-")
	reached := stubExecKubelet(t, c)

	// Only get on pods/exec: the WebSocket GET needs create too, and the
	// SPDY fallback (a POST) is create.
	_, errOut, err := kubectl(t, c.dev, "", "-n", "team", "exec", "web", "-c", "app", "--", "/hello", "echo")
	require.Error(t, err)
	assert.Contains(t, errOut, `pods "web" is forbidden: User "dev" cannot create resource "pods/exec" in API group "" in the namespace "team"`)
	assert.Empty(t, reached)

	mustKubectl(t, c.admin, fmt.Sprintf(execRBAC, "get, create"), "apply", "-f", "-")
	_, errOut, err = kubectl(t, c.dev, "", "-n", "team", "exec", "web", "-c", "app", "--", "/hello", "echo", "hi")
	require.Error(t, err)
	assert.Contains(t, errOut, "stub node agent: team/web container app command [/hello echo hi]")
	// The WebSocket attempt, then (as the stub refused it) the SPDY one.
	require.Len(t, reached, 2)
	for range 2 {
		opts := <-reached
		assert.Equal(t, core.PodExecOptions{Container: "app", Command: []string{"/hello", "echo", "hi"}, Stdout: true, Stderr: true}, opts)
	}

	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"missing pod", []string{"exec", "nope", "--", "x"}, `pods "nope" not found`},
		{"container not in pod", []string{"exec", "web", "-c", "db", "--", "x"}, "container db is not valid for pod web"},
		{"pod without a node", []string{"exec", "pending", "--", "x"}, "pod pending does not have a host assigned"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, err := kubectl(t, c.dev, "", append([]string{"-n", "team"}, tt.args...)...)
			require.Error(t, err)
			assert.Contains(t, errOut, tt.wantErr)
		})
	}
	assert.Empty(t, reached, "rejected requests never reach the node agent")

	// The node agent itself may not exec (Node authorizer), even into its own pods.
	_, errOut, err = kubectl(t, c.node, "", "-n", "team", "exec", "web", "-c", "app", "--", "/hello", "echo")
	require.Error(t, err)
	assert.Contains(t, errOut, `pods "web" is forbidden: User "system:node:node-1" cannot create resource "pods/exec" in API group "" in the namespace "team"`)

	// The bootstrap edit role (as admin) grants exec.
	mustKubectl(t, c.admin, "", "delete", "role", "dev", "-n", "team")
	mustKubectl(t, c.admin, "", "create", "rolebinding", "dev-edit", "--clusterrole=edit", "--user=dev", "-n", "team")
	_, errOut, err = kubectl(t, c.dev, "", "-n", "team", "exec", "web", "-c", "app", "--", "/hello", "echo", "edit")
	require.Error(t, err)
	assert.Contains(t, errOut, "stub node agent: team/web container app command [/hello echo edit]")
	for len(reached) > 0 {
		<-reached
	}

	out := mustKubectl(t, c.admin, "", "get", "--raw", "/api/v1")
	var list struct {
		Resources []struct {
			Name, Kind string
			Verbs      []string
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &list))
	found := false
	for _, r := range list.Resources {
		if r.Name == "pods/exec" {
			found = true
			assert.Equal(t, "PodExecOptions", r.Kind)
			assert.Equal(t, []string{"create", "get"}, r.Verbs)
		}
	}
	assert.True(t, found, "discovery lists pods/exec: %s", strings.TrimSpace(out)[:min(200, len(out))])
}
