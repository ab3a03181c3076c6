package proxy_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vishvananda/netlink"
	"golang.org/x/net/dns/dnsmessage"

	"github.com/orkit/orkit/admission"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/apiserver"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/cni"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/controller/endpointslice"
	"github.com/orkit/orkit/controlplane"
	"github.com/orkit/orkit/cri"
	ctrd "github.com/orkit/orkit/cri/containerd"
	"github.com/orkit/orkit/internal/testenv"
	"github.com/orkit/orkit/kubelet"
	"github.com/orkit/orkit/proxy"
	"github.com/orkit/orkit/proxy/dns"
)

const dnsIP = "10.96.0.10"

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// eventually polls cond every 100ms until it holds or d passes.
func eventually(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// cluster is a control plane with the service allocator, a real kubelet,
// the Endpoints controller, the proxy (in its own table) and cluster DNS.
type cluster struct {
	admin   *client.Client
	rt      *ctrd.Runtime
	gateway netip.Addr
	table   string // nftables table, or iptables chain prefix
	node    string
	ipt     bool
}

func startControlPlane(t *testing.T, ctx context.Context) *client.Client {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	cp, err := controlplane.Start(ctx, controlplane.Config{DataDir: t.TempDir(), Listen: addr, Logger: quiet(),
		Admission: func(ctx context.Context, srv *apiserver.Server) (*admission.Chain, error) {
			chain := controlplane.DefaultAdmission(srv)
			alloc, err := apiserver.NewServiceAllocator(srv, apiserver.ServiceAllocatorConfig{Logger: quiet()})
			if err != nil {
				return nil, err
			}
			if err := alloc.Start(ctx); err != nil {
				return nil, err
			}
			chain.Validators = append(chain.Validators, alloc)
			return chain, nil
		}})
	require.NoError(t, err)
	cfg, err := client.ConfigFromKubeconfig(cp.AdminKubeconfig, "")
	require.NoError(t, err)
	cfg.QPS = -1
	c, err := client.New(cfg, client.WithLogger(quiet()))
	require.NoError(t, err)
	return c
}

// freeSubnet picks a 10.244.X.0/24 (X in 200–249) no route serves and an unused bridge name.
// Packages whose tests run at the same time take disjoint shares of X: minicluster 1, kubelet 20–99, cri/containerd 100–149, cni 150–199, proxy 200–249.
func freeSubnet(t *testing.T) (netip.Prefix, string) {
	for range 100 {
		p := netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 244, byte(200 + rand.IntN(50)), 0}), 24)
		bridge := fmt.Sprintf("okp%04x", rand.IntN(1<<16))
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

func startCluster(t *testing.T, iptables bool) *cluster {
	if os.Geteuid() != 0 {
		testenv.Unavailable(t, "proxy integration tests need root")
	}
	if _, err := exec.LookPath("nft"); err != nil {
		testenv.Unavailable(t, "proxy integration tests need nft (Debian nftables)")
	}
	env := testenv.New(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	cl := &cluster{admin: startControlPlane(t, ctx), node: "proxy-node", table: fmt.Sprintf("orkit-proxy-test-%d", os.Getpid()), ipt: iptables}
	if iptables {
		if !proxy.IPTablesAvailable() {
			testenv.Unavailable(t, "needs iptables")
		}
		cl.table = fmt.Sprintf("OK%04d-", os.Getpid()%10000)
	}
	rt, err := ctrd.New(ctx, env.Address, ctrd.WithNamespace(env.Namespace), ctrd.WithStateDir(env.StateDir), ctrd.WithLogger(quiet()))
	require.NoError(t, err)
	t.Cleanup(func() { rt.Close() })
	cl.rt = rt
	guard, err := cni.InstallHostGuard(cni.HostGuardConfig{})
	require.NoError(t, err)
	t.Cleanup(func() { guard.Remove() })
	subnet, bridge := freeSubnet(t)
	cl.gateway = subnet.Addr().Next()
	network, err := cni.New(cni.Config{StateDir: t.TempDir(), PodCIDRs: []netip.Prefix{subnet}, BridgeName: bridge,
		NetworkName: "orkit-px-" + bridge, PluginDirs: []string{testenv.CNIPluginDir}, Logger: quiet()})
	require.NoError(t, err)
	t.Cleanup(func() {
		if l, err := netlink.LinkByName(bridge); err == nil {
			_ = netlink.LinkDel(l)
		}
	})
	k, err := kubelet.New(kubelet.Config{NodeName: cl.node, Client: cl.admin, Runtime: rt, Network: network,
		RootDir: t.TempDir(), CgroupRoot: "/sys/fs/cgroup", PodCIDR: subnet.String(), Logger: quiet(),
		ClusterDNS: []netip.Addr{netip.MustParseAddr(dnsIP)}, ResyncInterval: 5 * time.Second})
	require.NoError(t, err)
	run(t, ctx, "kubelet", k.Run)
	m, err := controller.NewManager(controller.ManagerConfig{Client: cl.admin, Logger: quiet()})
	require.NoError(t, err)
	sc, err := endpointslice.New(m, endpointslice.Config{Logger: quiet()})
	require.NoError(t, err)
	require.NoError(t, m.Add(sc))
	mc, err := endpointslice.NewMirroring(m, endpointslice.Config{Logger: quiet()}) // kube-dns: Endpoints by hand
	require.NoError(t, err)
	require.NoError(t, m.Add(mc))
	run(t, ctx, "controller manager", m.Run)
	// a table left by a killed run is replaced at start; a clean exit removes it
	require.NoError(t, cl.plantStale())
	t.Cleanup(func() { assert.NotContains(t, cl.rules(), cl.table, "rules left after the proxy stopped") })
	pcfg := proxy.Config{Client: cl.admin, Table: cl.table, Logger: quiet(), MinSyncInterval: 20 * time.Millisecond}
	if iptables {
		pcfg.IPTables = &proxy.IPTables{Prefix: cl.table}
	}
	px, err := proxy.New(pcfg)
	require.NoError(t, err)
	run(t, ctx, "proxy", px.Run)
	t.Cleanup(func() { cl.cleanupPods(t) })
	return cl
}

// run runs f until the test ends and checks it returned cleanly. Cleanups
// run last-in first-out, so what started last stops first.
func run(t *testing.T, ctx context.Context, what string, f func(context.Context) error) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- f(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil && ctx.Err() == nil {
			t.Errorf("%s: %v", what, err)
		}
	})
}

func (cl *cluster) cleanupPods(t *testing.T) {
	ctx := context.Background()
	pods := client.For[core.Pod](cl.admin, "default")
	list, err := pods.List(ctx, client.ListOptions{})
	if err != nil {
		return
	}
	for _, p := range list.Items {
		_ = pods.Delete(ctx, p.Name, nil)
	}
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		if l, err := pods.List(ctx, client.ListOptions{}); err == nil && len(l.Items) == 0 {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("pods left after cleanup")
}

func (cl *cluster) createPod(t *testing.T, name string, labels map[string]string, mutate func(*core.Pod)) {
	grace := int64(1)
	p := &core.Pod{ObjectMeta: meta.ObjectMeta{Name: name, Namespace: "default", Labels: labels},
		Spec: core.PodSpec{NodeName: cl.node, TerminationGracePeriodSeconds: &grace,
			Containers: []core.Container{{Name: "app", Image: "orkit.local/hello:v1", ImagePullPolicy: core.PullIfNotPresent,
				Ports: []core.ContainerPort{{Name: "http", ContainerPort: 8080}}}}}}
	if mutate != nil {
		mutate(p)
	}
	_, err := client.For[core.Pod](cl.admin, "default").Create(context.Background(), p)
	require.NoError(t, err)
}

func (cl *cluster) runningPod(t *testing.T, name string) *core.Pod {
	var pod *core.Pod
	eventually(t, 2*time.Minute, "pod "+name+" running", func() bool {
		p, err := client.For[core.Pod](cl.admin, "default").Get(context.Background(), name)
		if err != nil || p.Status.Phase != core.PodRunning || p.Status.PodIP == "" || len(p.Status.ContainerStatuses) == 0 ||
			p.Status.ContainerStatuses[0].ContainerID == "" {
			return false
		}
		pod = p
		return true
	})
	return pod
}

// exec runs a command in the pod's container and returns its output and
// whether it exited 0. A command still running after 10 s (a lookup whose
// DNS server is not reachable yet retries with 5 s timeouts) counts as a
// failed try, so callers polling with eventually try again.
func (cl *cluster) exec(t *testing.T, pod *core.Pod, cmd ...string) (string, bool) {
	id := strings.TrimPrefix(pod.Status.ContainerStatuses[0].ContainerID, "cri://")
	res, err := cl.rt.ExecSync(context.Background(), id, cmd, 10*time.Second)
	if errors.Is(err, cri.ErrTimeout) {
		return err.Error(), false
	}
	require.NoError(t, err)
	return string(res.Stdout) + string(res.Stderr), res.ExitCode == 0
}

// rules lists what the proxy programmed: its nftables table, or its
// iptables chains and hooks.
func (cl *cluster) rules() string {
	if !cl.ipt {
		out, err := exec.Command("nft", "list", "table", "ip", cl.table).CombinedOutput()
		if err != nil {
			return ""
		}
		return string(out)
	}
	out, _ := exec.Command("iptables-save", "-t", "nat").CombinedOutput()
	var mine []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.Contains(l, cl.table) {
			mine = append(mine, l)
		}
	}
	return strings.Join(mine, "\n")
}

func (cl *cluster) plantStale() error {
	cmd := exec.Command("nft", "add table ip "+cl.table+"; add chain ip "+cl.table+" stale-leftover")
	if cl.ipt {
		cmd = exec.Command("iptables", "-w", "-t", "nat", "-N", cl.table+"stale-leftover")
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%v: %s", err, out)
	}
	return nil
}

// dnats counts the DNAT rules to port.
func (cl *cluster) dnats(port int) int {
	n := 0
	for _, l := range strings.Split(cl.rules(), "\n") {
		if (strings.Contains(l, "dnat to") || strings.Contains(l, "DNAT")) && strings.Contains(l, fmt.Sprintf(":%d", port)) {
			n++
		}
	}
	return n
}

// affinityRules counts the rules that record a client's backend.
func (cl *cluster) affinityRules() int {
	return strings.Count(cl.rules(), "update @aff-") + strings.Count(cl.rules(), "-m recent --set")
}

// backends asks the service n times from the client pod and counts the
// hostnames that answered.
func (cl *cluster) backends(t *testing.T, clientPod *core.Pod, url string, n int) map[string]int {
	seen := map[string]int{}
	for range n {
		out, ok := cl.exec(t, clientPod, "/hello", "wget", url)
		if ok {
			seen[strings.TrimSpace(out)]++
		}
	}
	return seen
}

func TestServiceProxyAndDNS(t *testing.T) {
	t.Run("nftables", func(t *testing.T) { testServiceProxyAndDNS(t, false) })
	t.Run("iptables", func(t *testing.T) { testServiceProxyAndDNS(t, true) })
}

func testServiceProxyAndDNS(t *testing.T, iptables bool) {
	cl := startCluster(t, iptables)
	ctx := context.Background()
	svcs := client.For[core.Service](cl.admin, "default")
	app := map[string]string{"app": "hello"}
	for i := range 3 {
		cl.createPod(t, fmt.Sprintf("hello-%d", i), app, nil)
	}
	cl.createPod(t, "client", nil, nil)
	svc, err := svcs.Create(ctx, &core.Service{ObjectMeta: meta.ObjectMeta{Name: "hello", Namespace: "default"},
		Spec: core.ServiceSpec{Type: core.ServiceTypeNodePort, Selector: app,
			Ports: []core.ServicePort{{Name: "http", Port: 80, TargetPort: meta.FromString("http")}}}})
	require.NoError(t, err)
	require.NotEmpty(t, svc.Spec.ClusterIP)
	nodePort := svc.Spec.Ports[0].NodePort
	require.NotZero(t, nodePort)
	clientPod := cl.runningPod(t, "client")
	for i := range 3 {
		cl.runningPod(t, fmt.Sprintf("hello-%d", i))
	}
	url := "http://" + svc.Spec.ClusterIP + ":80/"

	t.Run("cluster IP reaches all three backends", func(t *testing.T) {
		eventually(t, time.Minute, "three ready endpoints programmed", func() bool { return cl.dnats(8080) == 3 })
		assert.NotContains(t, cl.rules(), "stale-leftover")
		seen := cl.backends(t, clientPod, url, 61)
		t.Logf("61 requests: %v", seen)
		assert.Len(t, seen, 3, "%v", seen)
		total := 0
		for _, n := range seen {
			total += n
		}
		assert.Equal(t, 61, total, "every request answered: %v", seen)
	})

	t.Run("cluster IP from the host", func(t *testing.T) {
		// As on every Kubernetes node: the host guard routes the service
		// CIDR to its device, the proxy's output rules translate it.
		body, err := get(url)
		require.NoError(t, err)
		assert.Contains(t, body, "hello-")
	})

	unused := unusedClusterIP(t, cl)
	t.Run("an unused cluster IP is refused on the host and never leaves it", func(t *testing.T) {
		routes, err := netlink.RouteGet(unused.AsSlice())
		require.NoError(t, err)
		dev, err := netlink.LinkByName(cni.DefaultServiceDevice)
		require.NoError(t, err)
		require.Equal(t, dev.Attrs().Index, routes[0].LinkIndex, "%s is routed to %s, not out: %+v", unused, cni.DefaultServiceDevice, routes[0])
		require.Nil(t, routes[0].Gw)
		_, err = net.DialTimeout("tcp", netip.AddrPortFrom(unused, 80).String(), 10*time.Second)
		assert.ErrorIs(t, err, syscall.ECONNREFUSED, "rejected, not dropped")
		out, ok := cl.exec(t, clientPod, "/hello", "wget", "http://"+unused.String()+"/")
		assert.False(t, ok, out)
		assert.Contains(t, out, "refused", "from a pod too")
	})

	t.Run("node port from the host", func(t *testing.T) {
		body, err := get(fmt.Sprintf("http://%s:%d/", cl.gateway, nodePort))
		require.NoError(t, err)
		assert.Contains(t, body, "hello-")
	})

	t.Run("hairpin: a backend reaches itself through the service", func(t *testing.T) {
		self := cl.runningPod(t, "hello-0")
		seen := cl.backends(t, self, url, 20)
		total := 0
		for _, n := range seen {
			total += n
		}
		assert.Equal(t, 20, total, "%v", seen)
	})

	t.Run("DNS names resolve from a pod", func(t *testing.T) {
		// Names outside cluster.local go to the node's upstream resolver:
		// here one the test runs on a loopback address.
		upstream := loopbackResolver(t)
		srv, err := dns.New(dns.Config{Client: cl.admin, Listen: cl.gateway.String() + ":0", Logger: quiet(),
			Upstreams: []netip.AddrPort{upstream}})
		require.NoError(t, err)
		dctx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- srv.Run(dctx) }()
		defer func() { cancel(); require.NoError(t, <-done) }()
		select {
		case <-srv.Ready():
		case err := <-done:
			t.Fatalf("dns: %v", err)
		}
		port := int32(srv.Addr().(*net.UDPAddr).Port)
		// kube-dns: the DNS address reaches the server through the proxy
		_, err = svcs.Create(ctx, &core.Service{ObjectMeta: meta.ObjectMeta{Name: "kube-dns", Namespace: "default"},
			Spec: core.ServiceSpec{ClusterIP: dnsIP, Ports: []core.ServicePort{
				{Name: "dns", Port: 53, Protocol: core.ProtocolUDP}, {Name: "dns-tcp", Port: 53, Protocol: core.ProtocolTCP}}}})
		require.NoError(t, err)
		_, err = client.For[core.Endpoints](cl.admin, "default").Create(ctx, &core.Endpoints{
			ObjectMeta: meta.ObjectMeta{Name: "kube-dns", Namespace: "default"},
			Subsets: []core.EndpointSubset{{Addresses: []core.EndpointAddress{{IP: cl.gateway.String()}},
				Ports: []core.EndpointPort{{Name: "dns", Port: port, Protocol: core.ProtocolUDP}, {Name: "dns-tcp", Port: port, Protocol: core.ProtocolTCP}}}}})
		require.NoError(t, err)
		// a StatefulSet-style pod: hostname and subdomain under a headless service
		_, err = svcs.Create(ctx, &core.Service{ObjectMeta: meta.ObjectMeta{Name: "web", Namespace: "default"},
			Spec: core.ServiceSpec{ClusterIP: core.ClusterIPNone, Selector: map[string]string{"app": "web"},
				Ports: []core.ServicePort{{Name: "http", Port: 8080}}}})
		require.NoError(t, err)
		cl.createPod(t, "web-0", map[string]string{"app": "web"}, func(p *core.Pod) { p.Spec.Hostname, p.Spec.Subdomain = "web-0", "web" })
		web0 := cl.runningPod(t, "web-0")
		var last string
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("last lookup: %q; rules:\n%s", last, cl.rules())
			}
		})
		eventually(t, time.Minute, "service name resolves", func() bool {
			out, ok := cl.exec(t, clientPod, "/hello", "resolve", "hello.default.svc.cluster.local")
			last = out
			return ok && strings.Contains(out, svc.Spec.ClusterIP)
		})
		out, ok := cl.exec(t, clientPod, "/hello", "resolve", "hello")
		assert.True(t, ok, out)
		assert.Contains(t, out, svc.Spec.ClusterIP, "short name through the search path")
		eventually(t, time.Minute, "stable pod name resolves", func() bool {
			out, ok := cl.exec(t, clientPod, "/hello", "resolve", "web-0.web.default.svc.cluster.local")
			return ok && strings.Contains(out, web0.Status.PodIP)
		})
		out, ok = cl.exec(t, clientPod, "/hello", "resolve", "nope.default.svc.cluster.local")
		assert.False(t, ok, out)
		out, ok = cl.exec(t, clientPod, "/hello", "resolve", "www.example.")
		assert.True(t, ok, out)
		assert.Contains(t, out, "192.0.2.10", "a name outside the cluster domain, forwarded upstream")
		out, ok = cl.exec(t, clientPod, "/hello", "resolve", "nx.example.")
		assert.False(t, ok, out)
		assert.Contains(t, out, "no such host", "the upstream's NXDOMAIN passed through")

		// From the host, to the DNS Service's cluster IP, as a node's
		// tools (dig @10.96.0.10) do.
		r := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, network, net.JoinHostPort(dnsIP, "53"))
		}}
		for _, network := range []string{"udp", "tcp"} {
			r := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
				return (&net.Dialer{}).DialContext(ctx, network, net.JoinHostPort(dnsIP, "53"))
			}}
			lctx, lcancel := context.WithTimeout(ctx, 10*time.Second)
			addrs, err := r.LookupHost(lctx, "hello.default.svc.cluster.local")
			lcancel()
			require.NoError(t, err, network)
			assert.Equal(t, []string{svc.Spec.ClusterIP}, addrs, network)
		}
		lctx, lcancel := context.WithTimeout(ctx, 10*time.Second)
		_, err = r.LookupHost(lctx, "nope.default.svc.cluster.local")
		lcancel()
		var dnsErr *net.DNSError
		require.ErrorAs(t, err, &dnsErr)
		assert.True(t, dnsErr.IsNotFound, "%v", err)
	})

	t.Run("client IP affinity keeps a client on one backend", func(t *testing.T) {
		cur, err := svcs.Get(ctx, "hello")
		require.NoError(t, err)
		cur.Spec.SessionAffinity = core.ServiceAffinityClientIP
		_, err = svcs.Update(ctx, cur)
		require.NoError(t, err)
		eventually(t, time.Minute, "affinity programmed", func() bool { return cl.affinityRules() == 3 })
		seen := cl.backends(t, clientPod, url, 20)
		assert.Len(t, seen, 1, "%v", seen)
		cur, err = svcs.Get(ctx, "hello")
		require.NoError(t, err)
		cur.Spec.SessionAffinity, cur.Spec.SessionAffinityConfig = core.ServiceAffinityNone, nil
		_, err = svcs.Update(ctx, cur)
		require.NoError(t, err)
		eventually(t, time.Minute, "affinity removed", func() bool { return cl.affinityRules() == 0 })
	})

	t.Run("scale to one: only that backend answers", func(t *testing.T) {
		pods := client.For[core.Pod](cl.admin, "default")
		require.NoError(t, pods.Delete(ctx, "hello-1", nil))
		require.NoError(t, pods.Delete(ctx, "hello-2", nil))
		eventually(t, time.Minute, "one endpoint programmed", func() bool { return cl.dnats(8080) == 1 })
		eventually(t, time.Minute, "only hello-0 answers", func() bool {
			seen := cl.backends(t, clientPod, url, 10)
			return len(seen) == 1 && seen["hello-0"] == 10
		})
	})

	t.Run("service deleted: its rules are gone", func(t *testing.T) {
		require.NoError(t, svcs.Delete(ctx, "hello", nil))
		eventually(t, time.Minute, "rules removed", func() bool {
			r := cl.rules()
			return cl.dnats(8080) == 0 && !strings.Contains(r, svc.Spec.ClusterIP+" ") && !strings.Contains(r, svc.Spec.ClusterIP+"/32") &&
				!strings.Contains(r, fmt.Sprintf(". %d ", nodePort)) && !strings.Contains(r, fmt.Sprintf("--dport %d ", nodePort))
		})
		_, ok := cl.exec(t, clientPod, "/hello", "wget", url)
		assert.False(t, ok)
	})
}

// loopbackResolver runs, until the test ends, a DNS server on a loopback
// address that knows www.example. (192.0.2.10) and answers NXDOMAIN for
// everything else, over UDP.
func loopbackResolver(t *testing.T) netip.AddrPort {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	require.NoError(t, err)
	done := make(chan struct{})
	t.Cleanup(func() { pc.Close(); <-done })
	go func() {
		defer close(done)
		buf := make([]byte, 65535)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			var p dnsmessage.Parser
			h, err := p.Start(buf[:n])
			if err != nil {
				continue
			}
			q, err := p.Question()
			if err != nil {
				continue
			}
			resp := dnsmessage.Header{ID: h.ID, Response: true, RecursionDesired: h.RecursionDesired, RecursionAvailable: true}
			known := q.Name.String() == "www.example."
			if !known {
				resp.RCode = dnsmessage.RCodeNameError
			}
			b := dnsmessage.NewBuilder(nil, resp)
			_ = b.StartQuestions()
			_ = b.Question(q)
			_ = b.StartAnswers()
			if known && q.Type == dnsmessage.TypeA {
				_ = b.AResource(dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: 30}, dnsmessage.AResource{A: [4]byte{192, 0, 2, 10}})
			}
			if out, err := b.Finish(); err == nil {
				_, _ = pc.WriteTo(out, from)
			}
		}
	}()
	return netip.MustParseAddrPort(pc.LocalAddr().String())
}

// unusedClusterIP returns an address of the service CIDR no Service has.
func unusedClusterIP(t *testing.T, cl *cluster) netip.Addr {
	list, err := client.For[core.Service](cl.admin, "").List(context.Background(), client.ListOptions{})
	require.NoError(t, err)
	taken := map[string]bool{}
	for _, s := range list.Items {
		taken[s.Spec.ClusterIP] = true
	}
	for ip := netip.MustParseAddr("10.111.255.254"); ; ip = ip.Prev() {
		if !taken[ip.String()] {
			return ip
		}
	}
}

func get(url string) (string, error) {
	c := &http.Client{Timeout: 3 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}
