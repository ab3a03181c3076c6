package apiserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/controlplane"
)

// cluster is a control plane started for one test, with kubeconfigs for
// three identities: an admin (client certificate in system:masters), a
// namespaced user "dev" (bearer token, bound to a Role in namespace
// "team"), and the node "node-1" (client certificate in system:nodes).
type cluster struct {
	cp                    *controlplane.ControlPlane
	admin, dev, node, dir string
}

func startCluster(t *testing.T) *cluster {
	t.Helper()
	if _, err := exec.LookPath("kubectl"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("kubectl is required: %v", err)
		}
		t.Skipf("kubectl not found: %v", err)
	}
	dir := t.TempDir()
	tokens := filepath.Join(dir, "tokens.csv")
	require.NoError(t, os.WriteFile(tokens, []byte("dev-token,dev,1001,\"developers\"\n"), 0o600))
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	cp, err := controlplane.Start(ctx, controlplane.Config{DataDir: dir, Listen: freeAddr(t), Auth: controlplane.AuthConfig{TokenFile: tokens}})
	require.NoError(t, err)
	c := &cluster{cp: cp, admin: cp.AdminKubeconfig, dir: dir,
		dev: filepath.Join(dir, "dev.kubeconfig"), node: filepath.Join(dir, "node.kubeconfig")}
	require.NoError(t, cp.WriteTokenKubeconfig(c.dev, "dev", "dev-token"))
	require.NoError(t, cp.WriteKubeconfig(c.node, "system:node:node-1", "system:nodes"))
	return c
}

func freeAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().String()
}

// kubectl runs kubectl with kubeconfig and returns stdout, stderr and the error.
func kubectl(t *testing.T, kubeconfig, stdin string, args ...string) (string, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "kubectl", append([]string{"--kubeconfig", kubeconfig}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	err := cmd.Run()
	return out.String(), errb.String(), err
}

func mustKubectl(t *testing.T, kubeconfig, stdin string, args ...string) string {
	t.Helper()
	out, errOut, err := kubectl(t, kubeconfig, stdin, args...)
	require.NoError(t, err, "kubectl %v: %s", args, errOut)
	return out
}

const manifest = `
apiVersion: v1
kind: Namespace
metadata:
  name: team
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: team
  labels: {app: web}
spec:
  replicas: 3
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: hello
        image: orkit.local/hello:v1
        ports: [{containerPort: 8080}]
---
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: team
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: cfg
  namespace: team
data:
  a: "1"
`

func TestKubectlAdmin(t *testing.T) {
	c := startCluster(t)
	out := mustKubectl(t, c.admin, "", "get", "namespaces")
	assert.Contains(t, out, "kube-system")
	assert.Contains(t, out, "Active")

	out = mustKubectl(t, c.admin, manifest, "apply", "-f", "-")
	assert.Contains(t, out, "deployment.apps/web created")
	assert.Contains(t, out, "service/web created")
	assert.Contains(t, out, "configmap/cfg created")
	// Applying again changes nothing.
	out = mustKubectl(t, c.admin, manifest, "apply", "-f", "-")
	assert.Contains(t, out, "deployment.apps/web unchanged")

	out = mustKubectl(t, c.admin, "", "-n", "team", "get", "deploy")
	assert.Regexp(t, `NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE`, out)
	assert.Regexp(t, `web\s+0/3`, out)
	out = mustKubectl(t, c.admin, "", "-n", "team", "get", "deploy", "-o", "wide")
	assert.Contains(t, out, "orkit.local/hello:v1")
	assert.Contains(t, out, "app=web")
	out = mustKubectl(t, c.admin, "", "-n", "team", "get", "deploy", "web", "-o", "json")
	var d map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &d))
	spec := d["spec"].(map[string]any)
	assert.Equal(t, float64(3), spec["replicas"])
	assert.Equal(t, "RollingUpdate", spec["strategy"].(map[string]any)["type"], "defaulted")
	out = mustKubectl(t, c.admin, "", "-n", "team", "get", "svc", "web", "-o", "yaml")
	assert.Contains(t, out, "targetPort: 8080")
	out = mustKubectl(t, c.admin, "", "-n", "team", "describe", "deployment", "web")
	assert.Contains(t, out, "Replicas:")
	assert.Contains(t, out, "orkit.local/hello:v1")

	mustKubectl(t, c.admin, "", "-n", "team", "label", "cm", "cfg", "tier=web")
	out = mustKubectl(t, c.admin, "", "-n", "team", "get", "cm", "-l", "tier=web", "-o", "name")
	assert.Equal(t, "configmap/cfg\n", out)
	mustKubectl(t, c.admin, "", "-n", "team", "annotate", "cm", "cfg", "note=hi")
	out = mustKubectl(t, c.admin, "", "-n", "team", "get", "cm", "cfg", "-o", "yaml")
	assert.Contains(t, out, "note: hi")

	mustKubectl(t, c.admin, "", "-n", "team", "scale", "deployment", "web", "--replicas=5")
	out = mustKubectl(t, c.admin, "", "-n", "team", "get", "deploy", "web", "-o", "jsonpath={.spec.replicas}")
	assert.Equal(t, "5", out)
	mustKubectl(t, c.admin, "", "-n", "team", "patch", "deployment", "web", "-p",
		`{"spec":{"template":{"spec":{"containers":[{"name":"hello","image":"orkit.local/hello:v2"}]}}}}`)
	out = mustKubectl(t, c.admin, "", "-n", "team", "get", "deploy", "web", "-o", "jsonpath={.spec.template.spec.containers[0].image} {.spec.template.spec.containers[0].ports[0].containerPort} {.metadata.generation}")
	assert.Equal(t, "orkit.local/hello:v2 8080 3", out, "strategic merge kept the port; generation bumped by scale and patch")

	mustKubectl(t, c.admin, "", "create", "namespace", "made-by-create")
	out = mustKubectl(t, c.admin, "", "get", "ns", "made-by-create", "-o", "jsonpath={.status.phase}")
	assert.Equal(t, "Active", out)
	mustKubectl(t, c.admin, "", "-n", "team", "create", "configmap", "literal", "--from-literal=k=v")
	mustKubectl(t, c.admin, "", "-n", "team", "create", "secret", "generic", "s", "--from-literal=p=q")
	mustKubectl(t, c.admin, "", "-n", "team", "create", "deployment", "made", "--image=orkit.local/hello:v1", "--replicas=2")
	out = mustKubectl(t, c.admin, "", "-n", "team", "get", "deploy", "made", "-o", "jsonpath={.spec.replicas}")
	assert.Equal(t, "2", out)

	mustKubectl(t, c.admin, "", "-n", "team", "delete", "cm", "cfg")
	_, errOut, err := kubectl(t, c.admin, "", "-n", "team", "get", "cm", "cfg")
	require.Error(t, err)
	assert.Contains(t, errOut, `configmaps "cfg" not found`)

	out = mustKubectl(t, c.admin, "", "auth", "can-i", "create", "pods", "--all-namespaces")
	assert.Equal(t, "yes\n", out)
	out = mustKubectl(t, c.admin, "", "auth", "whoami", "-o", "jsonpath={.status.userInfo.username}")
	assert.Equal(t, "admin", out)
}
