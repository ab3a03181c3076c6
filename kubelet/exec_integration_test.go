package kubelet

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/internal/testenv"
)

// kubectlRunner runs real kubectl with one kubeconfig.
type kubectlRunner struct {
	t          *testing.T
	path       string
	kubeconfig string
}

func newKubectl(t *testing.T, kubeconfig string) kubectlRunner {
	path, err := exec.LookPath("kubectl")
	if err != nil {
		testenv.Unavailable(t, "kubectl not in PATH")
	}
	return kubectlRunner{t: t, path: path, kubeconfig: kubeconfig}
}

// run returns kubectl's stdout, stderr and exit code.
func (k kubectlRunner) run(stdin string, args ...string) (string, string, int) {
	k.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, k.path, append([]string{"--kubeconfig", k.kubeconfig}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Env = append(cmd.Environ(), "HOME="+k.t.TempDir())
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return out.String(), errOut.String(), ee.ExitCode()
	}
	require.NoError(k.t, err)
	return out.String(), errOut.String(), 0
}

// TestRealKubectlExec runs real kubectl exec through the API server and
// the kubelet into containers of real containerd.
func TestRealKubectlExec(t *testing.T) {
	n := newRealNode(t, "exec-node")
	admin := newKubectl(t, n.tc.cp.AdminKubeconfig)
	ctx := context.Background()
	p := helloPod("shell", "exec-node")
	second := p.Spec.Containers[0]
	second.Name, second.Ports = "second", nil
	second.Env = []core.EnvVar{{Name: "WHO", Value: "second"}, {Name: "PORT", Value: "8081"}}
	p.Spec.Containers = append(p.Spec.Containers, second)
	_, err := pods(n.tc.admin, "default").Create(ctx, p)
	require.NoError(t, err)
	waitPod(t, n.tc.admin, "default", "shell", 60*time.Second, "running", func(p *core.Pod) bool {
		return running(p) && isReady(p)
	})

	tests := []struct {
		name       string
		stdin      string
		args       []string
		wantStdout string
		wantStderr string
		wantCode   int
	}{
		{name: "stdout", args: []string{"exec", "shell", "--", "/hello", "echo", "hi"}, wantStdout: "hi\n"},
		{name: "stderr", args: []string{"exec", "shell", "--", "/hello", "echo-err", "oops"}, wantStderr: "oops\n"},
		{name: "stdin", stdin: "one\ntwo\n", args: []string{"exec", "-i", "shell", "--", "/hello", "cat", "-"}, wantStdout: "one\ntwo\n"},
		{name: "exit code", args: []string{"exec", "shell", "--", "/hello", "exit", "3"}, wantCode: 3,
			wantStderr: "command terminated with exit code 3"},
		{name: "container flag", args: []string{"exec", "shell", "-c", "second", "--", "/hello", "env"}, wantStdout: "WHO=second"},
		{name: "tty without a terminal", args: []string{"exec", "-t", "shell", "--", "/hello", "echo", "hi"}, wantStdout: "hi\n"},
		{name: "container not valid", args: []string{"exec", "shell", "-c", "db", "--", "/hello", "echo"}, wantCode: 1,
			wantStderr: "Error from server (BadRequest): container db is not valid for pod shell"},
		{name: "pod not found", args: []string{"exec", "nope", "--", "/hello", "echo"}, wantCode: 1,
			wantStderr: `Error from server (NotFound): pods "nope" not found`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := admin.run(tt.stdin, tt.args...)
			assert.Equal(t, tt.wantCode, code, "stderr: %s", errOut)
			assert.Contains(t, out, tt.wantStdout)
			if tt.wantStdout != "" && !strings.Contains(tt.wantStdout, "=") {
				assert.Equal(t, tt.wantStdout, out)
			}
			assert.Contains(t, errOut, tt.wantStderr)
		})
	}

	t.Run("tty on a terminal", func(t *testing.T) {
		script, err := exec.LookPath("script")
		if err != nil {
			testenv.Unavailable(t, "script (util-linux) not installed: no terminal to give kubectl")
		}
		cmd := exec.Command(script, "-qefc", admin.path+" --kubeconfig "+admin.kubeconfig+
			" exec -it shell -- /hello echo on-a-tty", "/dev/null")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		assert.Contains(t, string(out), "on-a-tty\r")
	})

	t.Run("container not running", func(t *testing.T) {
		bad := simplePod("broken", "exec-node")
		bad.Spec.Containers[0].Image = "orkit.local/missing:v1"
		bad.Spec.Containers[0].ImagePullPolicy = core.PullNever
		_, err := pods(n.tc.admin, "default").Create(ctx, bad)
		require.NoError(t, err)
		waitPod(t, n.tc.admin, "default", "broken", 60*time.Second, "image error", func(p *core.Pod) bool {
			return len(p.Status.ContainerStatuses) == 1 && p.Status.ContainerStatuses[0].State.Waiting != nil
		})
		_, errOut, code := admin.run("", "exec", "broken", "--", "/hello", "echo")
		assert.Equal(t, 1, code)
		assert.Contains(t, errOut, "Error from server (BadRequest): container app in pod broken is not running")
	})

	t.Run("user without create on pods/exec", func(t *testing.T) {
		path := filepath.Join(n.tc.dir, "viewer.kubeconfig")
		require.NoError(t, n.tc.cp.WriteKubeconfig(path, "viewer"))
		admin.run("", "create", "rolebinding", "viewer", "--clusterrole=view", "--user=viewer", "-n", "default")
		viewer := newKubectl(t, path)
		out, errOut, _ := viewer.run("", "get", "pod", "shell", "-o", "name")
		require.Equal(t, "pod/shell\n", out, errOut)
		_, errOut, code := viewer.run("", "exec", "shell", "--", "/hello", "echo", "hi")
		assert.Equal(t, 1, code)
		assert.Contains(t, errOut, `Error from server (Forbidden): pods "shell" is forbidden: User "viewer" cannot create resource "pods/exec" in API group "" in the namespace "default"`)
	})
}
