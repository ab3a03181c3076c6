package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/resource"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controlplane"
	"github.com/orkit/orkit/scheduler"
	"github.com/orkit/orkit/scheduler/framework"
)

// options are the program's flags.
type options struct {
	DataDir string
	Listen  string
	// Nodes is the number of nodes in each zone: zone-a, zone-b, ...
	Nodes  []int
	Logger *slog.Logger
}

func main() {
	opts := options{Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))}
	flag.StringVar(&opts.DataDir, "data-dir", "", "directory for the control plane's state; required")
	flag.StringVar(&opts.Listen, "listen", "127.0.0.1:6443", "address of the API server")
	layout := flag.String("nodes", "3,2,1", "Node objects to register per zone (zone-a, zone-b, ...), comma-separated")
	flag.Parse()
	var err error
	if opts.Nodes, err = parseLayout(*layout); err != nil {
		fmt.Fprintln(os.Stderr, "custom-predicate:", err)
		os.Exit(2)
	}
	if opts.DataDir == "" {
		fmt.Fprintln(os.Stderr, "custom-predicate: --data-dir is required")
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, opts, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "custom-predicate:", err)
		os.Exit(1)
	}
}

// run starts everything, prints how to use it and waits for ctx to end.
func run(ctx context.Context, opts options, out io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c, err := start(ctx, opts)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, `Control plane on %s; the scheduler runs the default profile plus ZonePinned and ZoneSpread.
Only the scheduler runs (no controllers, no kubelet): pods are bound to nodes and stay Pending.

  export KUBECONFIG=%s
  kubectl get nodes -L %s
  for i in 0 1 2 3 4 5; do kubectl run web-$i --image=orkit.local/hello:v1 --labels=app=web; done
  kubectl get pods -o wide            # two per zone, however many nodes each zone has
  kubectl run pinned --image=orkit.local/hello:v1 --labels=%s=zone-b
  kubectl get pod pinned -o wide      # a node of zone-b

Press Ctrl-C to stop.
`, c.cp.URL, c.cp.AdminKubeconfig, ZoneLabel, PinLabel)
	select {
	case <-ctx.Done():
	case err := <-c.schedDone: // it stopped on its own: a failure
		return fmt.Errorf("scheduler stopped: %v", err)
	}
	cancel()
	return <-c.schedDone
}

// cluster is what start runs: a control plane, an admin client and the
// scheduler with this example's profile. Everything stops when start's
// ctx ends; schedDone then yields the scheduler's result.
type cluster struct {
	cp        *controlplane.ControlPlane
	admin     *client.Client
	sched     *scheduler.Scheduler
	schedDone chan error
}

// start starts the control plane, registers the nodes and starts the
// scheduler.
func start(ctx context.Context, opts options) (*cluster, error) {
	if len(opts.Nodes) > maxZones {
		return nil, fmt.Errorf("%w: %d zones, at most %d", errBadLayout, len(opts.Nodes), maxZones)
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	cp, err := controlplane.Start(ctx, controlplane.Config{DataDir: opts.DataDir, Listen: opts.Listen, Logger: opts.Logger})
	if err != nil {
		return nil, err
	}
	c := &cluster{cp: cp, schedDone: make(chan error, 1)}
	if c.admin, err = clientFor(cp, opts.DataDir, "admin", "system:masters"); err != nil {
		return nil, err
	}
	for z, n := range opts.Nodes {
		zone := fmt.Sprintf("zone-%c", 'a'+z)
		for i := range n {
			if err := registerNode(ctx, c.admin, fmt.Sprintf("node-%s-%d", zone, i), zone); err != nil {
				return nil, err
			}
		}
	}
	// The scheduler runs as system:kube-scheduler, whose bootstrap role
	// allows what it does; its one profile is the default plus ours.
	sc, err := clientFor(cp, opts.DataDir, "system:kube-scheduler")
	if err != nil {
		return nil, err
	}
	c.sched, err = scheduler.New(scheduler.Config{Client: sc, Logger: opts.Logger,
		Profiles: []framework.Profile{Profile("")}})
	if err != nil {
		return nil, err
	}
	go func() { c.schedDone <- c.sched.Run(ctx) }()
	return c, nil
}

// maxZones is how many zones --nodes may name (zone-a … zone-z).
const maxZones = 26

// errBadLayout is the error of a --nodes value that is not a list of
// node counts.
var errBadLayout = errors.New("bad node layout")

// parseLayout parses --nodes: comma-separated node counts per zone
// ("3,2,1"), each 0-100, at most 26 zones.
func parseLayout(s string) ([]int, error) {
	parts := strings.Split(s, ",")
	if len(parts) > maxZones {
		return nil, fmt.Errorf("%w: %d zones, at most %d", errBadLayout, len(parts), maxZones)
	}
	out := make([]int, 0, len(parts))
	for _, p := range parts {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n < 0 || n > 100 {
			return nil, fmt.Errorf("%w: %q is not a node count 0-100", errBadLayout, p)
		}
		out = append(out, n)
	}
	return out, nil
}

// clientFor writes a kubeconfig for user in groups into dir and returns a
// client that uses it.
func clientFor(cp *controlplane.ControlPlane, dir, user string, groups ...string) (*client.Client, error) {
	path := filepath.Join(dir, filepath.Base(user)+".kubeconfig")
	if err := cp.WriteKubeconfig(path, user, groups...); err != nil {
		return nil, err
	}
	cfg, err := client.ConfigFromKubeconfig(path, "")
	if err != nil {
		return nil, err
	}
	cfg.QPS = -1
	return client.New(cfg)
}

// registerNode creates a Ready Node in zone with room for 110 pods, as a
// kubelet would register itself. An existing node (a restart on the same
// data directory) is kept.
func registerNode(ctx context.Context, c *client.Client, name, zone string) error {
	nodes := client.For[core.Node](c, "")
	n, err := nodes.Create(ctx, &core.Node{ObjectMeta: meta.ObjectMeta{Name: name,
		Labels: map[string]string{"kubernetes.io/hostname": name, ZoneLabel: zone}}})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("register node %s: %w", name, err)
	}
	capacity := core.ResourceList{core.ResourceCPU: resource.MustParse("4"),
		core.ResourceMemory: resource.MustParse("16Gi"), core.ResourcePods: resource.MustParse("110")}
	n.Status = core.NodeStatus{Capacity: capacity, Allocatable: capacity,
		Conditions: []core.NodeCondition{{Type: core.NodeReady, Status: meta.ConditionTrue, Reason: "Registered",
			LastHeartbeatTime: meta.Now(), LastTransitionTime: meta.Now()}}}
	if _, err := nodes.UpdateStatus(ctx, n); err != nil {
		return fmt.Errorf("report node %s ready: %w", name, err)
	}
	return nil
}
