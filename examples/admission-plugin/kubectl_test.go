package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
)

// kubectl runs the real kubectl against a kubeconfig, with its own
// discovery cache.
type kubectl struct {
	t          *testing.T
	path       string
	kubeconfig string
	cacheDir   string
}

// requireKubectl finds kubectl; without it the test is skipped, or fails
// when CI=true.
func requireKubectl(t *testing.T, kubeconfig string) *kubectl {
	t.Helper()
	path, err := exec.LookPath("kubectl")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("kubectl is missing (CI=true, so this fails instead of skipping): %v", err)
		}
		t.Skipf("kubectl is missing: %v", err)
	}
	return &kubectl{t: t, path: path, kubeconfig: kubeconfig, cacheDir: t.TempDir()}
}

// run runs kubectl with args and returns stdout, stderr and the error.
func (k *kubectl) run(args ...string) (string, string, error) {
	k.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	args = append([]string{"--kubeconfig", k.kubeconfig, "--cache-dir", k.cacheDir}, args...)
	cmd := exec.CommandContext(ctx, k.path, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

// ok runs kubectl and fails the test unless it succeeds.
func (k *kubectl) ok(args ...string) string {
	k.t.Helper()
	out, errOut, err := k.run(args...)
	require.NoError(k.t, err, "kubectl %v: %s", args, errOut)
	return out
}

// getPod reads a pod with kubectl get -o json.
func (k *kubectl) getPod(name string) *core.Pod {
	k.t.Helper()
	var p core.Pod
	require.NoError(k.t, json.Unmarshal([]byte(k.ok("get", "pod", name, "-o", "json")), &p))
	return &p
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}

// TestWithKubectl drives the program's control plane with the real
// kubectl: a pod without a team is refused with 403 and not stored; one
// with a team is created and annotated; one exposing port 80 comes back
// from the create with the sidecar; removing the team label is refused.
func TestWithKubectl(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane")
	}
	ctx, cancel := context.WithCancel(context.Background())
	c, err := start(ctx, options{DataDir: t.TempDir(), Listen: freeAddr(t), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	require.NoError(t, err)
	t.Cleanup(func() {
		cancel()
		assert.NoError(t, <-c.runnerDone)
	})
	k := requireKubectl(t, c.cp.AdminKubeconfig)

	t.Run("no team: refused", func(t *testing.T) {
		_, errOut, err := k.run("run", "web", "--image=orkit.local/hello:v1")
		require.Error(t, err)
		assert.Contains(t, errOut, `Error from server (Forbidden): pods "web" is forbidden: admission plugin "RequireTeam" denied the request: pods must carry a "team" label`)
		_, errOut, err = k.run("get", "pod", "web")
		require.Error(t, err)
		assert.Contains(t, errOut, "NotFound")
	})
	t.Run("team: created with the annotation", func(t *testing.T) {
		k.ok("run", "web", "--image=orkit.local/hello:v1", "--labels=team=web")
		p := k.getPod("web")
		assert.Equal(t, "admin", p.Annotations[AdmittedByAnnotation])
		require.Len(t, p.Spec.Containers, 1, "no port 80, no sidecar")
		assert.True(t, p.IsInitialized())
	})
	t.Run("port 80: created with the sidecar", func(t *testing.T) {
		out := k.ok("run", "proxy", "--image=orkit.local/hello:v1", "--labels=team=web", "--port=80", "-o", "json")
		var created core.Pod
		require.NoError(t, json.Unmarshal([]byte(out), &created), out)
		names := func(p *core.Pod) []string {
			var n []string
			for _, c := range p.Spec.Containers {
				n = append(n, c.Name)
			}
			return n
		}
		assert.Equal(t, []string{"proxy", "proxy-sidecar"}, names(&created), "the create's answer is the initialized pod")
		assert.True(t, created.IsInitialized())
		p := k.getPod("proxy")
		assert.Equal(t, []string{"proxy", "proxy-sidecar"}, names(p))
		assert.Equal(t, "proxy-sidecar", p.Annotations[InjectedAnnotation])
		assert.Equal(t, "admin", p.Annotations[AdmittedByAnnotation])
		assert.Equal(t, "proxy=orkit.local/hello:v1 proxy-sidecar=orkit.local/pause:v1",
			strings.TrimSpace(k.ok("get", "pod", "proxy", "-o", `jsonpath={range .spec.containers[*]}{.name}={.image} {end}`)))
	})
	t.Run("removing the team label: refused", func(t *testing.T) {
		_, errOut, err := k.run("label", "pod", "web", "team-")
		require.Error(t, err)
		assert.Contains(t, errOut, `admission plugin "RequireTeam" denied the request`)
		assert.Equal(t, "web", k.getPod("web").Labels[TeamLabel])
	})
}
