package netpol

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/networking"
	"github.com/orkit/orkit/proxy"
)

// The test binary doubles as a server and a client inside the pod network
// namespaces the test makes (through "ip netns exec").
const (
	envListen = "NETPOL_TEST_LISTEN"
	envDial   = "NETPOL_TEST_DIAL"
)

func TestMain(m *testing.M) {
	if addr := os.Getenv(envListen); addr != "" {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		for { // until the test kills it
			c, err := l.Accept()
			if err != nil {
				os.Exit(2)
			}
			_, _ = c.Write([]byte("hi\n"))
			_ = c.Close()
		}
	}
	if addr := os.Getenv(envDial); addr != "" {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			os.Exit(1)
		}
		_ = c.Close()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func requireRootNFT(t *testing.T) {
	t.Helper()
	var why string
	switch {
	case os.Geteuid() != 0:
		why = "needs root"
	case !(&proxy.NFT{}).Available():
		why = "needs nft (Debian nftables)"
	case CheckBridgeNetfilter() != nil:
		why = CheckBridgeNetfilter().Error()
	default:
		if _, err := exec.LookPath("ip"); err != nil {
			why = "needs ip (iproute2)"
		}
	}
	if why == "" {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("prerequisite missing (CI=true, so this fails instead of skipping): %s", why)
	}
	t.Skip(why)
}

func run(t *testing.T, args ...string) {
	t.Helper()
	out, err := exec.Command(args[0], args[1:]...).CombinedOutput()
	require.NoError(t, err, "%s: %s", strings.Join(args, " "), out)
}

// netnsNode is a node network namespace with a bridge and one network
// namespace per pod attached to it, all removed at the end of the test.
type netnsNode struct {
	t    *testing.T
	name string
	pods map[string]string // pod name → its netns
}

func newNetnsNode(t *testing.T) *netnsNode {
	n := &netnsNode{t: t, name: fmt.Sprintf("orkit-np-%d", os.Getpid()), pods: map[string]string{}}
	run(t, "ip", "netns", "add", n.name)
	t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", n.name).Run() })
	run(t, "ip", "-n", n.name, "link", "add", "br0", "type", "bridge")
	run(t, "ip", "-n", n.name, "addr", "add", "10.99.0.1/24", "dev", "br0")
	run(t, "ip", "-n", n.name, "link", "set", "br0", "up")
	// Neither the namespace nor the bridge hands bridged traffic to the
	// ip hooks yet.
	run(t, "ip", "netns", "exec", n.name, "sysctl", "-qw", "net.bridge.bridge-nf-call-iptables=0")
	return n
}

func (n *netnsNode) addPod(name, ip string) {
	ns := n.name + "-" + name
	run(n.t, "ip", "netns", "add", ns)
	n.t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", ns).Run() })
	run(n.t, "ip", "-n", n.name, "link", "add", "v"+name, "type", "veth", "peer", "name", "eth0", "netns", ns)
	run(n.t, "ip", "-n", n.name, "link", "set", "v"+name, "master", "br0", "up")
	run(n.t, "ip", "-n", ns, "addr", "add", ip+"/24", "dev", "eth0")
	run(n.t, "ip", "-n", ns, "link", "set", "eth0", "up")
	run(n.t, "ip", "-n", ns, "link", "set", "lo", "up")
	n.pods[name] = ns
}

// serve runs a TCP server in pod's namespace until the test ends.
func (n *netnsNode) serve(pod, addr string) {
	self, err := os.Executable()
	require.NoError(n.t, err)
	cmd := exec.Command("ip", "netns", "exec", n.pods[pod], self)
	cmd.Env = append(os.Environ(), envListen+"="+addr)
	require.NoError(n.t, cmd.Start())
	n.t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
}

// connects reports whether a connection from pod to addr succeeds.
func (n *netnsNode) connects(pod, addr string) bool {
	self, err := os.Executable()
	require.NoError(n.t, err)
	cmd := exec.Command("ip", "netns", "exec", n.pods[pod], self)
	cmd.Env = append(os.Environ(), envDial+"="+addr)
	return cmd.Run() == nil
}

// settles waits until a connection from pod to addr has outcome want.
func (n *netnsNode) settles(what, pod, addr string, want bool) {
	n.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for n.connects(pod, addr) != want {
		require.True(n.t, time.Now().Before(deadline), "%s: still %v", what, !want)
	}
}

// TestBridgedTrafficMeetsRules proves the hook: two pods on one Linux
// bridge talk at L2, so a default-deny ingress rule in the forward hook
// does not see their traffic until the bridge hands it to the ip hooks
// (br_netfilter's nf_call_iptables, what EnableBridgeNetfilter sets);
// then the rules decide, for ingress and egress, and replies pass.
func TestBridgedTrafficMeetsRules(t *testing.T) {
	requireRootNFT(t)
	n := newNetnsNode(t)
	n.addPod("a", "10.99.0.2")
	n.addPod("b", "10.99.0.3")
	n.addPod("c", "10.99.0.4")
	n.serve("b", "10.99.0.3:8080")
	n.serve("c", "10.99.0.4:8080")
	n.settles("no rules: a reaches b", "a", "10.99.0.3:8080", true)

	pods := []*core.Pod{pod("default", "a", "10.99.0.2", "n", map[string]string{"app": "a"}),
		pod("default", "b", "10.99.0.3", "n", map[string]string{"app": "b"}),
		pod("default", "c", "10.99.0.4", "n", map[string]string{"app": "c"})}
	apply := func(policies ...*networking.NetworkPolicy) {
		rs := Render(policies, pods, nil, nil)
		require.NoError(t, (&proxy.NFT{NetNS: n.name}).Apply(t.Context(), rs.Script()))
	}
	deny := policy("default", "deny", networking.NetworkPolicySpec{PodSelector: *sel("app", "b")})
	apply(deny)
	require.True(t, n.connects("a", "10.99.0.3:8080"), "without br_netfilter the bridge switches around the rules")

	run(t, "ip", "-n", n.name, "link", "set", "br0", "type", "bridge", "nf_call_iptables", "1")
	n.settles("bridge hands traffic to the rules: default deny stops a", "a", "10.99.0.3:8080", false)
	require.True(t, n.connects("a", "10.99.0.4:8080"), "c is selected by no policy: open")

	allow := policy("default", "allow-a", networking.NetworkPolicySpec{PodSelector: *sel("app", "b"),
		Ingress: []networking.NetworkPolicyIngressRule{{From: []networking.NetworkPolicyPeer{{PodSelector: sel("app", "a")}},
			Ports: []networking.NetworkPolicyPort{tcp(8080)}}}})
	apply(deny, allow)
	n.settles("allowed by label: a reaches b (and b's replies pass)", "a", "10.99.0.3:8080", true)
	require.False(t, n.connects("c", "10.99.0.3:8080"), "c is still stopped")

	egress := policy("default", "a-egress", networking.NetworkPolicySpec{PodSelector: *sel("app", "a"),
		PolicyTypes: []networking.PolicyType{networking.PolicyTypeEgress},
		Egress: []networking.NetworkPolicyEgressRule{{To: []networking.NetworkPolicyPeer{{IPBlock: &networking.IPBlock{
			CIDR: "10.99.0.0/24", Except: []string{"10.99.0.3/32"}}}}}}})
	apply(deny, allow, egress)
	n.settles("egress except: a no longer reaches b", "a", "10.99.0.3:8080", false)
	require.True(t, n.connects("a", "10.99.0.4:8080"), "a still reaches c")

	require.NoError(t, (&proxy.NFT{NetNS: n.name}).Apply(t.Context(), DeleteScript("")))
	n.settles("table removed: a reaches b", "a", "10.99.0.3:8080", true)
}
