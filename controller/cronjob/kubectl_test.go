package cronjob_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/internal/testnode"
)

// TestKubectlBatch drives Jobs and CronJobs with the real kubectl: create
// job, wait for completion, the table columns, describe, and create
// cronjob with the controller (on a fake clock) creating its Job.
func TestKubectlBatch(t *testing.T) {
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("kubectl is required with CI=true: %v", err)
		}
		t.Skip("kubectl not installed")
	}
	e := setup(t)
	run := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(kubectl, append([]string{"--kubeconfig", e.kubeconfig, "-n", "default"}, args...)...).CombinedOutput()
		require.NoError(t, err, "kubectl %v: %s", args, out)
		return string(out)
	}
	e.setFate("hi", testnode.Succeeded)
	assert.Contains(t, run("create", "job", "hi", "--image=orkit.local/hello:v1", "--", "/hello", "echo", "hi"), "job.batch/hi created")
	assert.Contains(t, run("wait", "--for=condition=complete", "job/hi", "--timeout=30s"), "job.batch/hi condition met")

	lines := strings.Split(strings.TrimSpace(run("get", "jobs")), "\n")
	require.Len(t, lines, 2)
	assert.Equal(t, []string{"NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"}, strings.Fields(lines[0]))
	row := strings.Fields(lines[1])
	assert.Equal(t, []string{"hi", "Complete", "1/1"}, row[:3])
	wide := strings.Split(run("get", "jobs", "-o", "wide"), "\n")
	assert.Equal(t, []string{"NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE", "CONTAINERS", "IMAGES", "SELECTOR"}, strings.Fields(wide[0]))
	assert.Contains(t, wide[1], "orkit.local/hello:v1")
	assert.Contains(t, wide[1], "batch.kubernetes.io/controller-uid=")
	desc := run("describe", "job", "hi")
	assert.Contains(t, desc, "Pods Statuses:")
	assert.Contains(t, desc, "1 Succeeded")
	assert.Contains(t, run("get", "job", "hi", "-o", "jsonpath={.spec.template.spec.containers[0].command}"), `["/hello","echo","hi"]`)

	assert.Contains(t, run("create", "cronjob", "tick", "--image=orkit.local/hello:v1", "--schedule=*/1 * * * *", "--", "/hello", "echo", "tick"),
		"cronjob.batch/tick created")
	want := "tick-" + itoa(e.now().Unix()/60) // created before the fake clock's minute: due at once
	testnode.Eventually(t, wait, func() bool {
		out, err := exec.Command(kubectl, "--kubeconfig", e.kubeconfig, "-n", "default", "get", "jobs", "-o", "name").CombinedOutput()
		return err == nil && strings.Contains(string(out), "job.batch/"+want)
	}, "the cronjob's job %s", want)
	lines = strings.Split(strings.TrimSpace(run("get", "cj")), "\n")
	require.Len(t, lines, 2)
	assert.Equal(t, []string{"NAME", "SCHEDULE", "TIMEZONE", "SUSPEND", "ACTIVE", "LAST", "SCHEDULE", "AGE"}, strings.Fields(lines[0]))
	assert.Equal(t, []string{"tick", "*/1", "*", "*", "*", "*", "<none>", "False"}, strings.Fields(lines[1])[:8])
	// Bad input is refused with Kubernetes' messages and changes nothing.
	fail := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(kubectl, append([]string{"--kubeconfig", e.kubeconfig, "-n", "default"}, args...)...).CombinedOutput()
		require.Error(t, err, "kubectl %v: %s", args, out)
		return string(out)
	}
	assert.Contains(t, fail("create", "cronjob", "bad", "--image=orkit.local/hello:v1", "--schedule=* * *"),
		`spec.schedule: Invalid value: "* * *": expected exactly 5 fields, found 3: [* * *]`)
	assert.Contains(t, fail("patch", "job", "hi", "--type=json", `-p=[{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"other"}]`),
		"spec.template: Invalid value")
	assert.Contains(t, fail("patch", "job", "hi", "--type=merge", `-p={"spec":{"completions":3}}`),
		"spec.completions: Invalid value: 3: field is immutable")
	assert.Contains(t, run("get", "job", "hi", "-o", "jsonpath={.spec.template.spec.containers[0].image} {.spec.completions}"),
		"orkit.local/hello:v1 1")

	e.clock.Step(time.Minute)
	all := run("get", "all")
	assert.Contains(t, all, "cronjob.batch/tick")
	assert.Contains(t, all, "job.batch/hi")
	run("delete", "cronjob", "tick")
}
