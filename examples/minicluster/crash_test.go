package main

import (
	"context"
	"fmt"
	"io/fs"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/cri/containerd/daemon"
)

// nodeLeftovers counts what a real node makes on the host, to compare
// before start and after stop.
type nodeLeftovers struct {
	Shims, Veths, Bridges, Mounts, IPAMFiles, Cgroups int
}

// countLeftovers counts what the node made under dataDir and on the host;
// uids are the test's pods (for their cgroups).
func countLeftovers(t *testing.T, dataDir string, uids ...string) nodeLeftovers {
	t.Helper()
	var n nodeLeftovers
	sock := filepath.Join(dataDir, "containerd", "containerd.sock")
	procs, err := os.ReadDir("/proc")
	require.NoError(t, err)
	for _, p := range procs {
		cmdline, err := os.ReadFile(filepath.Join("/proc", p.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(string(cmdline), "\x00")
		if strings.Contains(filepath.Base(args[0]), "containerd-shim") && strings.Contains(string(cmdline), sock) {
			n.Shims++
		}
	}
	links, err := exec.Command("ip", "-o", "link", "show", "type", "veth").Output()
	require.NoError(t, err)
	for _, l := range strings.Split(strings.TrimSpace(string(links)), "\n") {
		// The node's pod veths hang off its bridge, or off nothing once
		// the bridge is gone; other bridges' are other tests'.
		if l != "" && (strings.Contains(l, "master orkit1 ") || !strings.Contains(l, " master ")) {
			n.Veths++
		}
	}
	if exec.Command("ip", "link", "show", "orkit1").Run() == nil {
		n.Bridges++
	}
	mounts, err := daemon.MountsUnder(dataDir)
	require.NoError(t, err)
	n.Mounts = len(mounts)
	_ = filepath.WalkDir(filepath.Join(dataDir, "nodes"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.Contains(path, "/ipam/") {
			if _, perr := netip.ParseAddr(d.Name()); perr == nil {
				n.IPAMFiles++
			}
		}
		return nil
	})
	hier, _ := os.ReadDir("/sys/fs/cgroup")
	for _, h := range hier {
		root := filepath.Join("/sys/fs/cgroup", h.Name())
		// The node's pod cgroups (and the container cgroups below them),
		// found by the test's pod UIDs: other tests' pods share kubepods.
		for _, uid := range uids {
			for _, qos := range []string{"", "burstable", "besteffort"} {
				n.Cgroups += countDirs(filepath.Join(root, "kubepods", qos, "pod"+uid))
			}
		}
		// Cgroups of containerd tasks without a parent, by namespace.
		n.Cgroups += countDirs(filepath.Join(root, "orkit-node-1")) - boolToInt(isDir(filepath.Join(root, "orkit-node-1")))
	}
	return n
}

// countDirs counts dir and the directories below it (0 if it is missing).
func countDirs(dir string) int {
	n := 0
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			n++
		}
		return nil
	})
	return n
}

func isDir(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.IsDir()
}

func boolToInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// podUID returns the UID of pod name.
func podUID(ctx context.Context, t *testing.T, pods *client.Resource[core.Pod, *core.Pod], name string) string {
	t.Helper()
	p, err := pods.Get(ctx, name)
	require.NoError(t, err)
	return string(p.UID)
}

// logTail logs the last n lines of path.
func logTail(t *testing.T, path string, n int) {
	b, err := os.ReadFile(path)
	if err != nil {
		return
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	t.Logf("%s (last %d lines):\n%s", path, n, strings.Join(lines[max(0, len(lines)-n):], "\n"))
}

// waitFor polls cond every 200 ms until it holds or d passes.
func waitFor(t *testing.T, d time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(d)
	last := ""
	for time.Now().Before(deadline) {
		ok, state := cond()
		if ok {
			return
		}
		last = state
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("%s: not within %v (last: %s)", what, d, last)
}

func helloPod(name string) *core.Pod {
	return &core.Pod{ObjectMeta: meta.ObjectMeta{Name: name},
		Spec: core.PodSpec{Containers: []core.Container{{Name: "hello", Image: "orkit.local/hello:v1"}}}}
}

// runningStatus returns the pod's only container status once it runs ready.
func runningStatus(ctx context.Context, pods *client.Resource[core.Pod, *core.Pod], name string) (core.ContainerStatus, bool, string) {
	p, err := pods.Get(ctx, name)
	if err != nil {
		return core.ContainerStatus{}, false, err.Error()
	}
	if p.Status.Phase != core.PodRunning || len(p.Status.ContainerStatuses) != 1 || !p.Status.ContainerStatuses[0].Ready {
		return core.ContainerStatus{}, false, fmt.Sprintf("phase %s, statuses %+v", p.Status.Phase, p.Status.ContainerStatuses)
	}
	return p.Status.ContainerStatuses[0], true, ""
}

// TestContainerdCrash kills the node's containerd (SIGKILL) under a running
// pod: the daemon package restarts it, the kubelet's runtime reconnects,
// the node is Ready again, the pod's container is left alone (same ID, no
// restart) and new pods start. Then containerd is killed again and the
// cluster stopped: the stop ends within a bound and leaves nothing of the
// node on the host (shims, veths, the bridge, mounts, IP reservations,
// cgroups).
func TestContainerdCrash(t *testing.T) {
	requireRealNode(t)
	dir := t.TempDir()
	before := countLeftovers(t, dir)
	out := &syncBuffer{}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	c, err := startCluster(ctx, options{DataDir: dir, Listen: freeAddr(t), Nodes: 1, Out: out})
	require.NoError(t, err, out.String())
	closed := false
	defer func() {
		if !closed {
			c.Close()
		}
		t.Log("\n" + out.String())
		if t.Failed() {
			logTail(t, filepath.Join(dir, "containerd", "containerd.log"), 60)
		}
	}()
	pods := client.For[core.Pod](c.admin, "default")
	nodes := client.For[core.Node](c.admin, "")
	_, err = pods.Create(ctx, helloPod("survivor"))
	require.NoError(t, err)
	var was core.ContainerStatus
	waitFor(t, 2*time.Minute, "survivor running", func() (bool, string) {
		st, ok, why := runningStatus(ctx, pods, "survivor")
		was = st
		return ok, why
	})
	require.NotEmpty(t, was.ContainerID)

	oldPID := c.containerd.PID()
	require.NoError(t, syscall.Kill(oldPID, syscall.SIGKILL))
	waitFor(t, 2*time.Minute, "containerd restarted by its daemon", func() (bool, string) {
		pid := c.containerd.PID()
		return pid != oldPID && syscall.Kill(pid, 0) == nil, fmt.Sprintf("pid %d", pid)
	})
	_, err = pods.Create(ctx, helloPod("after"))
	require.NoError(t, err)
	waitFor(t, 2*time.Minute, "a new pod runs after the restart", func() (bool, string) {
		_, ok, why := runningStatus(ctx, pods, "after")
		return ok, why
	})
	waitFor(t, 2*time.Minute, "node Ready again", func() (bool, string) {
		n, err := nodes.Get(ctx, "node-1")
		if err != nil {
			return false, err.Error()
		}
		_, cond := core.GetNodeCondition(&n.Status, core.NodeReady)
		return core.IsNodeReady(n), fmt.Sprintf("%+v", cond)
	})
	now, ok, why := runningStatus(ctx, pods, "survivor")
	require.True(t, ok, why)
	assert.Equal(t, was.ContainerID, now.ContainerID, "the running pod's container is left alone")
	assert.Zero(t, now.RestartCount, "the running pod's container was not restarted")
	require.NotNil(t, now.State.Running)
	assert.Equal(t, was.State.Running.StartedAt, now.State.Running.StartedAt, "the same run of the container")
	assert.Equal(t, 1, c.containerd.Restarts())

	uids := []string{podUID(ctx, t, pods, "survivor"), podUID(ctx, t, pods, "after")}
	during := countLeftovers(t, dir, uids...)
	t.Logf("before start: %+v; running two pods: %+v", before, during)
	require.Equal(t, 2, during.Shims, "one shim per pod sandbox (the test counts what it should)")
	require.Positive(t, during.Cgroups)

	require.NoError(t, syscall.Kill(c.containerd.PID(), syscall.SIGKILL))
	stopped := make(chan struct{})
	go func() { c.Close(); close(stopped) }()
	select {
	case <-stopped:
		closed = true
	case <-time.After(2 * time.Minute):
		t.Fatal("the cluster did not stop within 2 minutes with its containerd killed")
	}
	after := countLeftovers(t, dir, uids...)
	assert.Equal(t, before, after, "stop removes everything the node made")
}

// TestStopWithDeadRuntime: the node's containerd is killed and stays down
// (the daemon's Kill ends supervision); the cluster's stop is bounded
// (it waits a while for the runtime, then goes on without it) and still
// leaves nothing of the node on the host.
func TestStopWithDeadRuntime(t *testing.T) {
	requireRealNode(t)
	dir := t.TempDir()
	before := countLeftovers(t, dir)
	out := &syncBuffer{}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	c, err := startCluster(ctx, options{DataDir: dir, Listen: freeAddr(t), Nodes: 1, Out: out})
	require.NoError(t, err, out.String())
	closed := false
	defer func() {
		if !closed {
			c.Close()
		}
		t.Log("\n" + out.String())
	}()
	pods := client.For[core.Pod](c.admin, "default")
	_, err = pods.Create(ctx, helloPod("orphan"))
	require.NoError(t, err)
	waitFor(t, 2*time.Minute, "pod running", func() (bool, string) {
		_, ok, why := runningStatus(ctx, pods, "orphan")
		return ok, why
	})
	uids := []string{podUID(ctx, t, pods, "orphan")}
	during := countLeftovers(t, dir, uids...)
	t.Logf("before start: %+v; running a pod: %+v", before, during)
	require.Equal(t, 1, during.Shims)
	require.Positive(t, during.Cgroups)

	c.containerd.Kill()
	stopped := make(chan struct{})
	go func() { c.Close(); close(stopped) }()
	select {
	case <-stopped:
		closed = true
	case <-time.After(2 * time.Minute):
		t.Fatal("the cluster did not stop within 2 minutes with its containerd dead")
	}
	assert.Contains(t, out.String(), "the runtime did not answer")
	after := countLeftovers(t, dir, uids...)
	assert.Equal(t, before, after, "stop removes everything the node made")
}
