package containerd_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/cri"
	ctrd "github.com/orkit/orkit/cri/containerd"
	"github.com/orkit/orkit/cri/critest"
	"github.com/orkit/orkit/images"
	"github.com/orkit/orkit/internal/testenv"
)

// TestConformance runs the shared runtime conformance suite against
// containerd: one private daemon, a fresh containerd namespace (with the
// test images imported) per subtest.
func TestConformance(t *testing.T) {
	env := testenv.New(t)
	b, err := images.New("", "")
	require.NoError(t, err)
	importSpec := images.Spec{Ref: "orkit.local/import-test:v1", Package: images.PausePackage, Binary: "/pause"}
	importRes, err := b.Build(context.Background(), importSpec)
	require.NoError(t, err)
	var seq atomic.Int64
	critest.Run(t, critest.Harness{
		PauseImage: env.PauseImage,
		HelloImage: env.HelloImage,
		Timeout:    60 * time.Second,
		New: func(t *testing.T) cri.Runtime {
			ns := fmt.Sprintf("critest-%d", seq.Add(1))
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			require.NoError(t, testenv.ImportArchives(ctx, env.Address, ns, env.Images))
			rt, err := ctrd.New(ctx, env.Address, ctrd.WithNamespace(ns), ctrd.WithStateDir(filepath.Join(env.StateDir, ns)))
			require.NoError(t, err)
			t.Cleanup(func() { removeAll(t, rt); rt.Close() })
			return &readyRuntime{Runtime: rt, t: t, cmds: map[string][]string{}}
		},
		Sandbox: func(t *testing.T, cfg *cri.PodSandboxConfig) { cfg.LogDirectory = t.TempDir() },
		ImportArchive: func(t *testing.T) io.Reader {
			f, err := os.Open(importRes.Path)
			require.NoError(t, err)
			t.Cleanup(func() { f.Close() })
			return f
		},
		ImportRef: importSpec.Ref,
	})
}

// removeAll removes every sandbox (and so every container) of rt.
func removeAll(t *testing.T, rt *ctrd.Runtime) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sbs, err := rt.ListPodSandbox(ctx, cri.PodSandboxFilter{})
	if err != nil {
		t.Errorf("list sandboxes for cleanup: %v", err)
		return
	}
	for _, s := range sbs {
		if err := rt.RemovePodSandbox(ctx, s.ID); err != nil {
			t.Errorf("remove sandbox %s: %v", s.ID, err)
		}
	}
}

// readyRuntime adapts the suite to a real runtime in one respect: the
// suite stops a container as soon as it reads RUNNING, but a real process
// needs a moment to start and set up its SIGTERM handling (a Go program
// that is PID 1 and gets SIGTERM before that exits 2, not 0 or 137).
// StartContainer of the hello server and of "sleep-ignore-term" therefore
// returns once the program has logged that it is ready. Everything else
// passes through.
type readyRuntime struct {
	*ctrd.Runtime
	t    *testing.T
	mu   sync.Mutex
	cmds map[string][]string
}

func (r *readyRuntime) CreateContainer(ctx context.Context, sb string, cfg cri.ContainerConfig, sbCfg cri.PodSandboxConfig) (string, error) {
	id, err := r.Runtime.CreateContainer(ctx, sb, cfg, sbCfg)
	if err == nil {
		r.mu.Lock()
		r.cmds[id] = append(append([]string{}, cfg.Command...), cfg.Args...)
		r.mu.Unlock()
	}
	return id, err
}

func (r *readyRuntime) StartContainer(ctx context.Context, id string) error {
	if err := r.Runtime.StartContainer(ctx, id); err != nil {
		return err
	}
	r.mu.Lock()
	cmd, known := r.cmds[id]
	r.mu.Unlock()
	marker := ""
	switch {
	case slices.Contains(cmd, "sleep-ignore-term"):
		marker = "ignoring SIGTERM"
	case known && len(cmd) == 0: // the hello server
		marker = "listening"
	default:
		return nil
	}
	st, err := r.Runtime.ContainerStatus(ctx, id)
	if err != nil || st.LogPath == "" || st.State != cri.ContainerRunning {
		return err
	}
	waitLog(r.t, st.LogPath, marker)
	return nil
}
