package apiserver_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestKubectlDiscoveryExplainAndWatch(t *testing.T) {
	c := startCluster(t)
	out := mustKubectl(t, c.admin, "", "api-resources")
	for _, re := range []string{
		`deployments\s+deploy\s+apps/v1\s+true\s+Deployment`,
		`pods\s+po\s+v1\s+true\s+Pod`,
		`namespaces\s+ns\s+v1\s+false\s+Namespace`,
		`statefulsets\s+sts\s+apps/v1\s+true\s+StatefulSet`,
		`resourcequotas\s+quota\s+v1\s+true\s+ResourceQuota`,
		`limitranges\s+limits\s+v1\s+true\s+LimitRange`,
	} {
		assert.Regexp(t, re, out)
	}
	out = mustKubectl(t, c.admin, "", "explain", "deployment.spec.replicas")
	assert.Contains(t, out, "KIND:")
	assert.Contains(t, out, "Deployment")
	assert.Contains(t, out, "replicas")
	assert.Contains(t, out, "Replicas is the desired number of pods (default 1).", "the field's doc comment is its description")
	out = mustKubectl(t, c.admin, "", "explain", "pod.spec")
	assert.Contains(t, out, "PodSpec is the desired state of a pod.")
	assert.Regexp(t, `(?s)activeDeadlineSeconds\s+<integer>\s+ActiveDeadlineSeconds bounds how long`, out)
	assert.Regexp(t, `(?s)affinity\s+<Affinity>\s+Affinity holds node affinity`, out, "a $ref field keeps its description")

	mustKubectl(t, c.admin, manifest, "apply", "-f", "-")
	out = mustKubectl(t, c.admin, "", "-n", "team", "get", "all")
	assert.Contains(t, out, "deployment.apps/web")
	assert.Contains(t, out, "service/web")

	// kubectl get -w prints the current object, then each change.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "kubectl", "--kubeconfig", c.admin, "-n", "team", "get", "cm", "cfg", "-w", "-o", "custom-columns=NAME:.metadata.name,V:.data.a", "--no-headers")
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	defer func() { cancel(); _ = cmd.Wait() }()
	lines := bufio.NewScanner(stdout)
	require.True(t, lines.Scan())
	assert.Equal(t, "cfg    1", strings.Join(strings.Fields(lines.Text()), "    "))
	mustKubectl(t, c.admin, "", "-n", "team", "patch", "cm", "cfg", "--type=merge", "-p", `{"data":{"a":"2"}}`)
	require.True(t, lines.Scan())
	assert.Equal(t, "cfg    2", strings.Join(strings.Fields(lines.Text()), "    "))
}
