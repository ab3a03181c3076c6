package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/authz"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/cni"
	"github.com/orkit/orkit/cri"
	ctrd "github.com/orkit/orkit/cri/containerd"
	"github.com/orkit/orkit/cri/containerd/daemon"
	"github.com/orkit/orkit/images"
	"github.com/orkit/orkit/kubelet"
	"github.com/orkit/orkit/netpol"
	"github.com/orkit/orkit/proxy"
)

// helloV2 is a second tag of the hello image, for the demo's rollout.
const helloV2 = "orkit.local/hello:v2"

// cniPluginDir is where Debian's containernetworking-plugins installs.
const cniPluginDir = "/usr/lib/cni"

// checkNodePrerequisites says exactly what a real node is missing.
func checkNodePrerequisites() error {
	var missing []string
	if os.Geteuid() != 0 {
		missing = append(missing, "root (real nodes create network namespaces, cgroups and mounts: run as root, or use --nodes 0 --sim-nodes N)")
	}
	if err := daemon.CheckPrerequisites(); err != nil {
		missing = append(missing, err.Error())
	}
	for _, p := range []string{"bridge", "host-local", "loopback", "portmap"} {
		if _, err := os.Stat(filepath.Join(cniPluginDir, p)); err != nil {
			missing = append(missing, fmt.Sprintf("CNI plugin %s in %s (Debian package containernetworking-plugins)", p, cniPluginDir))
		}
	}
	if _, err := exec.LookPath("go"); err != nil {
		missing = append(missing, "the go command (the bundled images are built from Go programs in the repository)")
	}
	if len(missing) == 0 {
		return nil
	}
	msg := "a real node needs:"
	for _, m := range missing {
		msg += "\n  - " + m
	}
	return errors.New(msg + "\nbash scripts/setup.sh installs the packages (as root)")
}

// realNode is one node running real containers: a kubelet on the shared
// private containerd and its own CNI bridge.
type realNode struct {
	name     string
	runtime  *ctrd.Runtime
	network  nodeNetwork
	bridge   string
	stateDir string // runtime and network state, DataDir/nodes/<name>
}

// ensureContainerd starts the private containerd (once) and imports the
// bundled images built from the repository's Go programs.
func (c *cluster) ensureContainerd(ctx context.Context, withProxy bool) (*daemon.Daemon, error) {
	if c.containerd != nil {
		return c.containerd, nil
	}
	dir := filepath.Join(c.opts.DataDir, "containerd")
	// Supervised: if containerd dies, the daemon starts it again (with
	// backoff); the pods' shims outlive it and the kubelet's runtime
	// reconnects.
	d, err := daemon.Start(ctx, dir, daemon.WithLogger(c.opts.Logger))
	if err != nil {
		return nil, fmt.Errorf("start containerd: %w", err)
	}
	c.containerd = d
	c.onStop(func() {
		sctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		// Whatever the nodes could not remove through it (a dead
		// containerd): tasks, shims, their cgroups, mounts. Images stay.
		if err := d.Shutdown(sctx); err != nil {
			c.opts.Logger.Warn("containerd shutdown", "err", err)
		}
		c.step("containerd stopped")
	})
	c.step("private containerd started (pid %d, socket %s)", d.PID(), d.Address())
	guard, err := cni.InstallHostGuard(hostGuardConfig())
	if err != nil {
		return nil, fmt.Errorf("install host routes guarding the cluster CIDRs: %w", err)
	}
	c.onStop(func() { _ = guard.Remove() })
	if withProxy {
		if err := c.startProxy(ctx); err != nil {
			return nil, err
		}
		if err := c.startNetworkPolicy(ctx); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// hostGuardConfig is the host guard of orkit's defaults. In a network
// namespace other than init's (an agent on a test's "host", one of
// `ip netns`) the guard's holders are recorded apart from the machine's,
// keyed by the namespace: routes are per namespace, so holders of other
// namespaces must not keep (or remove) this one's.
func hostGuardConfig() cni.HostGuardConfig {
	self, err := os.Readlink("/proc/self/ns/net")
	if err != nil || !inOtherNetns(self) {
		return cni.HostGuardConfig{}
	}
	id := strings.Trim(strings.TrimPrefix(self, "net:"), "[]")
	return cni.HostGuardConfig{StateDir: filepath.Join(cni.DefaultHostGuardStateDir, "netns-"+id)}
}

// inOtherNetns says whether the network namespace self ("net:[<inode>]")
// is not init's: it differs from PID 1's, or (PID 1's unreadable, as in
// some containers) it is one of /run/netns.
func inOtherNetns(self string) bool {
	if initNS, err := os.Readlink("/proc/1/ns/net"); err == nil {
		return self != initNS
	}
	var st syscall.Stat_t
	if syscall.Stat("/proc/self/ns/net", &st) != nil {
		return false
	}
	named, _ := filepath.Glob("/run/netns/*")
	for _, n := range named {
		var nst syscall.Stat_t
		if syscall.Stat(n, &nst) == nil && nst.Ino == st.Ino && nst.Dev == st.Dev {
			return true
		}
	}
	return false
}

// startProxy runs the service proxy for the host's network namespace
// (every real node shares it), as system:kube-proxy.
func (c *cluster) startProxy(ctx context.Context) error {
	cl, err := c.clientFor("system:kube-proxy")
	if err != nil {
		return err
	}
	px, err := proxy.New(proxy.Config{Client: cl, Logger: c.opts.Logger})
	if err != nil {
		return fmt.Errorf("service proxy: %w", err)
	}
	c.goRun("service proxy", func() error { return px.Run(ctx) })
	c.step("service proxy started (user system:kube-proxy, nftables table orkit-proxy)")
	return nil
}

// startNetworkPolicy runs the NetworkPolicy enforcer for the host's
// network namespace, beside the service proxy: one for every real node,
// as system:orkit-netpol.
func (c *cluster) startNetworkPolicy(ctx context.Context) error {
	cl, err := c.clientFor(authz.NetworkPolicyAgentUser)
	if err != nil {
		return err
	}
	e, err := netpol.New(netpol.Config{Client: cl, Logger: c.opts.Logger})
	if err != nil {
		return fmt.Errorf("network policy: %w", err)
	}
	c.goRun("network policy", func() error { return e.Run(ctx) })
	c.step("network policy enforcer started (user %s, nftables table ip %s)", authz.NetworkPolicyAgentUser, netpol.TableName)
	return nil
}

// importImages builds the bundled images (cached) and imports them. The
// go command builds them in the module of the working directory, which
// must require orkit (orkit's own checkout does).
func (c *cluster) importImages(ctx context.Context, rt cri.Runtime) error {
	root, err := images.FindModuleRoot(".")
	if err != nil {
		return fmt.Errorf("the bundled images are built with the go command: run the minicluster from a Go module that requires orkit (%w)", err)
	}
	b, err := images.New(root, filepath.Join(c.opts.DataDir, "images"))
	if err != nil {
		return err
	}
	// hello:v2 is the same program under a second tag, so the demo has an
	// image to roll out to (kubectl set image) and back from.
	v2 := images.HelloSpec()
	v2.Ref = helloV2
	if _, err := b.BuildAndImport(ctx, rt, append(images.Bundled(), v2)...); err != nil {
		return fmt.Errorf("bundled images: %w", err)
	}
	c.step("bundled images imported: %s, %s, %s", images.PauseRef, images.HelloRef, helloV2)
	for _, spec := range c.opts.Images {
		if _, err := b.BuildAndImport(ctx, rt, spec); err != nil {
			return fmt.Errorf("image %s: %w", spec.Ref, err)
		}
		c.step("image %s imported (built from %s)", spec.Ref, spec.Package)
	}
	return nil
}

// runtimeOptions are the options of a real node's runtime: containerd
// namespace orkit-<node>, state under stateDir/runtime, the cluster's
// privileged setting and registry mirrors.
func (c *cluster) runtimeOptions(node, stateDir string) []ctrd.Option {
	opts := []ctrd.Option{ctrd.WithNamespace("orkit-" + node), ctrd.WithStateDir(filepath.Join(stateDir, "runtime")),
		ctrd.WithLogger(c.opts.Logger), ctrd.WithAllowPrivileged(!c.opts.DenyPrivileged)}
	for reg, mirror := range c.opts.RegistryMirrors {
		opts = append(opts, ctrd.WithRegistryMirror(reg, mirror))
	}
	return opts
}

// startRealNode starts node-<i>: runtime, network, kubelet.
func (c *cluster) startRealNode(ctx context.Context, i int) error {
	name := fmt.Sprintf("node-%d", i)
	d, err := c.ensureContainerd(ctx, true)
	if err != nil {
		return err
	}
	stateDir := filepath.Join(c.opts.DataDir, "nodes", name)
	rt, err := ctrd.New(ctx, d.Address(), c.runtimeOptions(name, stateDir)...)
	if err != nil {
		return fmt.Errorf("%s: runtime: %w", name, err)
	}
	if err := c.importImages(ctx, rt); err != nil {
		rt.Close()
		return err
	}
	subnet := netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 244, byte(i), 0}), 24)
	n := &realNode{name: name, runtime: rt, bridge: fmt.Sprintf("orkit%d", i), stateDir: stateDir}
	n.network, err = cni.New(cni.Config{StateDir: filepath.Join(stateDir, "cni"), PodCIDRs: []netip.Prefix{subnet},
		BridgeName: n.bridge, NetworkName: "orkit-" + name, PluginDirs: []string{cniPluginDir}, Logger: c.opts.Logger})
	if err != nil {
		rt.Close()
		return fmt.Errorf("%s: network: %w", name, err)
	}
	c.onStop(func() { c.stopRealNode(n) })
	gw, err := ensureBridge(n.bridge, subnet)
	if err != nil {
		return fmt.Errorf("%s: bridge: %w", name, err)
	}
	// Traffic between two pods of the node is switched on the bridge;
	// only with this does it meet the NetworkPolicy rules.
	if err := netpol.EnableBridgeNetfilter(n.bridge); err != nil {
		c.step("%s: NetworkPolicies cannot isolate pods of this node from each other: %v", name, err)
	}
	if i == 1 {
		// Real nodes share the host's network namespace: one DNS server.
		if err := c.startDNS(ctx, gw); err != nil {
			c.step("cluster DNS not started: %v (pods resolve nothing)", err)
		}
	}
	if err := c.startKubelet(ctx, n, stateDir, subnet, gw); err != nil {
		return err
	}
	c.nodes = append(c.nodes, n)
	c.step("%s started: kubelet as system:node:%s, containerd namespace orkit-%s, pod CIDR %s on bridge %s", name, name, name, subnet, n.bridge)
	return nil
}

// startKubelet starts the kubelet of real node n. The node's address (its
// InternalIP, where its kubelet serves and where its host ports and node
// ports answer) is gw, the host's address on the node's pod bridge: all
// real nodes share the host, and 127.0.0.1 would be each pod's own
// loopback, not the node.
func (c *cluster) startKubelet(ctx context.Context, n *realNode, stateDir string, subnet netip.Prefix, gw netip.Addr) error {
	cl, err := c.clientFor("system:node:"+n.name, "system:nodes")
	if err != nil {
		return err
	}
	serving, err := c.cp.CA.IssueServing("system:node:"+n.name, []string{"localhost", n.name}, []net.IP{gw.AsSlice(), net.ParseIP("127.0.0.1")})
	if err != nil {
		return err
	}
	cert, err := tls.X509KeyPair(serving.CertPEM, serving.KeyPEM)
	if err != nil {
		return err
	}
	k, err := kubelet.New(kubelet.Config{
		NodeName: n.name, Client: cl, Runtime: n.runtime, Network: n.network,
		RootDir: filepath.Join(stateDir, "kubelet"), CgroupRoot: "/sys/fs/cgroup", PodCIDR: subnet.String(),
		NodeIP: gw, ServerAddr: netip.AddrPortFrom(gw, 0).String(), ServingCert: &cert, ClientCA: c.cp.CA.Pool(), Logger: c.opts.Logger,
		ClusterDNS: []netip.Addr{clusterDNSIP}, ClusterDomain: "cluster.local",
	})
	if err != nil {
		return err
	}
	c.goRun("kubelet "+n.name, func() error { return k.Run(ctx) })
	if err := c.waitNodeReady(ctx, n.name, true); err != nil {
		return err
	}
	// The role label is the admin's to set, as kubeadm does: NodeRestriction
	// refuses node-role.kubernetes.io/ labels from the node itself.
	_, err = client.For[core.Node](c.admin, "").Patch(ctx, n.name, client.MergePatchType,
		[]byte(`{"metadata":{"labels":{"node-role.kubernetes.io/worker":""}}}`))
	return err
}

// waitNodeReady waits until the Node is Ready and, with endpoint,
// advertises its kubelet endpoint (which pods/log needs).
func (c *cluster) waitNodeReady(ctx context.Context, name string, endpoint bool) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	nodes := client.For[core.Node](c.admin, "")
	for {
		n, err := nodes.Get(ctx, name)
		if err == nil && core.IsNodeReady(n) && (!endpoint || n.Status.DaemonEndpoints.KubeletEndpoint.Port != 0) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("node %s did not become Ready with a kubelet endpoint: %w (last error: %v)", name, ctx.Err(), err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Bounds of a real node's stop: it waits this long for a (supervised,
// restarting) containerd to answer, and each runtime call this long.
const (
	runtimeWaitOnStop = 15 * time.Second
	runtimeCallOnStop = 10 * time.Second
)

// stopRealNode removes everything the node made on the host: its pod
// sandboxes (containers, network namespaces) through the runtime, their
// pod networks and IP reservations (from the CNI cache, which needs no
// runtime, for whatever the runtime could not remove), the pods'
// cgroups, and the bridge. Every step is bounded, so a dead runtime
// delays the stop by at most runtimeWaitOnStop; what its shims and mounts
// leave is removed by the containerd shutdown after it. The pods stay in
// the API server: started again, the minicluster runs them anew.
func (c *cluster) stopRealNode(n *realNode) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	uids := map[string]bool{}
	removed, listed := 0, false
	if c.runtimeAnswers(ctx, n) {
		lctx, lcancel := context.WithTimeout(ctx, runtimeCallOnStop)
		sbs, err := n.runtime.ListPodSandbox(lctx, cri.PodSandboxFilter{})
		lcancel()
		listed = err == nil
		for _, sb := range sbs {
			uids[sb.Metadata.UID] = true
			if c.removeSandbox(ctx, n, sb) {
				removed++
			}
		}
	}
	reclaimed, err := n.network.ReclaimLeaked(ctx, func(string) bool { return false })
	if err != nil {
		c.opts.Logger.Warn("release pod networks", "node", n.name, "err", err)
	}
	if !listed {
		c.forceStop(ctx, n)
	}
	for _, uid := range c.podUIDs(ctx, n.name) {
		uids[uid] = true
	}
	for uid := range uids {
		if err := kubelet.RemovePodCgroups("/sys/fs/cgroup", uid); err != nil {
			c.opts.Logger.Warn("remove pod cgroups", "node", n.name, "pod", uid, "err", err)
		}
	}
	// the tmpfs volumes (secrets, projected service account tokens) of
	// pods the kubelet had not torn down when it stopped
	if err := daemon.UnmountUnder(filepath.Join(n.stateDir, "kubelet")); err != nil {
		c.opts.Logger.Warn("unmount pod volumes", "node", n.name, "err", err)
	}
	n.runtime.Close()
	msg := fmt.Sprintf("%s stopped: %d pod sandboxes removed", n.name, removed)
	if !listed {
		msg += " (the runtime did not answer; its shims and mounts go with containerd)"
	}
	if len(reclaimed) > 0 {
		msg += fmt.Sprintf(", %d pod networks released", len(reclaimed))
	}
	if err := exec.Command("ip", "link", "del", n.bridge).Run(); err == nil {
		msg += ", bridge " + n.bridge + " deleted"
	}
	c.step("%s", msg)
}

// forceStop removes, without the runtime, what the node's pods still run
// and mount: the containerd shutdown kills the shims (and so the pods'
// processes) by PID and unmounts their root filesystems; then the
// network namespaces' bind mounts under the node's state directory go.
func (c *cluster) forceStop(ctx context.Context, n *realNode) {
	if err := c.containerd.Shutdown(ctx); err != nil {
		c.opts.Logger.Warn("containerd shutdown", "err", err)
	}
	if err := daemon.UnmountUnder(n.stateDir); err != nil {
		c.opts.Logger.Warn("unmount pod network namespaces", "node", n.name, "err", err)
	}
}

// runtimeAnswers waits up to runtimeWaitOnStop for the node's runtime to
// report ready (the daemon restarts a dead containerd meanwhile).
func (c *cluster) runtimeAnswers(ctx context.Context, n *realNode) bool {
	ctx, cancel := context.WithTimeout(ctx, runtimeWaitOnStop)
	defer cancel()
	for {
		if st, err := n.runtime.Status(ctx); err == nil {
			if cond, ok := st.Condition(cri.RuntimeReady); ok && cond.Status {
				return true
			}
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// removeSandbox tears down one sandbox's network, stops and removes it,
// each step bounded; it reports whether the sandbox is gone.
func (c *cluster) removeSandbox(ctx context.Context, n *realNode, sb cri.PodSandbox) bool {
	step := func(f func(context.Context) error) error {
		sctx, cancel := context.WithTimeout(ctx, runtimeCallOnStop)
		defer cancel()
		return f(sctx)
	}
	_ = step(func(ctx context.Context) error {
		return n.network.TearDown(ctx, cni.PodNetwork{SandboxID: sb.ID, Name: sb.Metadata.Name,
			Namespace: sb.Metadata.Namespace, UID: sb.Metadata.UID})
	})
	_ = step(func(ctx context.Context) error { return n.runtime.StopPodSandbox(ctx, sb.ID) })
	return step(func(ctx context.Context) error { return n.runtime.RemovePodSandbox(ctx, sb.ID) }) == nil
}

// podUIDs returns the UIDs of the pods bound to node (their cgroups may
// be left when the runtime could not list its sandboxes).
func (c *cluster) podUIDs(ctx context.Context, node string) []string {
	ctx, cancel := context.WithTimeout(ctx, runtimeCallOnStop)
	defer cancel()
	pods, err := client.For[core.Pod](c.admin, "").List(ctx, client.ListOptions{FieldSelector: "spec.nodeName=" + node})
	if err != nil {
		return nil
	}
	uids := make([]string, 0, len(pods.Items))
	for _, p := range pods.Items {
		uids = append(uids, string(p.UID))
	}
	return uids
}
