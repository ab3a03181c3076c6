package cni

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func newFake(t *testing.T, stateDir string, fx *fakeExec) *LibCNI {
	t.Helper()
	n, err := New(Config{
		StateDir:   stateDir,
		PodCIDRs:   []netip.Prefix{netip.MustParsePrefix("10.244.7.0/24")},
		PluginDirs: []string{"/fake"},
		Exec:       fx,
	})
	require.NoError(t, err)
	return n
}

func summary(calls []fakeCall) []string {
	out := make([]string, 0, len(calls))
	for _, c := range calls {
		out = append(out, c.Command+" "+c.Plugin+" "+c.IfName)
	}
	return out
}

var testPod = PodNetwork{
	Name: "web", Namespace: "default", UID: "u-1", SandboxID: "sb1", NetNS: "/var/run/netns/none",
	PortMappings: []PortMapping{{HostPort: 8080, ContainerPort: 80}, {ContainerPort: 81}},
}

func TestNewValidatesConfig(t *testing.T) {
	dir := t.TempDir()
	v4 := netip.MustParsePrefix("10.244.1.0/24")
	tests := []struct {
		name string
		cfg  Config
	}{
		{"no state dir", Config{PodCIDRs: []netip.Prefix{v4}}},
		{"no pod CIDR", Config{StateDir: dir}},
		{"unmasked CIDR", Config{StateDir: dir, PodCIDRs: []netip.Prefix{netip.MustParsePrefix("10.244.1.5/24")}}},
		{"two IPv4 CIDRs", Config{StateDir: dir, PodCIDRs: []netip.Prefix{v4, netip.MustParsePrefix("10.244.2.0/24")}}},
		{"CIDR too small", Config{StateDir: dir, PodCIDRs: []netip.Prefix{netip.MustParsePrefix("10.244.1.0/31")}}},
		{"bridge name too long", Config{StateDir: dir, PodCIDRs: []netip.Prefix{v4}, BridgeName: "a-very-long-bridge-name"}},
		{"bad network name", Config{StateDir: dir, PodCIDRs: []netip.Prefix{v4}, NetworkName: "a/b"}},
		{"negative MTU", Config{StateDir: dir, PodCIDRs: []netip.Prefix{v4}, MTU: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.cfg)
			require.ErrorIs(t, err, ErrInvalidConfig)
		})
	}
	n, err := New(Config{StateDir: dir, PodCIDRs: []netip.Prefix{v4, netip.MustParsePrefix("fd00:10:244:1::/64")}})
	require.NoError(t, err)
	assert.Equal(t, DefaultNetworkName, n.Name())
}

func TestNewFromConfDir(t *testing.T) {
	write := func(t *testing.T, dir, name, content string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600))
	}
	good := `{"cniVersion":"1.0.0","name":"second","plugins":[{"type":"bridge"}]}`
	single := `{"cniVersion":"0.4.0","name":"single","type":"ptp"}`
	t.Run("first usable file in name order", func(t *testing.T) {
		dir := t.TempDir()
		write(t, dir, "10-broken.conflist", `{"name":`)
		write(t, dir, "20-good.conflist", good)
		write(t, dir, "30-single.conf", single)
		write(t, dir, "05-ignored.txt", single)
		n, err := New(Config{StateDir: t.TempDir(), ConfDir: dir})
		require.NoError(t, err)
		assert.Equal(t, "second", n.Name())
	})
	t.Run("single plugin conf", func(t *testing.T) {
		dir := t.TempDir()
		write(t, dir, "30-single.conf", single)
		n, err := New(Config{StateDir: t.TempDir(), ConfDir: dir})
		require.NoError(t, err)
		assert.Equal(t, "single", n.Name())
	})
	bad := map[string]string{
		"empty dir":      "",
		"no plugins":     `{"cniVersion":"1.0.0","name":"x","plugins":[]}`,
		"no version":     `{"name":"x","plugins":[{"type":"bridge"}]}`,
		"bad name":       `{"cniVersion":"1.0.0","name":"x y","plugins":[{"type":"bridge"}]}`,
		"type with path": `{"cniVersion":"1.0.0","name":"x","plugins":[{"type":"../../bin/sh"}]}`,
		"not JSON":       `nameserver 1.1.1.1`,
		"oversized":      `{"cniVersion":"1.0.0","name":"x","pad":"` + strings.Repeat("a", maxConfFileSize) + `","plugins":[{"type":"bridge"}]}`,
	}
	for name, content := range bad {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if content != "" {
				write(t, dir, "10.conflist", content)
			}
			_, err := New(Config{StateDir: t.TempDir(), ConfDir: dir})
			require.ErrorIs(t, err, ErrNoConfig)
		})
	}
	_, err := New(Config{StateDir: t.TempDir(), ConfDir: "/nonexistent/cni"})
	require.ErrorIs(t, err, ErrNoConfig)
}

func TestSetUpRunsPluginsAndCaches(t *testing.T) {
	fx := newFakeExec()
	n := newFake(t, t.TempDir(), fx)
	ctx := context.Background()

	res, err := n.SetUp(ctx, testPod)
	require.NoError(t, err)
	assert.Equal(t, "eth0", res.Interface)
	assert.Equal(t, "02:00:00:00:00:01", res.MAC)
	require.Len(t, res.IPs, 1)
	assert.True(t, netip.MustParsePrefix("10.244.7.0/24").Contains(res.IPs[0].Address.Addr()))
	assert.Equal(t, netip.MustParseAddr("10.244.7.1"), res.IPs[0].Gateway)
	assert.Equal(t, []netip.Addr{res.IPs[0].Address.Addr()}, res.PodIPs())

	calls := fx.takeCalls()
	assert.Equal(t, []string{"ADD loopback lo", "ADD bridge eth0", "ADD portmap eth0"}, summary(calls))
	rc := calls[2].Stdin["runtimeConfig"].(map[string]any)
	assert.Equal(t, []any{map[string]any{"hostPort": 8080.0, "containerPort": 80.0, "protocol": "tcp"}}, rc["portMappings"],
		"only mappings with a hostPort reach portmap, protocol lowercased")
	assert.Nil(t, calls[1].Stdin["runtimeConfig"], "bridge has no portMappings capability")

	again, err := n.SetUp(ctx, testPod)
	require.NoError(t, err)
	assert.Equal(t, res, again)
	assert.Empty(t, fx.takeCalls(), "a second SetUp returns the cached result")
}

func TestSetUpFailureCleansUp(t *testing.T) {
	fx := newFakeExec()
	state := t.TempDir()
	n := newFake(t, state, fx)
	fx.failOn("ADD", "portmap", errors.New("iptables is broken"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	_, err := n.SetUp(ctx, testPod)
	require.ErrorIs(t, err, ErrSetUp)
	assert.Contains(t, err.Error(), `network "orkit"`)
	assert.Contains(t, err.Error(), `sandbox "sb1"`)
	assert.Contains(t, err.Error(), `type="portmap"`)
	assert.Contains(t, err.Error(), "iptables is broken")
	assert.Equal(t, []string{"ADD loopback lo", "ADD bridge eth0", "ADD portmap eth0",
		"DEL portmap eth0", "DEL bridge eth0", "DEL loopback lo"}, summary(fx.takeCalls()))
	allocs, err := readAllocations(filepath.Join(state, "ipam", "orkit"))
	require.NoError(t, err)
	assert.Empty(t, allocs, "the failed SetUp released its IP")

	require.NoError(t, n.TearDown(ctx, testPod), "TearDown after a failed SetUp")
	fx.failOn("ADD", "portmap", nil)
	_, err = n.SetUp(ctx, testPod)
	require.NoError(t, err, "SetUp works again once the plugin does")
}

func TestSetUpCleanupFailureIsReported(t *testing.T) {
	fx := newFakeExec()
	n := newFake(t, t.TempDir(), fx)
	fx.failOn("ADD", "bridge", errors.New("no bridge"))
	fx.failOn("DEL", "bridge", errors.New("still no bridge"))
	_, err := n.SetUp(context.Background(), testPod)
	require.ErrorIs(t, err, ErrSetUp)
	require.ErrorIs(t, err, ErrTearDown)
	assert.Contains(t, err.Error(), "still no bridge")
}

func TestTearDownIsIdempotent(t *testing.T) {
	fx := newFakeExec()
	state := t.TempDir()
	n := newFake(t, state, fx)
	ctx := context.Background()
	_, err := n.SetUp(ctx, testPod)
	require.NoError(t, err)
	fx.takeCalls()

	require.NoError(t, n.TearDown(ctx, testPod))
	calls := fx.takeCalls()
	assert.Equal(t, []string{"DEL portmap eth0", "DEL bridge eth0", "DEL loopback lo"}, summary(calls))
	for _, c := range calls {
		assert.Empty(t, c.NetNS, "a netns path that is not a namespace is passed as empty")
	}
	require.NoError(t, n.TearDown(ctx, testPod), "second TearDown")
	require.NoError(t, n.TearDown(ctx, PodNetwork{SandboxID: "never-set-up"}))
	require.ErrorIs(t, n.Check(ctx, testPod), ErrNotSetUp)
}

func TestTearDownAfterRestartUsesCache(t *testing.T) {
	fx := newFakeExec()
	state := t.TempDir()
	ctx := context.Background()
	_, err := newFake(t, state, fx).SetUp(ctx, testPod)
	require.NoError(t, err)
	fx.takeCalls()

	restarted := newFake(t, state, fx)
	require.NoError(t, restarted.Check(ctx, testPod))
	fx.takeCalls()
	require.NoError(t, restarted.TearDown(ctx, PodNetwork{SandboxID: testPod.SandboxID}))
	calls := fx.takeCalls()
	require.Equal(t, []string{"DEL portmap eth0", "DEL bridge eth0", "DEL loopback lo"}, summary(calls))
	rc := calls[0].Stdin["runtimeConfig"].(map[string]any)
	assert.Len(t, rc["portMappings"], 1, "port mappings come from the cache")
	assert.Contains(t, fmt.Sprint(calls[0].Stdin["prevResult"]), "10.244.7.", "DEL gets the cached result")
	allocs, err := readAllocations(filepath.Join(state, "ipam", "orkit"))
	require.NoError(t, err)
	assert.Empty(t, allocs)
}

func TestTearDownReportsPluginFailure(t *testing.T) {
	fx := newFakeExec()
	n := newFake(t, t.TempDir(), fx)
	ctx := context.Background()
	_, err := n.SetUp(ctx, testPod)
	require.NoError(t, err)
	fx.failOn("DEL", "bridge", errors.New("busy"))
	err = n.TearDown(ctx, testPod)
	require.ErrorIs(t, err, ErrTearDown)
	assert.Contains(t, err.Error(), `type="bridge"`)
	fx.failOn("DEL", "bridge", nil)
	require.NoError(t, n.TearDown(ctx, testPod), "a retry succeeds")
}

func TestCheck(t *testing.T) {
	fx := newFakeExec()
	n := newFake(t, t.TempDir(), fx)
	ctx := context.Background()
	require.ErrorIs(t, n.Check(ctx, testPod), ErrNotSetUp)
	_, err := n.SetUp(ctx, testPod)
	require.NoError(t, err)
	require.NoError(t, n.Check(ctx, testPod))
	fx.failOn("CHECK", "bridge", errors.New("veth missing"))
	err = n.Check(ctx, testPod)
	require.ErrorIs(t, err, ErrCheck)
	assert.Contains(t, err.Error(), "veth missing")
}

func TestInvalidPods(t *testing.T) {
	n := newFake(t, t.TempDir(), newFakeExec())
	ctx := context.Background()
	ok := testPod
	tests := map[string]func(p *PodNetwork){
		"empty sandbox ID":    func(p *PodNetwork) { p.SandboxID = "" },
		"sandbox ID path":     func(p *PodNetwork) { p.SandboxID = "../x" },
		"sandbox ID too long": func(p *PodNetwork) { p.SandboxID = strings.Repeat("a", 200) },
		"no netns":            func(p *PodNetwork) { p.NetNS = "" },
		"bad protocol":        func(p *PodNetwork) { p.PortMappings = []PortMapping{{HostPort: 1, ContainerPort: 1, Protocol: "ICMP"}} },
		"container port 0":    func(p *PodNetwork) { p.PortMappings = []PortMapping{{HostPort: 1}} },
		"host port too big":   func(p *PodNetwork) { p.PortMappings = []PortMapping{{HostPort: 70000, ContainerPort: 1}} },
		"duplicate host port": func(p *PodNetwork) {
			p.PortMappings = []PortMapping{{HostPort: 80, ContainerPort: 1}, {HostPort: 80, ContainerPort: 2, Protocol: ProtocolTCP}}
		},
		"name with semicolon": func(p *PodNetwork) { p.Name = "a;K8S_POD_NAME=b" },
	}
	for name, mutate := range tests {
		t.Run(name, func(t *testing.T) {
			p := ok
			mutate(&p)
			_, err := n.SetUp(ctx, p)
			require.ErrorIs(t, err, ErrInvalidPod)
			require.ErrorIs(t, n.Check(ctx, p), ErrInvalidPod)
		})
	}
	require.ErrorIs(t, n.TearDown(ctx, PodNetwork{}), ErrInvalidPod)
	require.NoError(t, n.TearDown(ctx, PodNetwork{SandboxID: "x"}), "TearDown needs no netns")
}

func TestReclaimLeaked(t *testing.T) {
	fx := newFakeExec()
	state := t.TempDir()
	n := newFake(t, state, fx)
	ctx := context.Background()
	for _, id := range []string{"alive", "dead1", "dead2"} {
		p := testPod
		p.SandboxID = id
		p.PortMappings = nil
		_, err := n.SetUp(ctx, p)
		require.NoError(t, err)
	}
	// An allocation without any cache entry, as a crash between host-local
	// and the cache write leaves it.
	ipamDir := filepath.Join(state, "ipam", "orkit")
	require.NoError(t, os.WriteFile(filepath.Join(ipamDir, "10.244.7.200"), []byte("orphan\r\neth0"), 0o600))
	fx.takeCalls()

	restarted := newFake(t, state, fx)
	reclaimed, err := restarted.ReclaimLeaked(ctx, func(id string) bool { return id == "alive" })
	require.NoError(t, err)
	assert.Equal(t, []string{"dead1", "dead2", "orphan"}, reclaimed)
	allocs, err := readAllocations(ipamDir)
	require.NoError(t, err)
	require.Len(t, allocs, 1)
	assert.Equal(t, "alive", allocs[0].owner)
	require.NoError(t, restarted.Check(ctx, PodNetwork{SandboxID: "alive", NetNS: "/x"}))
	require.ErrorIs(t, restarted.Check(ctx, PodNetwork{SandboxID: "dead1", NetNS: "/x"}), ErrNotSetUp)

	reclaimed, err = restarted.ReclaimLeaked(ctx, func(string) bool { return true })
	require.NoError(t, err)
	assert.Empty(t, reclaimed)
}

func TestReclaimLeakedReleasesIPWhenDelFails(t *testing.T) {
	fx := newFakeExec()
	state := t.TempDir()
	n := newFake(t, state, fx)
	ctx := context.Background()
	_, err := n.SetUp(ctx, testPod)
	require.NoError(t, err)
	fx.failOn("DEL", "portmap", errors.New("iptables gone"))
	reclaimed, err := n.ReclaimLeaked(ctx, func(string) bool { return false })
	require.ErrorIs(t, err, ErrTearDown)
	assert.Equal(t, []string{"sb1"}, reclaimed)
	allocs, err := readAllocations(filepath.Join(state, "ipam", "orkit"))
	require.NoError(t, err)
	assert.Empty(t, allocs, "the allocation is released even though DEL failed")
}

func TestStatus(t *testing.T) {
	fx := newFakeExec()
	n := newFake(t, t.TempDir(), fx)
	require.NoError(t, n.Status(context.Background()))
	fx.missing["portmap"] = true
	err := n.Status(context.Background())
	require.ErrorIs(t, err, ErrNotReady)
	assert.Contains(t, err.Error(), "portmap")
}

func TestConcurrentSetUpAndTearDown(t *testing.T) {
	fx := newFakeExec()
	state := t.TempDir()
	n := newFake(t, state, fx)
	ctx := context.Background()
	errs := make(chan error, 40)
	for i := range 20 {
		go func() {
			p := PodNetwork{SandboxID: fmt.Sprintf("sb-%d", i), NetNS: "/x"}
			_, err := n.SetUp(ctx, p)
			if err == nil {
				err = n.TearDown(ctx, p)
			}
			errs <- err
		}()
	}
	for range 20 {
		require.NoError(t, <-errs)
	}
	allocs, err := readAllocations(filepath.Join(state, "ipam", "orkit"))
	require.NoError(t, err)
	assert.Empty(t, allocs)
}

func TestConvertResultDualStack(t *testing.T) {
	raw := `{"cniVersion":"1.0.0","interfaces":[{"name":"br"},{"name":"eth0","sandbox":"/ns"}],` +
		`"ips":[{"interface":1,"address":"fd00::5/64","gateway":"fd00::1"},` +
		`{"interface":0,"address":"10.0.0.1/24"},{"interface":1,"address":"10.244.1.5/24","gateway":"10.244.1.1"}]}`
	r, err := parseResult([]byte(raw))
	require.NoError(t, err)
	res, err := convertResult(r)
	require.NoError(t, err)
	assert.Equal(t, []netip.Addr{netip.MustParseAddr("10.244.1.5"), netip.MustParseAddr("fd00::5")}, res.PodIPs())
	assert.Equal(t, netip.MustParseAddr("fd00::1"), res.IPs[1].Gateway)
}

func TestUsableNetNS(t *testing.T) {
	assert.Equal(t, "/proc/self/ns/net", usableNetNS("/proc/self/ns/net"))
	assert.Empty(t, usableNetNS(""))
	assert.Empty(t, usableNetNS("/nonexistent"))
	assert.Empty(t, usableNetNS(t.TempDir()), "a directory is not a namespace")
}

func TestDNSCapabilityReachesOnlyDeclaringPlugins(t *testing.T) {
	dir := t.TempDir()
	conf := `{"cniVersion":"1.0.0","name":"dnsnet","plugins":[` +
		`{"type":"bridge","ipam":{"type":"host-local","dataDir":"` + filepath.Join(dir, "ipam") + `","ranges":[[{"subnet":"10.244.9.0/24"}]]}},` +
		`{"type":"dnsplugin","capabilities":{"dns":true}}]}`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "10-dns.conflist"), []byte(conf), 0o600))
	fx := newFakeExec()
	n, err := New(Config{StateDir: t.TempDir(), ConfDir: dir, PluginDirs: []string{"/fake"}, Exec: fx})
	require.NoError(t, err)
	pod := PodNetwork{SandboxID: "dns1", NetNS: "/x", DNS: DNSConfig{
		Nameservers: []netip.Addr{netip.MustParseAddr("10.96.0.10")}, Searches: []string{"ns.svc.cluster.local"},
		Options: []string{"ndots:5"}}}
	_, err = n.SetUp(context.Background(), pod)
	require.NoError(t, err)
	calls := fx.takeCalls()
	require.Equal(t, []string{"ADD loopback lo", "ADD bridge eth0", "ADD dnsplugin eth0"}, summary(calls))
	assert.Nil(t, calls[1].Stdin["runtimeConfig"])
	assert.Equal(t, map[string]any{"dns": map[string]any{"servers": []any{"10.96.0.10"},
		"searches": []any{"ns.svc.cluster.local"}, "options": []any{"ndots:5"}}}, calls[2].Stdin["runtimeConfig"])

	pod.DNS.Searches = []string{"bad domain"}
	_, err = n.SetUp(context.Background(), pod)
	require.ErrorIs(t, err, ErrInvalidPod)
}

func TestTearDownSurvivesCorruptCache(t *testing.T) {
	fx := newFakeExec()
	state := t.TempDir()
	n := newFake(t, state, fx)
	ctx := context.Background()
	_, err := n.SetUp(ctx, testPod)
	require.NoError(t, err)
	results := filepath.Join(state, "cache", "results")
	entries, err := os.ReadDir(results)
	require.NoError(t, err)
	require.Len(t, entries, 2, "pod network and loopback are cached")
	for _, e := range entries {
		// Valid JSON, but a configuration that no longer parses.
		bad := `{"kind":"cniCacheV1","containerId":"sb1","config":"e30=","ifName":"` +
			map[bool]string{true: "lo", false: "eth0"}[strings.Contains(e.Name(), "-lo")] +
			`","networkName":"orkit"}`
		require.NoError(t, os.WriteFile(filepath.Join(results, e.Name()), []byte(bad), 0o600))
	}
	fx.takeCalls()
	require.NoError(t, n.TearDown(ctx, testPod))
	assert.Equal(t, []string{"DEL portmap eth0", "DEL bridge eth0", "DEL loopback lo"}, summary(fx.takeCalls()),
		"the current configuration is used instead")
	allocs, err := readAllocations(filepath.Join(state, "ipam", "orkit"))
	require.NoError(t, err)
	assert.Empty(t, allocs)
	entries, err = os.ReadDir(results)
	require.NoError(t, err)
	assert.Empty(t, entries)
	require.NoError(t, n.TearDown(ctx, testPod))
}
