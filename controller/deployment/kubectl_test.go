package deployment_test

import (
	"context"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/client"
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

// TestKubectlRollout drives a Deployment with the real kubectl: create,
// rollout status, set image with a change cause, history, undo, scale.
func TestKubectlRollout(t *testing.T) {
	kubectl := kubectlPath(t)
	e := setup(t, 3)
	run := func(args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, kubectl, append([]string{"--kubeconfig", e.cluster.AdminKubeconfig, "-n", "default"}, args...)...)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "kubectl %s: %s", strings.Join(args, " "), out)
		return string(out)
	}
	run("create", "deployment", "web", "--image=orkit.local/hello:v1", "--replicas=3")
	out := run("rollout", "status", "deployment/web", "--timeout=60s")
	assert.Contains(t, out, `deployment "web" successfully rolled out`)

	run("set", "image", "deployment/web", "hello=orkit.local/hello:v2")
	run("annotate", "deployment/web", "kubernetes.io/change-cause=image v2", "--overwrite")
	out = run("rollout", "status", "deployment/web", "--timeout=60s")
	assert.Contains(t, out, "successfully rolled out")

	out = run("rollout", "history", "deployment/web")
	assert.Contains(t, out, "REVISION")
	assert.Regexp(t, `(?m)^1\s`, out)
	assert.Regexp(t, `(?m)^2\s+image v2`, out)

	out = run("rollout", "undo", "deployment/web")
	assert.Contains(t, out, "rolled back")
	out = run("rollout", "status", "deployment/web", "--timeout=60s")
	assert.Contains(t, out, "successfully rolled out")
	img := run("get", "deployment/web", "-o", "jsonpath={.spec.template.spec.containers[0].image}")
	assert.Equal(t, "orkit.local/hello:v1", img)
	out = run("rollout", "history", "deployment/web")
	assert.Regexp(t, `(?m)^3\s`, out, "the rollback is revision 3")

	// Events are written asynchronously.
	scaledUp := regexp.MustCompile(`ScalingReplicaSet\s+\S+\s+deployment-controller\s+Scaled up replica set web-[a-z0-9]+ from 0 to 3`)
	testnode.Eventually(t, wait, func() bool { return scaledUp.MatchString(run("describe", "deployment/web")) }, "ScalingReplicaSet Event in describe")

	run("scale", "deployment/web", "--replicas=5")
	run("rollout", "status", "deployment/web", "--timeout=60s")
	pods := func() int {
		l, err := client.For[core.Pod](e.c, "default").List(context.Background(), client.ListOptions{LabelSelector: "app=web"})
		require.NoError(t, err)
		return len(l.Items)
	}
	testnode.Eventually(t, wait, func() bool { return pods() == 5 }, "5 pods after kubectl scale")
	run("scale", "deployment/web", "--replicas=0")
	testnode.Eventually(t, wait, func() bool { return pods() == 0 }, "no pods after kubectl scale --replicas=0")
	// The status follows the pods: READY reaches 0/0 a moment later.
	testnode.Eventually(t, wait, func() bool { return strings.Contains(run("get", "deployment/web"), "0/0") }, "READY 0/0")
}
