package cni_test

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"

	"github.com/orkit/orkit/cni"
)

// A node agent attaches a sandbox to the node's pod network and detaches
// it again. (Not run: it needs root and the CNI plugins.)
func ExampleNew() {
	net, err := cni.New(cni.Config{
		StateDir: "/var/lib/orkit/node-1/cni",
		PodCIDRs: []netip.Prefix{netip.MustParsePrefix("10.244.1.0/24")},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	pod := cni.PodNetwork{
		Name: "web", Namespace: "default", UID: "7c9d", SandboxID: "3f2a",
		NetNS:        "/run/netns/cni-3f2a",
		PortMappings: []cni.PortMapping{{HostPort: 8080, ContainerPort: 80}},
	}
	res, err := net.SetUp(ctx, pod)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("pod IPs:", res.PodIPs())
	// Later, even after a restart of the agent and with the netns gone:
	_ = net.TearDown(ctx, cni.PodNetwork{SandboxID: pod.SandboxID})
}

// Whatever runs real pod networking guards the cluster and service CIDRs
// first: the cluster CIDR unreachable, the service CIDR routed to a local
// dummy device for the service proxy. (Not run: it needs CAP_NET_ADMIN.)
func ExampleInstallHostGuard() {
	guard, err := cni.InstallHostGuard(cni.HostGuardConfig{}) // 10.244.0.0/16 unreachable, 10.96.0.0/12 to orkit-svc
	if err != nil {
		fmt.Println(err)
		return
	}
	defer guard.Remove()
	// ... run the cluster ...
}

func ExamplePodDNS() {
	dns, err := cni.PodDNS(cni.PodDNSInput{
		Policy:        cni.DNSClusterFirst,
		Namespace:     "shop",
		ClusterDomain: "cluster.local",
		ClusterDNS:    []netip.Addr{netip.MustParseAddr("10.96.0.10")},
		Pod:           cni.DNSConfig{Options: []string{"ndots:2"}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(dns.Format()))
	// Output:
	// nameserver 10.96.0.10
	// search shop.svc.cluster.local svc.cluster.local cluster.local
	// options ndots:2
}

func ExampleWriteResolvConf() {
	dir, _ := os.MkdirTemp("", "sandbox")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "resolv.conf")
	err := cni.WriteResolvConf(path, cni.DNSConfig{
		Nameservers: []netip.Addr{netip.MustParseAddr("10.96.0.10")},
		Searches:    []string{"default.svc.cluster.local"},
		Options:     []string{"ndots:5"},
	})
	fmt.Println(err)
	data, _ := os.ReadFile(path)
	fmt.Print(string(data))
	// Output:
	// <nil>
	// nameserver 10.96.0.10
	// search default.svc.cluster.local
	// options ndots:5
}
