package kubelet_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log"
	"net/netip"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/resource"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/cni"
	ctrd "github.com/orkit/orkit/cri/containerd"
	"github.com/orkit/orkit/kubelet"
)

// A real node: containerd, a CNI bridge on the node's pod CIDR, pod
// cgroups and directories under /var/lib/orkit, and the HTTPS log endpoint.
func ExampleNew() {
	ctx := context.Background()
	cfg, err := client.ConfigFromKubeconfig("/etc/orkit/node-1.kubeconfig", "") // system:node:node-1
	if err != nil {
		log.Fatal(err)
	}
	c, err := client.New(cfg)
	if err != nil {
		log.Fatal(err)
	}
	rt, err := ctrd.New(ctx, "/run/containerd/containerd.sock")
	if err != nil {
		log.Fatal(err)
	}
	network, err := cni.New(cni.Config{StateDir: "/var/lib/orkit/cni", PodCIDRs: []netip.Prefix{netip.MustParsePrefix("10.244.1.0/24")}})
	if err != nil {
		log.Fatal(err)
	}
	var servingCert tls.Certificate // issued by the cluster CA for the node's address
	k, err := kubelet.New(kubelet.Config{
		NodeName: "node-1", Client: c, Runtime: rt, Network: network,
		RootDir: "/var/lib/orkit/kubelet", CgroupRoot: "/sys/fs/cgroup", PodCIDR: "10.244.1.0/24",
		ServerAddr: ":10250", ServingCert: &servingCert, ClientCA: x509.NewCertPool(),
	})
	if err != nil {
		log.Fatal(err)
	}
	log.Fatal(k.Run(ctx)) // until ctx ends; containers keep running
}

// The resource-fit admission handler refuses a pod that no longer fits.
func ExampleResourceFit() {
	alloc := core.ResourceList{core.ResourceCPU: resource.MustParse("1"), core.ResourcePods: resource.MustParse("10")}
	pod := &core.Pod{Spec: core.PodSpec{Containers: []core.Container{{Name: "app",
		Resources: core.ResourceRequirements{Requests: core.ResourceList{core.ResourceCPU: resource.MustParse("1500m")}}}}}}
	r := kubelet.ResourceFit{}.Admit(kubelet.AdmitAttributes{Pod: pod, Allocatable: alloc})
	fmt.Println(r.Admit, r.Reason)
	// Output: false OutOfcpu
}

// A thousand simulated nodes in one process, sharing one client.
func ExampleSimPool() {
	ctx := context.Background()
	cfg, err := client.ConfigFromKubeconfig("admin.kubeconfig", "")
	if err != nil {
		log.Fatal(err)
	}
	c, err := client.New(cfg)
	if err != nil {
		log.Fatal(err)
	}
	pool := kubelet.NewSimPool(c, kubelet.SimConfig{})
	for i := range 1000 {
		if _, err := pool.Add(fmt.Sprintf("sim-node-%d", i)); err != nil {
			log.Fatal(err)
		}
	}
	log.Fatal(pool.Run(ctx))
}
