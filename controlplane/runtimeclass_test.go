package controlplane

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
)

const runtimeClassYAML = `apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: kata}
handler: kata
overhead:
  podFixed: {cpu: 250m, memory: 120Mi}
scheduling:
  nodeSelector: {runtime: kata}
  tolerations:
  - {key: sandboxed, operator: Exists, effect: NoSchedule}
`

// TestRuntimeClassAdmission drives RuntimeClasses as a user does: kubectl
// creates and lists one, a pod naming it gets its overhead, node selector
// and tolerations, and an unknown class, a conflicting overhead, an
// invalid handler and a changed handler are refused with Kubernetes'
// words.
func TestRuntimeClassAdmission(t *testing.T) {
	kubectlBin, err := exec.LookPath("kubectl")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("kubectl is required under CI: %v", err)
		}
		t.Skipf("kubectl not found: %v", err)
	}
	tokens := writeFile(t, "tokens.csv", "admin-token,admin,0,\"system:masters\"\n")
	cp := start(t, Config{Auth: AuthConfig{TokenFile: tokens}})
	admin := bearer("admin-token")
	kubectl := func(stdin string, args ...string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, kubectlBin, append([]string{"--kubeconfig", cp.AdminKubeconfig}, args...)...)
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := kubectl(runtimeClassYAML, "create", "-f", "-")
	require.NoError(t, err, out)
	out, err = kubectl("", "get", "runtimeclasses")
	require.NoError(t, err, out)
	assert.Regexp(t, `(?m)^NAME\s+HANDLER\s+AGE$`, out)
	assert.Regexp(t, `(?m)^kata\s+kata\s+\S+$`, out)

	const pods = "/api/v1/namespaces/default/pods"
	podWith := func(name, class string, extra map[string]any) map[string]any {
		spec := map[string]any{"runtimeClassName": class, "containers": []map[string]any{{"name": "c", "image": "orkit.local/hello:v1"}}}
		for k, v := range extra {
			spec[k] = v
		}
		return map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": name}, "spec": spec}
	}
	code, body := call(t, cp, http.MethodPost, pods, podWith("sandboxed", "kata", nil), admin)
	require.Equal(t, http.StatusCreated, code, body)
	var p core.Pod
	require.NoError(t, json.Unmarshal([]byte(body), &p))
	cpu, mem := p.Spec.Overhead[core.ResourceCPU], p.Spec.Overhead[core.ResourceMemory]
	assert.Equal(t, "250m", cpu.String())
	assert.Equal(t, "120Mi", mem.String())
	assert.Equal(t, map[string]string{"runtime": "kata"}, p.Spec.NodeSelector)
	assert.Contains(t, p.Spec.Tolerations, core.Toleration{Key: "sandboxed", Operator: core.TolerationOpExists, Effect: core.TaintEffectNoSchedule})

	refusals := []struct {
		name string
		pod  map[string]any
		want string
	}{
		{"unknown class", podWith("p1", "gvisor", nil), `pods \"p1\" is forbidden: pod rejected: RuntimeClass \"gvisor\" not found`},
		{"other overhead", podWith("p2", "kata", map[string]any{"overhead": map[string]any{"cpu": "1"}}),
			`pods \"p2\" is forbidden: pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead`},
		{"selector conflict", podWith("p3", "kata", map[string]any{"nodeSelector": map[string]any{"runtime": "runc"}}),
			`pods \"p3\" is forbidden: conflict: runtimeClass.scheduling.nodeSelector[runtime] = kata; pod.spec.nodeSelector[runtime] = runc`},
	}
	for _, tc := range refusals {
		code, body := call(t, cp, http.MethodPost, pods, tc.pod, admin)
		assert.Equal(t, http.StatusForbidden, code, tc.name)
		assert.Contains(t, body, tc.want, tc.name)
	}

	out, err = kubectl(strings.Replace(runtimeClassYAML, "handler: kata", "handler: Kata_1", 1), "apply", "-f", "-")
	require.Error(t, err)
	assert.Contains(t, out, `handler: Invalid value: "Kata_1"`)
	out, err = kubectl("", "patch", "runtimeclass", "kata", "--type=merge", "-p", `{"handler":"runc"}`)
	require.Error(t, err)
	assert.Contains(t, out, `handler: Invalid value: "runc": field is immutable`)
	out, err = kubectl(strings.Replace(runtimeClassYAML, "name: kata", "name: other", 1), "create", "-f", "-", "--as=mallory")
	require.Error(t, err)
	assert.Contains(t, out, `User "mallory" cannot create resource "runtimeclasses" in API group "node.k8s.io" at the cluster scope`)
}
