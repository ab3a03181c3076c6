package statefulset

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/internal/testnode"
)

// TestKubectlRollout drives a StatefulSet with the real kubectl: rollout
// status, a template change, history and undo.
func TestKubectlRollout(t *testing.T) {
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("kubectl is required with CI=true: %v", err)
		}
		t.Skip("kubectl not installed")
	}
	cl := testnode.StartCluster(t)
	admin := cl.Client(t, cl.AdminKubeconfig)
	testnode.RunAgent(t, admin, testnode.Config{Nodes: 1, Bind: true})
	m, err := controller.NewManager(controller.ManagerConfig{Client: cl.Client(t, cl.ControllerKubeconfig), Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	c, err := New(m, Config{Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	require.NoError(t, m.Add(c))
	testnode.RunManager(t, m)
	run := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(kubectl, append([]string{"--kubeconfig", cl.AdminKubeconfig, "-n", "default"}, args...)...).CombinedOutput()
		require.NoError(t, err, "kubectl %v: %s", args, out)
		return string(out)
	}
	set := webSet("default", 2, "")
	set.Spec.VolumeClaimTemplates = nil
	_, err = client.For[apps.StatefulSet](admin, "default").Create(context.Background(), set)
	require.NoError(t, err)
	out := run("rollout", "status", "statefulset/web", "--timeout=30s")
	assert.Contains(t, out, "roll out complete")

	run("set", "image", "statefulset/web", "web=orkit.local/hello:v2")
	out = run("rollout", "status", "statefulset/web", "--timeout=30s")
	assert.Contains(t, out, "roll out complete")
	out = run("rollout", "history", "statefulset/web")
	assert.Contains(t, out, "1")
	assert.Contains(t, out, "2")

	run("rollout", "undo", "statefulset/web")
	run("rollout", "status", "statefulset/web", "--timeout=30s")
	testnode.Eventually(t, 30*time.Second, func() bool {
		for _, name := range []string{"web-0", "web-1"} {
			p, err := client.For[core.Pod](admin, "default").Get(context.Background(), name)
			if err != nil || p.Spec.Containers[0].Image != "orkit.local/hello:v1" || p.DeletionTimestamp != nil {
				return false
			}
		}
		return true
	}, "pods back on the first template")
	out = run("get", "statefulset", "web", "-o", "jsonpath={.status.currentRevision}={.status.updateRevision}")
	revs := strings.Split(out, "=")
	require.Len(t, revs, 2)
	assert.Equal(t, revs[0], revs[1], "rollout complete")
}
