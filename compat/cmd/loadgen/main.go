// Command loadgen measures an API server as client-go users see it (see
// package loadgen): against an orkit control plane it starts in-process
// (the default; with orkit's scheduler for -mode schedule), or against
// any server given by -kubeconfig.
//
//	go run ./cmd/loadgen -mode creates -n 20000
//	go run ./cmd/loadgen -mode watch -watchers 100 -writes 500
//	go run ./cmd/loadgen -mode informer -n 10000
//	go run ./cmd/loadgen -mode schedule -nodes 5000 -n 10000
//	go run ./cmd/loadgen -kubeconfig K -mode relist     # a fresh pod informer on a running cluster
//
// Each run prints one line of figures, the machine's load average before
// and after, and the process's peak RSS (for the in-process server, that
// of the server and the generator together).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/orkit/orkit/compat/internal/cluster"
	"github.com/orkit/orkit/compat/loadgen"
)

type flags struct {
	mode, kubeconfig, dataDir, cpuProfile, memProfile, namespace string
	ownConnections, protobuf                                     bool
	n, workers, watchers, writes, nodes                          int
	interval, leaseInterval, timeout                             time.Duration
}

func main() {
	var f flags
	flag.StringVar(&f.mode, "mode", "creates", "creates, watch, informer, relist (a fresh informer on every pod of an existing cluster) or schedule")
	flag.StringVar(&f.kubeconfig, "kubeconfig", "", "server to load; empty starts an orkit control plane in-process")
	flag.StringVar(&f.dataDir, "data-dir", "", "in-process control plane's data directory; empty means a temporary one, removed at exit")
	flag.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile of the whole process (generator and in-process server) to this file")
	flag.StringVar(&f.memProfile, "memprofile", "", "write a heap profile to this file when the mode has ended (its clients and informers stopped; an in-process control plane still holds every object)")
	flag.StringVar(&f.namespace, "namespace", "loadgen", "namespace to write in (created when missing)")
	flag.BoolVar(&f.protobuf, "protobuf", false, "clients send and accept Kubernetes protobuf (application/vnd.kubernetes.protobuf, then JSON) as kube's own components do; default JSON")
	flag.BoolVar(&f.ownConnections, "own-connections", false, "creates: each writer gets its own client and TLS connection (as apiload's clients) instead of one shared clientset")
	flag.IntVar(&f.n, "n", 0, "objects: ConfigMaps (creates, informer) or pods (schedule; relist: the count the informer must hold, 0 for any); 0 means the mode's default (10,000)")
	flag.IntVar(&f.workers, "workers", 32, "concurrent writers")
	flag.IntVar(&f.watchers, "watchers", 100, "watchers (watch), each on its own TLS connection")
	flag.IntVar(&f.writes, "writes", 500, "updates of the watched ConfigMap (watch)")
	flag.DurationVar(&f.interval, "interval", 20*time.Millisecond, "time between the watched ConfigMap's updates (watch)")
	flag.IntVar(&f.nodes, "nodes", 5000, "Nodes the node agent registers (schedule)")
	flag.DurationVar(&f.leaseInterval, "lease-interval", 10*time.Second, "the node agent's Lease renewal interval (schedule)")
	flag.DurationVar(&f.timeout, "timeout", 10*time.Minute, "how long to wait for every pod to be bound and Running (schedule)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, f, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, f flags, out io.Writer) error {
	cfg, done, err := server(f)
	if err != nil {
		return err
	}
	defer done()
	if f.cpuProfile != "" {
		pf, err := os.Create(f.cpuProfile)
		if err != nil {
			return err
		}
		defer pf.Close()
		if err := pprof.StartCPUProfile(pf); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	base := loadgen.Config{REST: cfg, N: f.n, Workers: f.workers, Namespace: f.namespace, OwnConnections: f.ownConnections, Protobuf: f.protobuf}
	before := loadavg()
	var r *loadgen.Result
	switch f.mode {
	case "creates":
		r, err = loadgen.Creates(ctx, base)
	case "watch":
		r, err = loadgen.WatchLatency(ctx, loadgen.WatchConfig{Config: base, Watchers: f.watchers, Writes: f.writes, Interval: f.interval})
	case "informer":
		r, err = loadgen.InformerSync(ctx, base)
	case "relist":
		r, err = loadgen.PodRelist(ctx, base)
	case "schedule":
		r, err = loadgen.Schedule(ctx, loadgen.ScheduleConfig{Config: base, Nodes: f.nodes, LeaseInterval: f.leaseInterval, Timeout: f.timeout})
	default:
		return fmt.Errorf("unknown -mode %q (creates, watch, informer, relist, schedule)", f.mode)
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(out, r)
	if f.memProfile != "" {
		if err := writeHeapProfile(f.memProfile); err != nil {
			return err
		}
	}
	enc := "json"
	if f.protobuf {
		enc = "protobuf"
	}
	fmt.Fprintf(out, "bodies: %s; load before: %s; after: %s; peak RSS of this process: %s\n", enc, before, loadavg(), peakRSS())
	return nil
}

// writeHeapProfile writes the live heap, after a collection, to path.
func writeHeapProfile(path string) error {
	pf, err := os.Create(path)
	if err != nil {
		return err
	}
	runtime.GC()
	if err := pprof.WriteHeapProfile(pf); err != nil {
		pf.Close()
		return err
	}
	return pf.Close()
}

// server returns the REST config of the server to load and a function
// that stops it (if it was started here).
func server(f flags) (*rest.Config, func(), error) {
	if f.kubeconfig != "" {
		cfg, err := clientcmd.BuildConfigFromFlags("", f.kubeconfig)
		return cfg, func() {}, err
	}
	dir, cleanup := f.dataDir, func() {}
	if dir == "" {
		tmp, err := os.MkdirTemp("", "loadgen-")
		if err != nil {
			return nil, nil, err
		}
		dir, cleanup = tmp, func() { _ = os.RemoveAll(tmp) }
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	c, err := cluster.New(dir, cluster.Options{Scheduler: f.mode == "schedule", Logger: log})
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	return c.RESTConfig(), func() {
		if err := c.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "loadgen: stop the control plane:", err)
		}
		cleanup()
	}, nil
}

// loadavg is the first three fields of /proc/loadavg.
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

// peakRSS is VmHWM from /proc/self/status.
func peakRSS() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "?"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "?"
}
