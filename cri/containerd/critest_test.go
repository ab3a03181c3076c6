package containerd_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/cri"
	ctrd "github.com/orkit/orkit/cri/containerd"
	"github.com/orkit/orkit/cri/critest"
	"github.com/orkit/orkit/internal/imagebuild"
	"github.com/orkit/orkit/internal/images"
	"github.com/orkit/orkit/internal/testenv"
)

// TestConformance runs the shared runtime conformance suite against
// containerd: one private daemon, a fresh containerd namespace (with the
// test images imported) per subtest.
func TestConformance(t *testing.T) {
	env := testenv.New(t)
	b, err := imagebuild.New("", "")
	require.NoError(t, err)
	importSpec := imagebuild.Spec{Ref: "orkit.local/import-test:v1", Package: images.PausePackage, Binary: "/pause"}
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
			return rt
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
