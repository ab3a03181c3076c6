package fake_test

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/cri"
	"github.com/orkit/orkit/cri/critest"
	"github.com/orkit/orkit/cri/fake"
)

func newFake(t *testing.T, opts ...fake.Option) *fake.Runtime {
	t.Helper()
	r, err := fake.New(opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.Close() })
	return r
}

// ociArchive is a minimal OCI layout tar naming ref.
func ociArchive(t testing.TB, refs ...string) []byte {
	t.Helper()
	var manifests []string
	for i, ref := range refs {
		manifests = append(manifests, fmt.Sprintf(`{"mediaType":"application/vnd.oci.image.manifest.v1+json",`+
			`"digest":"sha256:%064x","size":100,"annotations":{"org.opencontainers.image.ref.name":%q}}`, i+1, ref))
	}
	return tarOf(t, map[string]string{
		"oci-layout": `{"imageLayoutVersion":"1.0.0"}`,
		"index.json": `{"schemaVersion":2,"manifests":[` + strings.Join(manifests, ",") + `]}`,
		"blobs/sha256/0000000000000000000000000000000000000000000000000000000000000001": "layer",
	})
}

func tarOf(t testing.TB, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for name, content := range files {
		require.NoError(t, tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(content))}))
		_, err := tw.Write([]byte(content))
		require.NoError(t, err)
	}
	require.NoError(t, tw.Close())
	return buf.Bytes()
}

func TestConformance(t *testing.T) {
	critest.Run(t, critest.Harness{
		New:        func(t *testing.T) cri.Runtime { return newFake(t) },
		PauseImage: fake.DefaultPauseImage,
		HelloImage: fake.DefaultHelloImage,
		ImportArchive: func(t *testing.T) io.Reader {
			return bytes.NewReader(ociArchive(t, "orkit.local/critest-import:v1"))
		},
		ImportRef: "orkit.local/critest-import:v1",
		Timeout:   10 * time.Second,
	})
}

func TestConformanceDeterministicIDs(t *testing.T) {
	critest.Run(t, critest.Harness{
		New:        func(t *testing.T) cri.Runtime { return newFake(t, fake.WithDeterministicIDs("node1-")) },
		PauseImage: fake.DefaultPauseImage,
		HelloImage: fake.DefaultHelloImage,
	})
}

func sandboxCfg(name string) cri.PodSandboxConfig {
	return cri.PodSandboxConfig{Metadata: cri.PodSandboxMetadata{Name: name, Namespace: "ns", UID: "uid-" + name}}
}

func helloCfg(name string, args ...string) cri.ContainerConfig {
	cfg := cri.ContainerConfig{Metadata: cri.ContainerMetadata{Name: name}, Image: cri.ImageSpec{Image: fake.DefaultHelloImage}}
	if len(args) > 0 {
		cfg.Command = append([]string{"/hello"}, args...)
	}
	return cfg
}

func TestDeterministicIDs(t *testing.T) {
	r := newFake(t, fake.WithDeterministicIDs("n1-"))
	ctx := context.Background()
	sb, err := r.RunPodSandbox(ctx, sandboxCfg("a"))
	require.NoError(t, err)
	c, err := r.CreateContainer(ctx, sb, helloCfg("c"), sandboxCfg("a"))
	require.NoError(t, err)
	assert.Equal(t, "n1-s1", sb)
	assert.Equal(t, "n1-c2", c)

	random := newFake(t)
	id, err := random.RunPodSandbox(ctx, sandboxCfg("a"))
	require.NoError(t, err)
	assert.Len(t, id, 64)
}

func TestInjectedFailures(t *testing.T) {
	boom := errors.New("boom")
	r := newFake(t, fake.WithFailure("StartContainer", boom))
	ctx := context.Background()
	sb, err := r.RunPodSandbox(ctx, sandboxCfg("a"))
	require.NoError(t, err)
	c, err := r.CreateContainer(ctx, sb, helloCfg("c"), sandboxCfg("a"))
	require.NoError(t, err)
	err = r.StartContainer(ctx, c)
	require.ErrorIs(t, err, boom)
	assert.Contains(t, err.Error(), "StartContainer")
	require.ErrorIs(t, r.StartContainer(ctx, c), boom, "persistent until cleared")
	r.ClearFailure("StartContainer")
	require.NoError(t, r.StartContainer(ctx, c))
	assert.Equal(t, 3, r.Calls("StartContainer"))

	require.NoError(t, r.InjectFailure("ContainerStatus", cri.ErrUnavailable, 2))
	for range 2 {
		_, err = r.ContainerStatus(ctx, c)
		require.ErrorIs(t, err, cri.ErrUnavailable)
	}
	_, err = r.ContainerStatus(ctx, c)
	require.NoError(t, err, "the injection ran out")

	require.ErrorIs(t, r.InjectFailure("StartContainers", boom, 1), fake.ErrUnknownMethod)
	_, err = fake.New(fake.WithFailure("NoSuchMethod", boom))
	require.ErrorIs(t, err, fake.ErrUnknownMethod)
	_, err = fake.New(fake.WithLatency("NoSuchMethod", time.Second))
	require.ErrorIs(t, err, fake.ErrUnknownMethod)
}

func TestLatencyHonoursContext(t *testing.T) {
	r := newFake(t, fake.WithLatency("ListContainers", time.Hour), fake.WithDefaultLatency(time.Millisecond))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := r.ListContainers(ctx, cri.ContainerFilter{})
		done <- err
	}()
	cancel()
	require.ErrorIs(t, <-done, context.Canceled)
	_, err := r.ListPodSandbox(context.Background(), cri.PodSandboxFilter{})
	require.NoError(t, err, "default latency is short")
}

func TestDownAndClosed(t *testing.T) {
	r := newFake(t)
	ctx := context.Background()
	r.SetDown(true)
	_, err := r.Version(ctx)
	require.ErrorIs(t, err, cri.ErrUnavailable)
	st, err := r.Status(ctx)
	require.NoError(t, err, "Status reports a down runtime as a condition")
	ready, _ := st.Condition(cri.RuntimeReady)
	assert.False(t, ready.Status)
	assert.Equal(t, "RuntimeDown", ready.Reason)
	r.SetDown(false)
	_, err = r.Version(ctx)
	require.NoError(t, err)

	events := r.Events(ctx)
	require.NoError(t, r.Close())
	_, open := <-events
	assert.False(t, open, "Close closes event streams")
	_, err = r.ListPodSandbox(ctx, cri.PodSandboxFilter{})
	require.ErrorIs(t, err, cri.ErrClosed)
	require.NoError(t, r.Close(), "Close twice")
	_, open = <-r.Events(ctx)
	assert.False(t, open)
}

func TestExitOnDemandAndOOM(t *testing.T) {
	r := newFake(t)
	ctx := context.Background()
	events := r.Events(ctx)
	sb, err := r.RunPodSandbox(ctx, sandboxCfg("a"))
	require.NoError(t, err)
	c1, err := r.CreateContainer(ctx, sb, helloCfg("one"), sandboxCfg("a"))
	require.NoError(t, err)
	require.ErrorIs(t, r.Exit(c1, 1), cri.ErrFailedPrecondition, "not running yet")
	require.NoError(t, r.StartContainer(ctx, c1))
	require.NoError(t, r.Exit(c1, 42))
	st, err := r.ContainerStatus(ctx, c1)
	require.NoError(t, err)
	assert.Equal(t, cri.ContainerExited, st.State)
	assert.Equal(t, int32(42), st.ExitCode)
	assert.Equal(t, cri.ReasonError, st.Reason)
	require.ErrorIs(t, r.Exit("missing", 0), cri.ErrNotFound)

	c2, err := r.CreateContainer(ctx, sb, helloCfg("two"), sandboxCfg("a"))
	require.NoError(t, err)
	require.NoError(t, r.StartContainer(ctx, c2))
	require.NoError(t, r.OOMKill(c2))
	st, err = r.ContainerStatus(ctx, c2)
	require.NoError(t, err)
	assert.Equal(t, int32(137), st.ExitCode)
	assert.Equal(t, cri.ReasonOOMKilled, st.Reason)

	var types []cri.ContainerEventType
	for len(types) < 6 {
		ev := <-events
		types = append(types, ev.Type)
	}
	assert.Equal(t, []cri.ContainerEventType{
		cri.ContainerEventCreated, cri.ContainerEventStarted, cri.ContainerEventExited,
		cri.ContainerEventCreated, cri.ContainerEventStarted, cri.ContainerEventOOM,
	}, types)
	assert.Equal(t, cri.ContainerEventExited, (<-events).Type)
}

func TestCustomProgramAndExec(t *testing.T) {
	r := newFake(t,
		fake.WithProgram(func(cri.ContainerConfig) fake.Program { return fake.Program{ExitNow: true, ExitCode: 9} }),
		fake.WithExec(func(_ context.Context, cfg cri.ContainerConfig, cmd []string, _ time.Duration) (cri.ExecResult, error) {
			return cri.ExecResult{Stdout: []byte(cfg.Metadata.Name + ":" + strings.Join(cmd, ","))}, nil
		}))
	ctx := context.Background()
	sb, err := r.RunPodSandbox(ctx, sandboxCfg("a"))
	require.NoError(t, err)
	c, err := r.CreateContainer(ctx, sb, helloCfg("x"), sandboxCfg("a"))
	require.NoError(t, err)
	require.NoError(t, r.StartContainer(ctx, c))
	st, err := r.ContainerStatus(ctx, c)
	require.NoError(t, err)
	assert.Equal(t, int32(9), st.ExitCode)
	_, err = r.ExecSync(ctx, c, []string{"ls"}, 0)
	require.ErrorIs(t, err, cri.ErrFailedPrecondition)
}

func TestHelloExecEnv(t *testing.T) {
	r := newFake(t)
	ctx := context.Background()
	sb, err := r.RunPodSandbox(ctx, sandboxCfg("a"))
	require.NoError(t, err)
	cfg := helloCfg("x")
	cfg.Envs = []cri.KeyValue{{Key: "A", Value: "1"}}
	c, err := r.CreateContainer(ctx, sb, cfg, sandboxCfg("a"))
	require.NoError(t, err)
	require.NoError(t, r.StartContainer(ctx, c))
	res, err := r.ExecSync(ctx, c, []string{"/hello", "env"}, 0)
	require.NoError(t, err)
	assert.Equal(t, "A=1\n", string(res.Stdout))
	res, err = r.ExecSync(ctx, c, []string{"/bin/echo", "via", "argv0"}, 0)
	require.NoError(t, err)
	assert.Equal(t, "via argv0\n", string(res.Stdout))
	res, err = r.ExecSync(ctx, c, []string{"/hello", "frobnicate"}, 0)
	require.NoError(t, err)
	assert.Equal(t, int32(2), res.ExitCode)
	_, err = r.ExecSync(ctx, c, nil, 0)
	require.ErrorIs(t, err, cri.ErrInvalidArgument)
}

func TestSandboxNeedsPauseImage(t *testing.T) {
	r := newFake(t, fake.WithImages(fake.DefaultHelloImage))
	_, err := r.RunPodSandbox(context.Background(), sandboxCfg("a"))
	require.ErrorIs(t, err, cri.ErrImageNotFound)
	r2 := newFake(t, fake.WithImages(), fake.WithPauseImage(""))
	_, err = r2.RunPodSandbox(context.Background(), sandboxCfg("a"))
	require.NoError(t, err)
	_, err = fake.New(fake.WithImages("Not A Ref"))
	require.ErrorIs(t, err, cri.ErrInvalidImage)
}

func TestPullImage(t *testing.T) {
	ctx := context.Background()
	r := newFake(t, fake.WithRegistry(func(ref string) bool { return ref != "127.0.0.1:5000/missing:latest" }),
		fake.WithRegistryAuth("alice", "secret"))
	_, err := r.PullImage(ctx, cri.ImageSpec{Image: "127.0.0.1:5000/app:v1"}, nil)
	require.ErrorIs(t, err, cri.ErrUnauthorized)
	_, err = r.PullImage(ctx, cri.ImageSpec{Image: "127.0.0.1:5000/app:v1"}, &cri.AuthConfig{Username: "alice", Password: "wrong"})
	require.ErrorIs(t, err, cri.ErrUnauthorized)
	ref, err := r.PullImage(ctx, cri.ImageSpec{Image: "127.0.0.1:5000/app:v1"}, &cri.AuthConfig{Username: "alice", Password: "secret"})
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(ref, "127.0.0.1:5000/app@sha256:"), ref)
	img, err := r.ImageStatus(ctx, cri.ImageSpec{Image: ref})
	require.NoError(t, err, "the digest reference resolves")
	assert.Equal(t, []string{"127.0.0.1:5000/app:v1"}, img.RepoTags)
	_, err = r.PullImage(ctx, cri.ImageSpec{Image: "127.0.0.1:5000/app:v2"}, &cri.AuthConfig{Auth: "YWxpY2U6c2VjcmV0"})
	require.NoError(t, err, "base64 auth")
	_, err = r.PullImage(ctx, cri.ImageSpec{Image: "127.0.0.1:5000/missing"}, &cri.AuthConfig{Username: "alice", Password: "secret"})
	require.ErrorIs(t, err, cri.ErrImageNotFound)
	_, err = r.PullImage(ctx, cri.ImageSpec{Image: "UPPER/case"}, nil)
	require.ErrorIs(t, err, cri.ErrInvalidImage)

	open := newFake(t)
	_, err = open.PullImage(ctx, cri.ImageSpec{Image: "busybox"}, nil)
	require.NoError(t, err)
	_, err = open.ImageStatus(ctx, cri.ImageSpec{Image: "busybox:latest"})
	require.NoError(t, err, "an untagged ref means :latest")
}

func TestImportImageRejectsBadArchives(t *testing.T) {
	r := newFake(t)
	ctx := context.Background()
	before, err := r.ListImages(ctx, cri.ImageFilter{})
	require.NoError(t, err)
	bad := map[string][]byte{
		"not a tar":        []byte("hello"),
		"no index":         tarOf(t, map[string]string{"oci-layout": "{}"}),
		"index not JSON":   tarOf(t, map[string]string{"index.json": "{"}),
		"bad digest":       tarOf(t, map[string]string{"index.json": `{"manifests":[{"digest":"md5:x","annotations":{"org.opencontainers.image.ref.name":"a/b:c"}}]}`}),
		"unnamed":          tarOf(t, map[string]string{"index.json": `{"manifests":[{"digest":"sha256:` + strings.Repeat("a", 64) + `"}]}`}),
		"bad ref":          ociArchive(t, "orkit.local/ok:v1", "Bad Ref"),
		"docker no tags":   tarOf(t, map[string]string{"manifest.json": `[{"Config":"x.json","RepoTags":[]}]`}),
		"oversized index":  tarOf(t, map[string]string{"index.json": strings.Repeat(" ", 1<<20+1)}),
		"truncated tar":    ociArchive(t, "orkit.local/ok:v1")[:600],
		"docker not array": tarOf(t, map[string]string{"manifest.json": `{}`}),
	}
	for name, data := range bad {
		t.Run(name, func(t *testing.T) {
			_, err := r.ImportImage(ctx, bytes.NewReader(data))
			require.ErrorIs(t, err, cri.ErrInvalidImage)
		})
	}
	after, err := r.ListImages(ctx, cri.ImageFilter{})
	require.NoError(t, err)
	assert.Equal(t, before, after, "nothing stored from a bad archive")

	imgs, err := r.ImportImage(ctx, bytes.NewReader(tarOf(t, map[string]string{
		"manifest.json": `[{"Config":"c.json","RepoTags":["docker.io/library/app:v3"]}]`})))
	require.NoError(t, err)
	require.Len(t, imgs, 1)
	assert.Equal(t, []string{"docker.io/library/app:v3"}, imgs[0].RepoTags)
}

func TestEventsSubscriberLifecycle(t *testing.T) {
	r := newFake(t, fake.WithEventBuffer(1))
	ctx, cancel := context.WithCancel(context.Background())
	ch := r.Events(ctx)
	sb, err := r.RunPodSandbox(context.Background(), sandboxCfg("a"))
	require.NoError(t, err)
	for i := range 3 { // the buffer holds one; the rest are dropped, nothing blocks
		_, err := r.CreateContainer(context.Background(), sb, helloCfg(fmt.Sprint("c", i)), sandboxCfg("a"))
		require.NoError(t, err)
	}
	cancel()
	n := 0
	for range ch {
		n++
	}
	assert.Equal(t, 1, n, "one buffered event, then closed on cancel")
}

func TestConcurrentUse(t *testing.T) {
	r := newFake(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 50)
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cfg := sandboxCfg(fmt.Sprint("p", i))
			sb, err := r.RunPodSandbox(ctx, cfg)
			if err == nil {
				var c string
				if c, err = r.CreateContainer(ctx, sb, helloCfg("c"), cfg); err == nil {
					if err = r.StartContainer(ctx, c); err == nil {
						err = r.StopContainer(ctx, c, time.Second)
					}
				}
			}
			if err == nil {
				err = r.RemovePodSandbox(ctx, sb)
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	list, err := r.ListPodSandbox(ctx, cri.PodSandboxFilter{})
	require.NoError(t, err)
	assert.Empty(t, list)
}

// TestManyRuntimesAreLight is the scale claim: many simulated nodes, each
// with a few running pods, start no goroutines.
func TestManyRuntimesAreLight(t *testing.T) {
	ctx := context.Background()
	before := runtime.NumGoroutine()
	nodes := make([]*fake.Runtime, 1000)
	for i := range nodes {
		r, err := fake.New(fake.WithDeterministicIDs(fmt.Sprintf("n%d-", i)))
		require.NoError(t, err)
		nodes[i] = r
		for p := range 3 {
			cfg := sandboxCfg(fmt.Sprint("p", p))
			sb, err := r.RunPodSandbox(ctx, cfg)
			require.NoError(t, err)
			c, err := r.CreateContainer(ctx, sb, helloCfg("c"), cfg)
			require.NoError(t, err)
			require.NoError(t, r.StartContainer(ctx, c))
		}
	}
	assert.LessOrEqual(t, runtime.NumGoroutine(), before+2, "no goroutine per runtime or container")
	for _, r := range nodes {
		require.NoError(t, r.Close())
	}
}
