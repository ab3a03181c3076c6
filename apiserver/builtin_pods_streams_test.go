package apiserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/internal/testkubelet"
)

const streamsRBAC = `
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
  verbs: [get, list, watch]
- apiGroups: [""]
  resources: [pods/attach, pods/portforward]
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
  - {name: app, image: orkit.local/hello:v1, stdin: true}
  - {name: sidecar, image: orkit.local/hello:v1}
---
apiVersion: v1
kind: Pod
metadata: {name: pending, namespace: team}
spec:
  containers:
  - {name: app, image: orkit.local/hello:v1}
`

// stubStreamKubelet is node-1's kubelet endpoint: it reports the path and
// query of each request that reached it and refuses it with a Status.
func stubStreamKubelet(t *testing.T, c *cluster) <-chan string {
	reached := make(chan string, 10)
	k := testkubelet.Start(t, c.cp.CA, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached <- r.URL.Path + "?" + r.URL.RawQuery
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(apierrors.NewBadRequest("stub node agent: " + r.URL.Path))
	}))
	cfg, err := client.ConfigFromKubeconfig(c.admin, "")
	require.NoError(t, err)
	admin, err := client.New(cfg)
	require.NoError(t, err)
	require.NoError(t, k.Register(context.Background(), admin, "node-1"))
	return reached
}

func drain(ch <-chan string) []string {
	var got []string
	for len(ch) > 0 {
		got = append(got, <-ch)
	}
	return got
}

// TestPodAttachAndPortForwardChecks drives kubectl attach and
// port-forward against the API server with a stub kubelet endpoint: both
// need create on their subresource (a WebSocket GET included), requests
// are checked with kube-apiserver's errors, and only checked requests
// reach the kubelet's /attach and /portForward endpoints.
func TestPodAttachAndPortForwardChecks(t *testing.T) {
	c := startCluster(t)
	mustKubectl(t, c.admin, fmt.Sprintf(streamsRBAC, "get"), "apply", "-f", "-")
	mustKubectl(t, c.admin, "", "-n", "team", "patch", "pod", "web", "--subresource=status", "--type=merge",
		"-p", `{"status":{"phase":"Running"}}`)
	reached := stubStreamKubelet(t, c)

	forbidden := func(sub string) string {
		return fmt.Sprintf(`pods "web" is forbidden: User "dev" cannot create resource "pods/%s" in API group "" in the namespace "team"`, sub)
	}
	_, errOut, err := kubectl(t, c.dev, "", "-n", "team", "attach", "web", "-c", "app")
	require.Error(t, err)
	assert.Contains(t, errOut, forbidden("attach"))
	_, errOut, err = kubectl(t, c.dev, "", "-n", "team", "port-forward", "web", ":8080")
	require.Error(t, err)
	assert.Contains(t, errOut, forbidden("portforward"))
	assert.Empty(t, drain(reached))

	mustKubectl(t, c.admin, fmt.Sprintf(streamsRBAC, "get, create"), "apply", "-f", "-")
	_, errOut, err = kubectl(t, c.dev, "", "-n", "team", "attach", "web", "-c", "app", "-i")
	require.Error(t, err)
	assert.Contains(t, errOut, "stub node agent: /attach/team/web/app")
	got := drain(reached)
	require.NotEmpty(t, got)
	assert.Equal(t, "/attach/team/web/app?error=1&input=1&output=1", got[0])
	_, errOut, err = kubectl(t, c.dev, "", "-n", "team", "port-forward", "web", ":8080")
	require.Error(t, err)
	assert.Contains(t, errOut, "stub node agent: /portForward/team/web")
	got = drain(reached)
	require.NotEmpty(t, got)
	assert.Equal(t, "/portForward/team/web?", got[0], "kubectl names the ports in the SPDY streams, not the query")

	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"attach: missing pod", []string{"attach", "nope"}, `pods "nope" not found`},
		{"attach: container not in pod", []string{"attach", "web", "-c", "db"}, `container db not found in pod web`},
		{"attach: pod without a node", []string{"attach", "pending"}, "pod pending does not have a host assigned"},
		{"port-forward: missing pod", []string{"port-forward", "nope", ":80"}, `pods "nope" not found`},
		{"port-forward: pod not running", []string{"port-forward", "pending", ":80"}, "unable to forward port because pod is not running"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, err := kubectl(t, c.dev, "", append([]string{"-n", "team"}, tt.args...)...)
			require.Error(t, err)
			assert.Contains(t, errOut, tt.wantErr)
		})
	}
	assert.Empty(t, drain(reached), "rejected requests never reach the node agent")

	// Raw requests: what kubectl checks on its side, the server checks too.
	rawTests := []struct {
		name, path, wantErr string
	}{
		{"attach without a stream", "/api/v1/namespaces/team/pods/web/attach?container=app", "you must specify at least 1 of stdin, stdout, stderr"},
		{"attach: container not in pod", "/api/v1/namespaces/team/pods/web/attach?container=db&stdout=1", "container db is not valid for pod web"},
		{"attach: two containers, none named", "/api/v1/namespaces/team/pods/web/attach?stdout=1", "a container name must be specified for pod web, choose one of: [app sidecar]"},
		{"port-forward: bad port", "/api/v1/namespaces/team/pods/web/portforward?ports=99999", `invalid port "99999"`},
		{"port-forward: pod without a node", "/api/v1/namespaces/team/pods/pending/portforward", "pod pending does not have a host assigned"},
	}
	for _, tt := range rawTests {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, err := kubectl(t, c.admin, "", "create", "--raw", tt.path, "-f", "/dev/null")
			require.Error(t, err)
			assert.Contains(t, errOut, tt.wantErr)
		})
	}
	assert.Empty(t, drain(reached))

	out := mustKubectl(t, c.admin, "", "get", "--raw", "/api/v1")
	var list struct {
		Resources []struct {
			Name, Kind string
			Verbs      []string
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &list))
	kinds := map[string]string{}
	for _, r := range list.Resources {
		if r.Name == "pods/attach" || r.Name == "pods/portforward" {
			kinds[r.Name] = r.Kind
			assert.Equal(t, []string{"create", "get"}, r.Verbs, r.Name)
		}
	}
	assert.Equal(t, map[string]string{"pods/attach": "PodAttachOptions", "pods/portforward": "PodPortForwardOptions"}, kinds)
}

// podSubresourceRBAC makes namespace team, pod web in it (with cpu and
// memory requests), and user dev who may read and update pods and use
// pods/SUBRESOURCE with VERBS (fmt arguments: subresource, verbs).
const podSubresourceRBAC = `
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
  verbs: [get, list, watch, patch, update]
- apiGroups: [""]
  resources: [pods/%s]
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
metadata: {name: web, namespace: team, labels: {app: web}}
spec:
  nodeName: node-1
  containers:
  - name: app
    image: orkit.local/hello:v1
    resources:
      requests: {cpu: 100m, memory: 64Mi}
      limits: {cpu: 200m}
`

// TestPodEphemeralContainersSubresource: kubectl debug needs patch on
// pods/ephemeralcontainers; the subresource changes only
// spec.ephemeralContainers; ordinary creates and updates may not set them.
func TestPodEphemeralContainersSubresource(t *testing.T) {
	c := startCluster(t)
	mustKubectl(t, c.admin, fmt.Sprintf(podSubresourceRBAC, "ephemeralcontainers", "get"), "apply", "-f", "-")

	_, errOut, err := kubectl(t, c.dev, "", "-n", "team", "debug", "web", "--image=orkit.local/hello:v1", "--container=dbg")
	require.Error(t, err)
	assert.Contains(t, errOut, `pods "web" is forbidden: User "dev" cannot patch resource "pods/ephemeralcontainers" in API group "" in the namespace "team"`)

	mustKubectl(t, c.admin, fmt.Sprintf(podSubresourceRBAC, "ephemeralcontainers", "get, patch, update"), "apply", "-f", "-")
	_, errOut, err = kubectl(t, c.dev, "", "-n", "team", "debug", "web", "--image=orkit.local/hello:v1", "--container=dbg", "--target=app")
	require.NoError(t, err, errOut)
	out := mustKubectl(t, c.admin, "", "-n", "team", "get", "pod", "web", "-o",
		"jsonpath={.spec.ephemeralContainers[0].name} {.spec.ephemeralContainers[0].targetContainerName} {.spec.ephemeralContainers[0].terminationMessagePolicy} {.spec.ephemeralContainers[0].imagePullPolicy}")
	assert.Equal(t, "dbg app File IfNotPresent", out)

	// Through the subresource, only ephemeral containers change.
	_, errOut, err = kubectl(t, c.admin, "", "-n", "team", "patch", "pod", "web", "--subresource=ephemeralcontainers", "--type=merge",
		"-p", `{"metadata":{"labels":{"app":"changed"}},"spec":{"activeDeadlineSeconds":5}}`)
	require.NoError(t, err, errOut)
	out = mustKubectl(t, c.admin, "", "-n", "team", "get", "pod", "web", "-o", "jsonpath={.metadata.labels.app} {.spec.activeDeadlineSeconds}")
	assert.Equal(t, "web ", out)

	tests := []struct {
		name, stdin string
		args        []string
		wantErr     string
	}{
		{"remove through the subresource", "", []string{"patch", "pod", "web", "--subresource=ephemeralcontainers", "--type=json",
			"-p", `[{"op":"remove","path":"/spec/ephemeralContainers/0"}]`}, `existing ephemeral containers "dbg" may not be removed`},
		{"change through the subresource", "", []string{"patch", "pod", "web", "--subresource=ephemeralcontainers", "--type=json",
			"-p", `[{"op":"replace","path":"/spec/ephemeralContainers/0/image","value":"orkit.local/pause:v1"}]`}, `existing ephemeral containers "dbg" may not be changed`},
		{"add through an ordinary update", "", []string{"patch", "pod", "web", "--type=json",
			"-p", `[{"op":"add","path":"/spec/ephemeralContainers/-","value":{"name":"x","image":"orkit.local/hello:v1"}}]`}, "pod updates may not change fields"},
		{"set on create", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p2","namespace":"team"},"spec":{"containers":[{"name":"a","image":"i:1"}],"ephemeralContainers":[{"name":"e","image":"i:1"}]}}`,
			[]string{"create", "-f", "-"}, "spec.ephemeralContainers: Forbidden: cannot be set on create"},
		{"ports on an ephemeral container", "", []string{"patch", "pod", "web", "--subresource=ephemeralcontainers", "--type=json",
			"-p", `[{"op":"add","path":"/spec/ephemeralContainers/-","value":{"name":"p","image":"orkit.local/hello:v1","ports":[{"containerPort":80}]}}]`},
			"spec.ephemeralContainers[1].ports: Forbidden: cannot be set for an Ephemeral Container"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, err := kubectl(t, c.admin, tt.stdin, append([]string{"-n", "team"}, tt.args...)...)
			require.Error(t, err)
			assert.Contains(t, errOut, tt.wantErr)
		})
	}

	out = mustKubectl(t, c.admin, "", "get", "--raw", "/api/v1")
	var list struct {
		Resources []struct {
			Name, Kind string
			Verbs      []string
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &list))
	found := false
	for _, r := range list.Resources {
		if r.Name == "pods/ephemeralcontainers" {
			found = true
			assert.Equal(t, "Pod", r.Kind)
			assert.Equal(t, []string{"get", "patch", "update"}, r.Verbs)
		}
	}
	assert.True(t, found, "discovery lists pods/ephemeralcontainers")
}
