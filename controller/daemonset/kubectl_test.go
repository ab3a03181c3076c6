package daemonset

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/internal/testnode"
)

// TestKubectlRollout drives a DaemonSet with the real kubectl: rollout
// status, set image, history and undo.
func TestKubectlRollout(t *testing.T) {
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("kubectl is required with CI=true: %v", err)
		}
		t.Skip("kubectl not installed")
	}
	c, kc := setup(t)
	run := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(kubectl, append([]string{"--kubeconfig", kc, "-n", "default"}, args...)...).CombinedOutput()
		require.NoError(t, err, "kubectl %v: %s", args, out)
		return string(out)
	}
	_, err = client.For[apps.DaemonSet](c, "default").Create(context.Background(), daemonSet("default"))
	require.NoError(t, err)
	assert.Contains(t, run("rollout", "status", "daemonset/agent", "--timeout=30s"), "successfully rolled out")
	run("set", "image", "daemonset/agent", "agent=orkit.local/hello:v2")
	assert.Contains(t, run("rollout", "status", "daemonset/agent", "--timeout=30s"), "successfully rolled out")
	for _, pods := range livePodsByNode(t, c, "default") {
		assert.Equal(t, "orkit.local/hello:v2", pods[0].Spec.Containers[0].Image)
	}
	hist := run("rollout", "history", "daemonset/agent")
	assert.Contains(t, hist, "2")
	run("rollout", "undo", "daemonset/agent")
	testnode.Eventually(t, 30*time.Second, func() bool {
		by := livePodsByNode(t, c, "default")
		if len(by) != 2 {
			return false
		}
		for _, pods := range by {
			if len(pods) != 1 || pods[0].Spec.Containers[0].Image != "orkit.local/hello:v1" {
				return false
			}
		}
		return true
	}, "pods back on the first template")
	assert.Contains(t, run("rollout", "status", "daemonset/agent", "--timeout=30s"), "successfully rolled out")
}
