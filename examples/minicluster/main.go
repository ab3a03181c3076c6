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
// resumes the cluster's state. A second minicluster on a data directory in
// use is refused (the store's file lock), naming the process holding it.
// The API server compacts the store every 5 minutes, so the file stops
// growing under steady churn; with the cluster stopped,
//
//	go run ./examples/minicluster --data-dir /tmp/orkit --defragment
//
// gives the space compaction freed back to the file system.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/orkit/orkit/images"
	"github.com/orkit/orkit/store/bbolt"
)

func main() {
	var opts options
	flag.StringVar(&opts.DataDir, "data-dir", "", "directory for the cluster's state (store, certificates, kubeconfigs, containerd); required")
	flag.StringVar(&opts.Listen, "listen", "127.0.0.1:6443", "address of the API server")
	flag.IntVar(&opts.Nodes, "nodes", 1, "real nodes to run (0 for none)")
	flag.IntVar(&opts.SimNodes, "sim-nodes", 0, "simulated nodes to run, named sim-node-<i>")
	flag.BoolVar(&opts.SimNodeTaint, "sim-node-taint", false,
		"taint the simulated nodes orkit.io/simulated=true:NoSchedule, so only pods tolerating it run there (set by --demo, whose pods run on real nodes)")
	flag.Func("allow-privileged", "true|false: whether real nodes run privileged containers (default true, as kube's kubelet)", func(v string) error {
		allow, err := strconv.ParseBool(v)
		opts.DenyPrivileged = !allow
		return err
	})
	flag.StringVar(&opts.ResolvConf, "resolv-conf", "/etc/resolv.conf", "resolv.conf whose nameservers cluster DNS forwards names outside cluster.local to")
	flag.DurationVar(&opts.HPASyncPeriod, "hpa-sync-period", 15*time.Second, "how often HorizontalPodAutoscalers are evaluated")
	flag.DurationVar(&opts.MetricResolution, "metric-resolution", 15*time.Second, "how often the metrics server scrapes the nodes")
	flag.Func("image", "REF=PACKAGE: also build the Go main package PACKAGE into image REF and import it into the real nodes (repeatable)", func(v string) error {
		spec, err := parseImageFlag(v)
		opts.Images = append(opts.Images, spec)
		return err
	})
	flag.Func("registry-mirror", "REGISTRY=HOST[:PORT]: real nodes pull REGISTRY's images from HOST only (plain HTTP on loopback), e.g. registry.k8s.io=127.0.0.1:5000 (repeatable)", func(v string) error {
		reg, mirror, ok := strings.Cut(v, "=")
		if !ok || reg == "" || mirror == "" || strings.ContainsAny(mirror, "/ ") {
			return fmt.Errorf("want REGISTRY=HOST[:PORT], got %q", v)
		}
		if opts.RegistryMirrors == nil {
			opts.RegistryMirrors = map[string]string{}
		}
		opts.RegistryMirrors[reg] = mirror
		return nil
	})
	demo := flag.Bool("demo", false, "run the demo scenario and exit with its result")
	defrag := flag.Bool("defragment", false, "give the space compaction freed in DATA/store.db back to the file system and exit (the cluster must be stopped)")
	opts.addAuthFlags(flag.CommandLine)
	opts.addServerFlags(flag.CommandLine)
	opts.addAgentFlags(flag.CommandLine)
	flag.Parse()
	if opts.Server.Role != roleAll && !flagSet("nodes") {
		opts.Nodes = 0 // a server runs no nodes; agents join it; an agent is its own node
	}
	if opts.DataDir == "" {
		fmt.Fprintln(os.Stderr, "minicluster: --data-dir is required")
		flag.Usage()
		os.Exit(2)
	}
	if *defrag {
		if err := defragment(opts.DataDir, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "minicluster:", err)
			os.Exit(1)
		}
		return
	}
	if opts.Nodes < 0 || opts.Nodes > maxRealNodes {
		fmt.Fprintf(os.Stderr, "minicluster: --nodes must be 0 to %d (real nodes take 10.244.<i>.0/24 of %s)\n", maxRealNodes, realNodeCIDR)
		os.Exit(2)
	}
	if *demo {
		if opts.Server.Role != roleAll {
			fmt.Fprintln(os.Stderr, "minicluster: --demo runs the whole cluster in one process: no --role")
			os.Exit(2)
		}
		opts.SimNodeTaint = true
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, opts, *demo); err != nil {
		fmt.Fprintln(os.Stderr, "minicluster:", err)
		os.Exit(1)
	}
}

// defragment runs bbolt.Defragment on the data directory's store.
func defragment(dataDir string, out io.Writer) error {
	path := filepath.Join(dataDir, "store.db")
	res, err := bbolt.Defragment(path, &bbolt.Config{LockTimeout: time.Second})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%s defragmented: %.1f MB -> %.1f MB\n", path, float64(res.Before)/(1<<20), float64(res.After)/(1<<20))
	return nil
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
	if c.cp != nil {
		fmt.Fprintf(c.opts.Out, "\n  export KUBECONFIG=%s\n  kubectl get nodes\n\nPress Ctrl-C to stop.\n", c.cp.AdminKubeconfig)
	}
	select {
	case <-ctx.Done():
		c.step("stopping")
		return nil
	case err := <-c.failed:
		c.step("stopping: %v", err)
		return err
	}
}

// flagSet reports whether the flag name was given on the command line.
func flagSet(name string) bool {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// parseImageFlag reads --image REF=PACKAGE.
func parseImageFlag(v string) (images.Spec, error) {
	ref, pkg, ok := strings.Cut(v, "=")
	if !ok || ref == "" || pkg == "" {
		return images.Spec{}, fmt.Errorf("want REF=PACKAGE (orkit.local/tool:v1=example.com/cmd/tool), got %q", v)
	}
	return images.Spec{Ref: ref, Package: pkg}, nil
}
