package testenv

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	containerd "github.com/containerd/containerd"
	"github.com/containerd/containerd/namespaces"

	"github.com/orkit/orkit/cri/containerd/daemon"
	"github.com/orkit/orkit/images"
)

// CNIPluginDir is where Debian's containernetworking-plugins install the
// plugin binaries.
const CNIPluginDir = "/usr/lib/cni"

// Namespace is the containerd namespace the images are imported into and
// the runtime under test should use.
const Namespace = "orkit-test"

// cniPlugins are the plugins orkit's default network uses.
var cniPlugins = []string{"bridge", "host-local", "loopback", "portmap"}

// Env is one test's private containerd. It lives until the test's cleanup.
type Env struct {
	// Daemon is the running containerd.
	Daemon *daemon.Daemon
	// Address is containerd's socket.
	Address string
	// Namespace is the containerd namespace holding the test images.
	Namespace string
	// StateDir is an empty directory (under the daemon's) for the runtime
	// under test (network namespaces, logs); cleaned with the daemon.
	StateDir string
	// PauseImage and HelloImage are the imported images' refs.
	PauseImage, HelloImage string
	// Images are the built archives, by ref.
	Images map[string]images.Result
}

// Require skips the test (fails it when CI=true) unless this machine can
// run a private containerd with runc and the CNI plugins.
func Require(t testing.TB) {
	t.Helper()
	err := daemon.CheckPrerequisites()
	if err == nil {
		err = checkCNI()
	}
	if err != nil {
		Unavailable(t, err.Error())
	}
}

// Unavailable skips the test with reason, or fails it when CI=true.
func Unavailable(t testing.TB, reason string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("prerequisite missing (CI=true, so this fails instead of skipping): %s", reason)
	}
	t.Skipf("prerequisite missing: %s", reason)
}

func checkCNI() error {
	for _, p := range cniPlugins {
		if _, err := os.Stat(filepath.Join(CNIPluginDir, p)); err != nil {
			return fmt.Errorf("CNI plugin %s missing in %s (Debian package containernetworking-plugins)", p, CNIPluginDir)
		}
	}
	return nil
}

// BuildImages builds (or takes from the cache) the bundled images.
func BuildImages(t testing.TB) map[string]images.Result {
	t.Helper()
	b, err := images.New("", "")
	if err != nil {
		t.Fatalf("image builder: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	res, err := b.BuildAll(ctx, images.Bundled())
	if err != nil {
		t.Fatalf("build test images: %v", err)
	}
	out := make(map[string]images.Result, len(res))
	for _, r := range res {
		out[r.Ref] = r
	}
	return out
}

// New starts a private containerd for the test, imports the test images
// into Namespace and registers its removal with t.Cleanup.
func New(t testing.TB, opts ...Option) *Env {
	t.Helper()
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	Require(t)
	imgs := BuildImages(t)
	// Daemons of test binaries that were killed (timeouts) are removed.
	if err := daemon.SweepStale(os.TempDir(), "okd-"); err != nil {
		t.Logf("removing stale private containerds: %v", err)
	}
	dir, err := os.MkdirTemp("", "okd-")
	if err != nil {
		t.Fatalf("containerd dir: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var dopts []daemon.Option
	if o.tmpfsRoot {
		dopts = append(dopts, daemon.WithTmpfsRoot())
	}
	d, err := daemon.Start(ctx, dir, dopts...)
	if err != nil {
		_ = os.RemoveAll(dir)
		t.Fatalf("start containerd: %v", err)
	}
	e := &Env{Daemon: d, Address: d.Address(), Namespace: Namespace, StateDir: filepath.Join(dir, "orkit"),
		PauseImage: images.PauseRef, HelloImage: images.HelloRef, Images: imgs}
	t.Cleanup(func() {
		cctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := d.Clean(cctx); err != nil {
			t.Errorf("clean private containerd: %v", err)
		}
	})
	if err := os.MkdirAll(e.StateDir, 0o700); err != nil {
		t.Fatalf("state dir: %v", err)
	}
	if err := ImportArchives(ctx, e.Address, e.Namespace, imgs); err != nil {
		t.Fatalf("import test images: %v (containerd log %s)", err, d.LogPath())
	}
	return e
}

// Option configures New.
type Option func(*options)

type options struct{ tmpfsRoot bool }

// TmpfsRoot keeps containerd's root (metadata, content, snapshots) on a
// tmpfs, removing the cost of its database's fsyncs (benchmarks).
func TmpfsRoot() Option { return func(o *options) { o.tmpfsRoot = true } }

// Restart kills containerd (as a crash would) and starts it again on the
// same root; shims and containers keep running.
func (e *Env) Restart(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := e.Daemon.Restart(ctx); err != nil {
		t.Fatalf("restart containerd: %v", err)
	}
}

// Client returns a raw containerd client for the test to inspect the
// daemon; it is closed at cleanup.
func (e *Env) Client(t testing.TB) *containerd.Client {
	t.Helper()
	c, err := containerd.New(e.Address, containerd.WithDefaultNamespace(e.Namespace))
	if err != nil {
		t.Fatalf("containerd client: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// ImportArchives imports the image archives into namespace ns of the
// containerd at address and unpacks them into the overlayfs snapshotter.
func ImportArchives(ctx context.Context, address, ns string, imgs map[string]images.Result) error {
	c, err := containerd.New(address, containerd.WithDefaultNamespace(ns))
	if err != nil {
		return err
	}
	defer c.Close()
	ctx = namespaces.WithNamespace(ctx, ns)
	for ref, r := range imgs {
		if err := importOne(ctx, c, r.Path); err != nil {
			return fmt.Errorf("image %s: %w", ref, err)
		}
	}
	return nil
}

func importOne(ctx context.Context, c *containerd.Client, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	got, err := c.Import(ctx, f)
	if err != nil {
		return err
	}
	for _, img := range got {
		if err := containerd.NewImage(c, img).Unpack(ctx, "overlayfs"); err != nil {
			return fmt.Errorf("unpack %s: %w", img.Name, err)
		}
	}
	return nil
}
