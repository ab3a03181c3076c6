package containerd_test

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/cri"
	ctrd "github.com/orkit/orkit/cri/containerd"
	"github.com/orkit/orkit/internal/testenv"
)

// newRuntime starts a private containerd and a Runtime on it.
func newRuntime(t *testing.T) (*ctrd.Runtime, *testenv.Env) {
	t.Helper()
	env := testenv.New(t)
	return openRuntime(t, env), env
}

func openRuntime(t *testing.T, env *testenv.Env) *ctrd.Runtime {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rt, err := ctrd.New(ctx, env.Address, ctrd.WithNamespace(env.Namespace), ctrd.WithStateDir(env.StateDir))
	require.NoError(t, err)
	t.Cleanup(func() { rt.Close() })
	return rt
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func podConfig(name, logDir string) cri.PodSandboxConfig {
	return cri.PodSandboxConfig{
		Metadata:     cri.PodSandboxMetadata{Name: name, UID: "uid-" + name, Namespace: "default"},
		Hostname:     name,
		LogDirectory: logDir,
		Labels:       map[string]string{"app": name},
	}
}

func helloConfig(name string, args ...string) cri.ContainerConfig {
	return cri.ContainerConfig{
		Metadata: cri.ContainerMetadata{Name: name},
		Image:    cri.ImageSpec{Image: "orkit.local/hello:v1"},
		Args:     args,
		LogPath:  name + ".log",
	}
}

// runPod runs a sandbox; the pod's logs go to a temp dir.
func runPod(t *testing.T, rt *ctrd.Runtime, name string) (string, cri.PodSandboxConfig) {
	t.Helper()
	cfg := podConfig(name, t.TempDir())
	id, err := rt.RunPodSandbox(ctxT(t), cfg)
	require.NoError(t, err)
	return id, cfg
}

// startContainer creates and starts a container.
func startContainer(t *testing.T, rt *ctrd.Runtime, sb string, sbCfg cri.PodSandboxConfig, cfg cri.ContainerConfig) string {
	t.Helper()
	ctx := ctxT(t)
	id, err := rt.CreateContainer(ctx, sb, cfg, sbCfg)
	require.NoError(t, err)
	require.NoError(t, rt.StartContainer(ctx, id))
	return id
}

// waitState polls the container's status until cond holds.
func waitStatus(t *testing.T, rt *ctrd.Runtime, id string, cond func(cri.ContainerStatus) bool) cri.ContainerStatus {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		st, err := rt.ContainerStatus(ctxT(t), id)
		require.NoError(t, err)
		if cond(st) {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("container %s: condition not met; last status %+v", id, st)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func exited(st cri.ContainerStatus) bool { return st.State == cri.ContainerExited }

// waitHTTP polls ExecSync wget inside id until it answers.
func waitExec(t *testing.T, rt *ctrd.Runtime, id string, cmd ...string) cri.ExecResult {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := rt.ExecSync(ctxT(t), id, cmd, 10*time.Second)
		require.NoError(t, err)
		if res.ExitCode == 0 {
			return res
		}
		if time.Now().After(deadline) {
			t.Fatalf("exec %v in %s: exit %d, stderr %s", cmd, id, res.ExitCode, res.Stderr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// readLog returns the parsed entries of a CRI log file.
func readLog(t *testing.T, path string) []ctrd.LogEntry {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var out []ctrd.LogEntry
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		e, err := ctrd.ParseLogLine(sc.Bytes())
		require.NoError(t, err, "line %q", sc.Text())
		out = append(out, e)
	}
	return out
}

// logText joins the text of the entries of one stream, honouring partials.
func logText(entries []ctrd.LogEntry, stream string) string {
	var b strings.Builder
	for _, e := range entries {
		if e.Stream != stream {
			continue
		}
		b.Write(e.Text)
		if !e.Partial {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func logPath(cfg cri.PodSandboxConfig, c cri.ContainerConfig) string {
	return filepath.Join(cfg.LogDirectory, c.LogPath)
}
