package resourcequota_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/controller/replication"
	"github.com/orkit/orkit/controller/resourcequota"
	"github.com/orkit/orkit/internal/testnode"
)

func kubectlPath(t *testing.T) string {
	p, err := exec.LookPath("kubectl")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("kubectl is required under CI: %v", err)
		}
		t.Skipf("kubectl not found: %v", err)
	}
	return p
}

type env struct {
	cluster *testnode.Cluster
	c       *client.Client
}

// setup starts a control plane with the quota and replication
// controllers and a test node that binds and runs pods.
func setup(t *testing.T) *env {
	t.Helper()
	cl := testnode.StartCluster(t)
	admin := cl.Client(t, cl.AdminKubeconfig)
	testnode.RunAgent(t, admin, testnode.Config{Nodes: 1, Bind: true, Logger: testnode.QuietLogger()})
	m, err := controller.NewManager(controller.ManagerConfig{Client: cl.Client(t, cl.ControllerKubeconfig), Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	qc, err := resourcequota.New(m, resourcequota.Config{Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	rc, err := replication.New(m, replication.Config{Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	require.NoError(t, m.Add(qc))
	require.NoError(t, m.Add(rc))
	testnode.RunManager(t, m)
	return &env{cluster: cl, c: admin}
}

func (e *env) kubectl(t *testing.T, stdin string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, kubectlPath(t), append([]string{"--kubeconfig", e.cluster.AdminKubeconfig, "-n", "default"}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func (e *env) run(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	out, err := e.kubectl(t, stdin, args...)
	require.NoError(t, err, "kubectl %s: %s", strings.Join(args, " "), out)
	return out
}

// waitUsed waits until the quota's status.used holds want (by value).
func (e *env) waitUsed(t *testing.T, name string, want map[core.ResourceName]string) {
	t.Helper()
	quotas := client.For[core.ResourceQuota](e.c, "default")
	var last core.ResourceList
	deadline := time.Now().Add(time.Minute)
	for {
		q, err := quotas.Get(context.Background(), name)
		require.NoError(t, err)
		last = q.Status.Used
		if usedIs(q, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("quota %s: used %v, want %v (hard %v)", name, last, want, q.Status.Hard)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func usedIs(q *core.ResourceQuota, want map[core.ResourceName]string) bool {
	if len(q.Status.Hard) != len(q.Spec.Hard) {
		return false
	}
	for n, w := range want {
		got, ok := q.Status.Used[n]
		if !ok || got.Cmp(mustQuantity(w)) != 0 {
			return false
		}
	}
	return true
}

const podManifest = `apiVersion: v1
kind: Pod
metadata: {name: %s}
spec:
  containers:
  - name: c
    image: orkit.local/hello:v1
    resources:
      requests: {cpu: 250m, memory: 64Mi}
      limits: {cpu: 500m, memory: 64Mi}
`

const rcQuotaManifest = `apiVersion: v1
kind: ReplicationController
metadata: {name: web}
spec:
  replicas: 1
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: c
        image: orkit.local/hello:v1
        resources:
          requests: {cpu: 100m, memory: 32Mi}
          limits: {cpu: 100m, memory: 32Mi}
`

// TestKubectlQuotaLifecycle follows the conformance suite's "capture the
// life of" tests with kubectl: status is computed promptly after create,
// follows pods, services, secrets, configmaps, replication controllers and
// count/replicasets.apps as they come and go, kubectl describe quota shows
// it, and admission refuses what the computed usage leaves no room for.
func TestKubectlQuotaLifecycle(t *testing.T) {
	e := setup(t)
	e.run(t, "", "create", "quota", "q",
		"--hard=pods=3,services=3,secrets=10,configmaps=10,replicationcontrollers=2,requests.cpu=1,requests.memory=500Mi,limits.cpu=2,limits.memory=1Gi,count/replicasets.apps=5,services.nodeports=1,persistentvolumeclaims=3,requests.storage=10Gi")
	cms, err := client.For[core.ConfigMap](e.c, "default").List(context.Background(), client.ListOptions{})
	require.NoError(t, err)
	// The default namespace holds the kubernetes Service already.
	svcs, err := client.For[core.Service](e.c, "default").List(context.Background(), client.ListOptions{})
	require.NoError(t, err)
	base := map[core.ResourceName]string{"pods": "0", "services": itoa(len(svcs.Items)), "replicationcontrollers": "0", "requests.cpu": "0",
		"requests.memory": "0", "limits.cpu": "0", "count/replicasets.apps": "0", "services.nodeports": "0",
		"persistentvolumeclaims": "0", "requests.storage": "0", "configmaps": itoa(len(cms.Items))}
	e.waitUsed(t, "q", base)

	e.run(t, strings.ReplaceAll(podManifest, "%s", "p1"), "create", "-f", "-")
	e.waitUsed(t, "q", map[core.ResourceName]string{"pods": "1", "requests.cpu": "250m", "requests.memory": "64Mi", "limits.cpu": "500m"})
	e.run(t, "", "create", "service", "nodeport", "np", "--tcp=80:8080")
	e.run(t, "", "create", "secret", "generic", "s1", "--from-literal=a=b")
	e.run(t, "", "create", "configmap", "c1", "--from-literal=a=b")
	e.run(t, rcQuotaManifest, "create", "-f", "-")
	e.waitUsed(t, "q", map[core.ResourceName]string{"pods": "2", "services": itoa(len(svcs.Items) + 1), "services.nodeports": "1",
		"replicationcontrollers": "1", "requests.cpu": "350m", "configmaps": itoa(len(cms.Items) + 1)})

	out := e.run(t, "", "describe", "quota", "q")
	assert.Regexp(t, `(?m)^Name:\s+q$`, out)
	assert.Regexp(t, `(?m)^Resource\s+Used\s+Hard$`, out)
	assert.Regexp(t, `(?m)^pods\s+2\s+3$`, out)
	assert.Regexp(t, `(?m)^requests\.cpu\s+350m\s+1$`, out)
	assert.Regexp(t, `(?m)^services\.nodeports\s+1\s+1$`, out)
	assert.Regexp(t, `(?m)^count/replicasets\.apps\s+0\s+5$`, out)
	out = e.run(t, "", "get", "quota", "q")
	assert.Regexp(t, `q\s+\S+\s+.*pods: 2/3`, out)

	// Admission refuses on the computed usage.
	out, err = e.kubectl(t, "", "create", "service", "nodeport", "np2", "--tcp=81:8080")
	require.Error(t, err)
	assert.Contains(t, out, `exceeded quota: q, requested: services.nodeports=1, used: services.nodeports=1, limited: services.nodeports=1`)

	// Deletions give usage back.
	e.run(t, "", "delete", "pod", "p1", "--wait=false")
	e.run(t, "", "delete", "service", "np")
	e.run(t, "", "delete", "rc", "web", "--wait=false")
	e.waitUsed(t, "q", map[core.ResourceName]string{"services": itoa(len(svcs.Items)), "services.nodeports": "0", "replicationcontrollers": "0"})
	e.run(t, "", "create", "service", "nodeport", "np3", "--tcp=82:8080")
}

// TestQuotaSpecChange: a changed spec.hard is mirrored into status.hard
// and a new name gets its usage.
func TestQuotaSpecChange(t *testing.T) {
	e := setup(t)
	e.run(t, "", "create", "quota", "q", "--hard=pods=10")
	e.run(t, strings.ReplaceAll(podManifest, "%s", "p1"), "create", "-f", "-")
	e.waitUsed(t, "q", map[core.ResourceName]string{"pods": "1"})
	e.run(t, "", "patch", "quota", "q", "-p", `{"spec":{"hard":{"pods":"5","limits.memory":"1Gi"}}}`)
	e.waitUsed(t, "q", map[core.ResourceName]string{"pods": "1", "limits.memory": "64Mi"})
	q, err := client.For[core.ResourceQuota](e.c, "default").Get(context.Background(), "q")
	require.NoError(t, err)
	hard := q.Status.Hard[core.ResourcePods]
	assert.Equal(t, "5", hard.String())
}
