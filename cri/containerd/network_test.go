package containerd_test

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	containerd "github.com/containerd/containerd"
	tasksapi "github.com/containerd/containerd/api/services/tasks/v1"
	"github.com/containerd/containerd/snapshots"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vishvananda/netlink"

	"github.com/orkit/orkit/cni"
	"github.com/orkit/orkit/cri"
	ctrd "github.com/orkit/orkit/cri/containerd"
	"github.com/orkit/orkit/cri/containerd/daemon"
	"github.com/orkit/orkit/internal/testenv"
)

// podNet is one test's pod network: its own bridge and 10.244.X.0/24,
// behind the host guard; removed at cleanup.
type podNet struct {
	net      *cni.LibCNI
	bridge   string
	stateDir string
}

func newPodNet(t *testing.T) *podNet {
	t.Helper()
	guard, err := cni.InstallHostGuard(cni.HostGuardConfig{})
	require.NoError(t, err)
	t.Cleanup(func() { guard.Remove() })
	subnet, bridge := freeSubnet(t)
	pn := &podNet{bridge: bridge, stateDir: t.TempDir()}
	pn.net, err = cni.New(cni.Config{StateDir: pn.stateDir, PodCIDRs: []netip.Prefix{subnet}, BridgeName: bridge,
		NetworkName: "orkit-crit-" + bridge, PluginDirs: []string{testenv.CNIPluginDir}})
	require.NoError(t, err)
	t.Cleanup(func() {
		if l, err := netlink.LinkByName(bridge); err == nil {
			netlink.LinkDel(l)
		}
	})
	return pn
}

// freeSubnet picks a 10.244.X.0/24 (X in 100–149) no route serves and an unused bridge name.
// Packages whose tests run at the same time take disjoint shares of X: minicluster 1, kubelet 20–99, cri/containerd 100–149, cni 150–199, proxy 200–249.
func freeSubnet(t *testing.T) (netip.Prefix, string) {
	t.Helper()
	for range 100 {
		p := netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 244, byte(100 + rand.IntN(50)), 0}), 24)
		bridge := fmt.Sprintf("okc%04x", rand.IntN(1<<16))
		if _, err := netlink.LinkByName(bridge); err == nil {
			continue
		}
		if r, err := netlink.RouteGet(p.Addr().Next().AsSlice()); err == nil && len(r) > 0 && r[0].LinkIndex > 0 && r[0].Gw == nil {
			continue
		}
		return p, bridge
	}
	t.Fatal("no free 10.244.X.0/24")
	return netip.Prefix{}, ""
}

func (pn *podNet) pod(cfg cri.PodSandboxConfig, id string, st cri.PodSandboxStatus) cni.PodNetwork {
	return cni.PodNetwork{Name: cfg.Metadata.Name, Namespace: cfg.Metadata.Namespace, UID: cfg.Metadata.UID,
		SandboxID: id, NetNS: st.NetworkNamespacePath}
}

// setUp attaches the sandbox as the kubelet does and records its IP.
func (pn *podNet) setUp(t *testing.T, rt *ctrd.Runtime, id string, cfg cri.PodSandboxConfig) netip.Addr {
	t.Helper()
	ctx := ctxT(t)
	st, err := rt.PodSandboxStatus(ctx, id)
	require.NoError(t, err)
	res, err := pn.net.SetUp(ctx, pn.pod(cfg, id, st))
	require.NoError(t, err)
	ip := res.PodIPs()[0]
	require.NoError(t, rt.UpdatePodSandboxNetwork(ctx, id, cri.PodSandboxNetworkStatus{IP: ip.String()}))
	return ip
}

// tearDown stops, detaches and removes the sandbox as the kubelet does.
func (pn *podNet) tearDown(t *testing.T, rt *ctrd.Runtime, id string, cfg cri.PodSandboxConfig) {
	t.Helper()
	ctx := ctxT(t)
	st, err := rt.PodSandboxStatus(ctx, id)
	require.NoError(t, err)
	require.NoError(t, rt.StopPodSandbox(ctx, id))
	require.NoError(t, pn.net.TearDown(ctx, pn.pod(cfg, id, st)))
	require.NoError(t, rt.RemovePodSandbox(ctx, id))
}

func TestHostReachesPodIP(t *testing.T) {
	rt, _ := newRuntime(t)
	pn := newPodNet(t)
	sb, sbCfg := runPod(t, rt, "reachable")
	ip := pn.setUp(t, rt, sb, sbCfg)
	st, err := rt.PodSandboxStatus(ctxT(t), sb)
	require.NoError(t, err)
	assert.Equal(t, ip.String(), st.Network.IP)
	a := startContainer(t, rt, sb, sbCfg, helloConfig("server"))
	waitExec(t, rt, a, "wget", "http://127.0.0.1:8080/healthz")
	url := "http://" + netip.AddrPortFrom(ip, 8080).String() + "/"
	client := &http.Client{Timeout: 5 * time.Second}
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := client.Get(url)
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			assert.Equal(t, "reachable\n", string(body))
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("host cannot reach the pod at %s: %v", url, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	pn.tearDown(t, rt, sb, sbCfg)
}

// TestCreateDeleteCyclesLeaveNothing runs sandbox + container + CNI
// create/delete cycles and then lists every kind of resource a cycle makes.
func TestCreateDeleteCyclesLeaveNothing(t *testing.T) {
	cycles := 100
	if testing.Short() {
		cycles = 10
	}
	rt, env := newRuntime(t)
	pn := newPodNet(t)
	raw := env.Client(t)
	snapsBefore := countSnapshots(t, raw)
	logDir := t.TempDir()
	fdsBefore := len(dirEntries(t, "/proc/self/fd"))
	for i := range cycles {
		// a deadline per cycle, not for all of them: on a loaded machine
		// 100 cycles take longer than one ctxT
		ctx := ctxT(t)
		cfg := podConfig(fmt.Sprintf("cycle-%d", i), logDir)
		sb, err := rt.RunPodSandbox(ctx, cfg)
		require.NoError(t, err)
		pn.setUp(t, rt, sb, cfg)
		c := helloConfig(fmt.Sprintf("c%d", i), "sleep", "1h")
		id := startContainer(t, rt, sb, cfg, c)
		require.NoError(t, rt.StopContainer(ctx, id, 5*time.Second))
		pn.tearDown(t, rt, sb, cfg)
	}

	ctx := ctxT(t)
	sbs, err := rt.ListPodSandbox(ctx, cri.PodSandboxFilter{})
	require.NoError(t, err)
	assert.Empty(t, sbs, "sandboxes")
	ctrs, err := raw.Containers(ctx)
	require.NoError(t, err)
	assert.Empty(t, ctrs, "containerd containers")
	tasks, err := raw.TaskService().List(ctx, &tasksapi.ListTasksRequest{})
	require.NoError(t, err)
	assert.Empty(t, tasks.Tasks, "containerd tasks")
	assert.Equal(t, snapsBefore, countSnapshots(t, raw), "snapshots (image layers only)")
	assert.Empty(t, dirEntries(t, filepath.Join(env.StateDir, "netns")), "network namespace files")
	assert.Empty(t, dirEntries(t, filepath.Join(env.StateDir, "sandboxes")), "sandbox dirs")
	assert.Empty(t, dirEntries(t, filepath.Join(env.StateDir, "fifo")), "fifo dirs")
	mps, err := daemon.MountsUnder(env.Daemon.Dir())
	require.NoError(t, err)
	assert.Empty(t, mps, "mounts under the daemon's directory")
	assert.Zero(t, bridgePorts(t, pn.bridge), "veths on the bridge")
	assert.Empty(t, ipAllocations(t, pn.stateDir), "host-local IP allocations")
	for _, h := range []string{"memory", "cpu", "pids"} {
		assert.Empty(t, subdirs(filepath.Join("/sys/fs/cgroup", h, env.Namespace)), "%s cgroups", h)
	}
	assert.Zero(t, shimCount(env.Address), "shim processes")
	assert.LessOrEqual(t, len(dirEntries(t, "/proc/self/fd")), fdsBefore+5, "open files of the runtime's process")
}

func countSnapshots(t *testing.T, c *containerd.Client) int {
	t.Helper()
	n := 0
	err := c.SnapshotService("overlayfs").Walk(ctxT(t), func(context.Context, snapshots.Info) error { n++; return nil })
	require.NoError(t, err)
	return n
}

func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

func subdirs(dir string) []string {
	es, _ := os.ReadDir(dir)
	var out []string
	for _, e := range es {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
}

func bridgePorts(t *testing.T, bridge string) int {
	t.Helper()
	br, err := netlink.LinkByName(bridge)
	require.NoError(t, err)
	links, err := netlink.LinkList()
	require.NoError(t, err)
	n := 0
	for _, l := range links {
		if l.Attrs().MasterIndex == br.Attrs().Index {
			n++
		}
	}
	return n
}

// ipAllocations lists host-local's per-IP files under the network state.
func ipAllocations(t *testing.T, stateDir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(filepath.Join(stateDir, "ipam"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if n := d.Name(); n == "lock" || strings.HasPrefix(n, "last_reserved_ip") {
			return nil
		}
		out = append(out, p)
		return nil
	})
	return out
}

// shimCount counts shim processes serving the daemon at address.
func shimCount(address string) int {
	procs, _ := os.ReadDir("/proc")
	n := 0
	for _, p := range procs {
		b, err := os.ReadFile(filepath.Join("/proc", p.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(string(b), "\x00")
		if len(args) > 0 && strings.Contains(args[0], "containerd-shim") && strings.Contains(string(b), address+"\x00") {
			n++
		}
	}
	return n
}
