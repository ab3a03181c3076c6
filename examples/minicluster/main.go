// Command minicluster runs a whole orkit cluster in one process: the bbolt
// store and the API server, the scheduler, the controllers, one or more
// real nodes (kubelet + a private containerd it starts + a CNI bridge) and
// optionally simulated nodes.
//
//	go run ./examples/minicluster --data-dir /tmp/orkit
//	export KUBECONFIG=/tmp/orkit/admin.kubeconfig
//	kubectl create deployment web --image=orkit.local/hello:v1 --replicas=3
//
// Ctrl-C stops it cleanly; started again on the same data directory it
// resumes the cluster's state.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	var opts options
	flag.StringVar(&opts.DataDir, "data-dir", "", "directory for the cluster's state (store, certificates, kubeconfigs, containerd); required")
	flag.StringVar(&opts.Listen, "listen", "127.0.0.1:6443", "address of the API server")
	flag.IntVar(&opts.Nodes, "nodes", 1, "real nodes to run (0 for none)")
	flag.IntVar(&opts.SimNodes, "sim-nodes", 0, "simulated nodes to run, named sim-node-<i>")
	flag.BoolVar(&opts.SimNodeTaint, "sim-node-taint", false,
		"taint the simulated nodes orkit.io/simulated=true:NoSchedule, so only pods tolerating it run there (set by --demo, whose pods run on real nodes)")
	flag.StringVar(&opts.ResolvConf, "resolv-conf", "/etc/resolv.conf", "resolv.conf whose nameservers cluster DNS forwards names outside cluster.local to")
	demo := flag.Bool("demo", false, "run the demo scenario and exit with its result")
	opts.addAuthFlags(flag.CommandLine)
	flag.Parse()
	if opts.DataDir == "" {
		fmt.Fprintln(os.Stderr, "minicluster: --data-dir is required")
		flag.Usage()
		os.Exit(2)
	}
	if opts.Nodes < 0 || opts.Nodes > maxRealNodes {
		fmt.Fprintf(os.Stderr, "minicluster: --nodes must be 0 to %d (real nodes take 10.244.<i>.0/24 of %s)\n", maxRealNodes, realNodeCIDR)
		os.Exit(2)
	}
	if *demo {
		opts.SimNodeTaint = true
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, opts, *demo); err != nil {
		fmt.Fprintln(os.Stderr, "minicluster:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, opts options, demo bool) error {
	c, err := startCluster(ctx, opts)
	if err != nil {
		return err
	}
	defer c.Close()
	if demo {
		return runDemo(ctx, c)
	}
	fmt.Fprintf(c.opts.Out, "\n  export KUBECONFIG=%s\n  kubectl get nodes\n\nPress Ctrl-C to stop.\n", c.cp.AdminKubeconfig)
	<-ctx.Done()
	c.step("stopping")
	return nil
}
