package containerd_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/cri"
)

// TestBadInputLosesNothing feeds malformed, oversized and conflicting
// requests: each fails with a typed error and leaves the node as it was.
func TestBadInputLosesNothing(t *testing.T) {
	rt, env := newRuntime(t)
	ctx := ctxT(t)
	sb, sbCfg := runPod(t, rt, "keeper")
	keeper := startContainer(t, rt, sb, sbCfg, helloConfig("keeper"))
	imagesBefore, err := rt.ListImages(ctx, cri.ImageFilter{})
	require.NoError(t, err)

	t.Run("duplicate sandbox", func(t *testing.T) {
		_, err := rt.RunPodSandbox(ctx, sbCfg)
		require.ErrorIs(t, err, cri.ErrAlreadyExists)
	})
	t.Run("duplicate container", func(t *testing.T) {
		_, err := rt.CreateContainer(ctx, sb, helloConfig("keeper"), sbCfg)
		require.ErrorIs(t, err, cri.ErrAlreadyExists)
	})
	t.Run("oversized sandbox config", func(t *testing.T) {
		cfg := podConfig("huge", t.TempDir())
		cfg.Annotations = map[string]string{"big": strings.Repeat("x", 2<<20)}
		_, err := rt.RunPodSandbox(ctx, cfg)
		require.ErrorIs(t, err, cri.ErrInvalidArgument)
	})
	t.Run("privileged not allowed", func(t *testing.T) {
		cfg := podConfig("priv", t.TempDir())
		cfg.Linux.Security.Privileged = true
		_, err := rt.RunPodSandbox(ctx, cfg)
		require.ErrorIs(t, err, cri.ErrInvalidArgument)
		c := helloConfig("priv")
		c.Linux.Security.Privileged = true
		_, err = rt.CreateContainer(ctx, sb, c, sbCfg)
		require.ErrorIs(t, err, cri.ErrInvalidArgument)
	})
	t.Run("unknown capability", func(t *testing.T) {
		c := helloConfig("caps")
		c.Linux.Security.Capabilities = &cri.Capability{Add: []string{"FLY"}}
		_, err := rt.CreateContainer(ctx, sb, c, sbCfg)
		require.ErrorIs(t, err, cri.ErrInvalidArgument)
	})
	t.Run("missing image", func(t *testing.T) {
		c := helloConfig("ghost")
		c.Image.Image = "orkit.local/ghost:v1"
		_, err := rt.CreateContainer(ctx, sb, c, sbCfg)
		require.ErrorIs(t, err, cri.ErrImageNotFound)
		_, err = rt.ImageStatus(ctx, c.Image)
		require.ErrorIs(t, err, cri.ErrImageNotFound)
	})
	t.Run("garbage archive", func(t *testing.T) {
		_, err := rt.ImportImage(ctx, strings.NewReader("this is not a tar archive"))
		require.ErrorIs(t, err, cri.ErrInvalidImage)
	})
	t.Run("truncated archive", func(t *testing.T) {
		b, err := os.ReadFile(env.Images[env.HelloImage].Path)
		require.NoError(t, err)
		_, err = rt.ImportImage(ctx, bytes.NewReader(b[:len(b)/2]))
		require.ErrorIs(t, err, cri.ErrInvalidImage)
	})
	t.Run("exec timeout", func(t *testing.T) {
		start := time.Now()
		_, err := rt.ExecSync(ctx, keeper, []string{"sleep", "30s"}, 300*time.Millisecond)
		require.ErrorIs(t, err, cri.ErrTimeout)
		assert.Less(t, time.Since(start), 20*time.Second)
	})
	t.Run("exec empty command", func(t *testing.T) {
		_, err := rt.ExecSync(ctx, keeper, nil, time.Second)
		require.ErrorIs(t, err, cri.ErrInvalidArgument)
	})
	t.Run("sandbox id given to container calls", func(t *testing.T) {
		require.NoError(t, rt.StopContainer(ctx, sb, 0), "not a container: nothing to stop")
		require.NoError(t, rt.RemoveContainer(ctx, sb))
		_, err := rt.ContainerStatus(ctx, sb)
		require.ErrorIs(t, err, cri.ErrNotFound)
	})

	// Nothing was lost or left behind.
	st, err := rt.PodSandboxStatus(ctx, sb)
	require.NoError(t, err)
	assert.Equal(t, cri.SandboxReady, st.State)
	cst, err := rt.ContainerStatus(ctx, keeper)
	require.NoError(t, err)
	assert.Equal(t, cri.ContainerRunning, cst.State)
	waitExec(t, rt, keeper, "wget", "http://127.0.0.1:8080/healthz")
	sbs, err := rt.ListPodSandbox(ctx, cri.PodSandboxFilter{})
	require.NoError(t, err)
	assert.Len(t, sbs, 1)
	ctrs, err := rt.ListContainers(ctx, cri.ContainerFilter{})
	require.NoError(t, err)
	assert.Len(t, ctrs, 1)
	assert.Equal(t, []string{sb}, dirEntries(t, filepath.Join(env.StateDir, "netns")))
	assert.Equal(t, []string{sb}, dirEntries(t, filepath.Join(env.StateDir, "sandboxes")))
	imagesAfter, err := rt.ListImages(ctx, cri.ImageFilter{})
	require.NoError(t, err)
	assert.Equal(t, imagesBefore, imagesAfter)
}
