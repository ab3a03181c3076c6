package containerd_test

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	containerd "github.com/containerd/containerd"
	"github.com/containerd/containerd/namespaces"
	"github.com/containerd/containerd/snapshots"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/cri"
	ctrd "github.com/orkit/orkit/cri/containerd"
)

// imageMount is a read-only image volume mount of ref at path.
func imageMount(path, ref, sub string) cri.Mount {
	return cri.Mount{ContainerPath: path, Image: &cri.ImageSpec{Image: ref}, ImageSubPath: sub, Readonly: true}
}

// mountPointsUnder lists the host's mount points at or below dir.
func mountPointsUnder(t *testing.T, dir string) []string {
	t.Helper()
	f, err := os.Open("/proc/self/mountinfo")
	require.NoError(t, err)
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) > 4 && (fields[4] == dir || strings.HasPrefix(fields[4], dir+"/")) {
			out = append(out, fields[4])
		}
	}
	return out
}

func TestImageVolume(t *testing.T) {
	rt, env := newRuntime(t)
	ctx := ctxT(t)
	sb, sbCfg := runPod(t, rt, "imagevol")

	cfg := helloConfig("reader", "sleep", "1h")
	cfg.Mounts = []cri.Mount{
		imageMount("/vol", env.HelloImage, ""),
		imageMount("/volbin", env.HelloImage, "bin"),
	}
	id := startContainer(t, rt, sb, sbCfg, cfg)
	waitStatus(t, rt, id, func(st cri.ContainerStatus) bool { return st.State == cri.ContainerRunning })

	// The image's files are readable at the mount path and at the subPath.
	res := waitExec(t, rt, id, "/hello", "ls", "/vol")
	assert.Contains(t, string(res.Stdout), "hello")
	assert.Contains(t, string(res.Stdout), "bin")
	res = waitExec(t, rt, id, "/hello", "ls", "/volbin")
	assert.Contains(t, string(res.Stdout), "cat")
	assert.NotContains(t, string(res.Stdout), "hello\n", "the subPath is the image's /bin, not its root")
	res = waitExec(t, rt, id, "/hello", "test", "-f", "/vol/hello")
	assert.Equal(t, int32(0), res.ExitCode)

	// Read-only, in both mounts.
	for _, p := range []string{"/vol/new", "/volbin/new", "/vol/hello"} {
		res, err := rt.ExecSync(ctx, id, []string{"/hello", "write", p, "x"}, 10*time.Second)
		require.NoError(t, err)
		assert.NotEqual(t, int32(0), res.ExitCode, "writing %s must fail", p)
		assert.Contains(t, string(res.Stderr), "read-only file system", p)
	}

	// A second container of the pod shares the one host mount.
	cfg2 := helloConfig("second", "sleep", "1h")
	cfg2.Mounts = []cri.Mount{imageMount("/data", env.HelloImage, "")}
	id2 := startContainer(t, rt, sb, sbCfg, cfg2)
	res = waitExec(t, rt, id2, "/hello", "test", "-f", "/data/hello")
	assert.Equal(t, int32(0), res.ExitCode)
	hostMounts := mountPointsUnder(t, filepath.Join(env.StateDir, "sandboxes", sb))
	assert.Len(t, hostMounts, 1, "one mount of the image per sandbox: %v", hostMounts)

	// The status reports the mounts as asked.
	st, err := rt.ContainerStatus(ctx, id)
	require.NoError(t, err)
	require.Len(t, st.Mounts, 2)
	require.NotNil(t, st.Mounts[1].Image)
	assert.Equal(t, "bin", st.Mounts[1].ImageSubPath)

	// Removing the sandbox unmounts the image and removes its view.
	require.NoError(t, rt.RemovePodSandbox(ctx, sb))
	assert.Empty(t, mountPointsUnder(t, env.StateDir))
	assert.Empty(t, imageViews(t, env.Client(t).SnapshotService("overlayfs"), env.Namespace))
	_, err = os.Stat(filepath.Join(env.StateDir, "sandboxes", sb))
	assert.True(t, os.IsNotExist(err), "sandbox dir gone: %v", err)
}

// imageViews lists the snapshots the runtime made for image volumes.
func imageViews(t *testing.T, ss snapshots.Snapshotter, ns string) []string {
	t.Helper()
	var out []string
	ctx := namespaces.WithNamespace(context.Background(), ns)
	require.NoError(t, ss.Walk(ctx, func(_ context.Context, info snapshots.Info) error {
		if strings.HasPrefix(info.Name, "orkit-imagevolume/") {
			out = append(out, info.Name)
		}
		return nil
	}))
	return out
}

func TestImageVolumeBadInput(t *testing.T) {
	rt, env := newRuntime(t)
	ctx := ctxT(t)
	sb, sbCfg := runPod(t, rt, "imagevol-bad")

	tests := []struct {
		name  string
		mount cri.Mount
		want  error
	}{
		{"subPath is a file", imageMount("/vol", env.HelloImage, "hello"), cri.ErrInvalidArgument},
		{"subPath missing", imageMount("/vol", env.HelloImage, "nope"), os.ErrNotExist},
		{"subPath leaves the image", imageMount("/vol", env.HelloImage, "../x"), cri.ErrInvalidArgument},
		{"absolute subPath", imageMount("/vol", env.HelloImage, "/bin"), cri.ErrInvalidArgument},
		{"image not on the node", imageMount("/vol", "orkit.local/absent:v1", ""), cri.ErrImageNotFound},
		{"bad image name", imageMount("/vol", "no spaces:in refs", ""), cri.ErrInvalidImage},
		{"writable", cri.Mount{ContainerPath: "/vol", Image: &cri.ImageSpec{Image: env.HelloImage}}, cri.ErrInvalidArgument},
		{"host path too", cri.Mount{ContainerPath: "/vol", HostPath: "/etc", Readonly: true,
			Image: &cri.ImageSpec{Image: env.HelloImage}}, cri.ErrInvalidArgument},
		{"subPath without image", cri.Mount{ContainerPath: "/vol", HostPath: "/etc", ImageSubPath: "x"}, cri.ErrInvalidArgument},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := helloConfig("bad", "sleep", "1h")
			cfg.Metadata.Attempt = uint32(i)
			cfg.Mounts = []cri.Mount{tt.mount}
			_, err := rt.CreateContainer(ctx, sb, cfg, sbCfg)
			require.ErrorIs(t, err, tt.want)
		})
	}
	// A failed container leaves no more than the sandbox's one image mount
	// (from the subPath cases, whose root mount succeeded).
	assert.LessOrEqual(t, len(mountPointsUnder(t, filepath.Join(env.StateDir, "sandboxes"))), 1)
	require.NoError(t, rt.RemovePodSandbox(ctx, sb))
	assert.Empty(t, mountPointsUnder(t, env.StateDir))
	assert.Empty(t, imageViews(t, env.Client(t).SnapshotService("overlayfs"), env.Namespace))
}

// A view left by a runtime that died before removing its sandbox goes
// when a new Runtime starts and finds the sandbox gone.
func TestImageVolumeOrphansRemoved(t *testing.T) {
	rt, env := newRuntime(t)
	ctx := ctxT(t)
	sb, sbCfg := runPod(t, rt, "imagevol-orphan")
	cfg := helloConfig("reader", "sleep", "1h")
	cfg.Mounts = []cri.Mount{imageMount("/vol", env.HelloImage, "")}
	startContainer(t, rt, sb, sbCfg, cfg)
	require.NotEmpty(t, imageViews(t, env.Client(t).SnapshotService("overlayfs"), env.Namespace))

	// The sandbox's containers vanish from containerd behind the runtime's
	// back (as after losing its records); its files and view stay.
	require.NoError(t, rt.Close())
	c := env.Client(t)
	nctx := namespaces.WithNamespace(ctx, env.Namespace)
	ctrs, err := c.Containers(nctx)
	require.NoError(t, err)
	for _, ctr := range ctrs {
		if task, err := ctr.Task(nctx, nil); err == nil {
			_, _ = task.Delete(nctx, containerd.WithProcessKill)
		}
		require.NoError(t, ctr.Delete(nctx))
	}
	require.NotEmpty(t, mountPointsUnder(t, env.StateDir))

	openRuntime(t, env)
	assert.Empty(t, mountPointsUnder(t, env.StateDir))
	assert.Empty(t, imageViews(t, c.SnapshotService("overlayfs"), env.Namespace))
}

func TestPullThroughRegistryMirror(t *testing.T) {
	_, env := newRuntime(t)
	reg := startRegistry(t)
	require.NoError(t, reg.push(env.Images[env.HelloImage].Path, "e2e/hello", "v1"))
	ctx := ctxT(t)
	// registry.example.test never resolves: only the mirror can serve it.
	rt, err := ctrd.New(ctx, env.Address, ctrd.WithNamespace(env.Namespace+"-mirror"),
		ctrd.WithStateDir(filepath.Join(env.StateDir, "mirror")), ctrd.WithRegistryMirror("registry.example.test", reg.host))
	require.NoError(t, err)
	t.Cleanup(func() { rt.Close() })
	auth := &cri.AuthConfig{Username: reg.user, Password: reg.pass}

	ref, err := rt.PullImage(ctx, cri.ImageSpec{Image: "registry.example.test/e2e/hello:v1"}, auth)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(ref, "registry.example.test/e2e/hello@sha256:"), ref)
	img, err := rt.ImageStatus(ctx, cri.ImageSpec{Image: "registry.example.test/e2e/hello:v1"})
	require.NoError(t, err)
	assert.Contains(t, img.RepoTags, "registry.example.test/e2e/hello:v1")

	_, err = rt.PullImage(ctx, cri.ImageSpec{Image: "registry.example.test/e2e/hello:nope"}, auth)
	assert.ErrorIs(t, err, cri.ErrImageNotFound, "a tag the mirror lacks is not found; the registry itself is never asked")
}
