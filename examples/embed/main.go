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
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/controller/standard"
	"github.com/orkit/orkit/controlplane"
	"github.com/orkit/orkit/kubelet"
	"github.com/orkit/orkit/scheduler"
	"github.com/orkit/orkit/scheduler/framework"
	"github.com/orkit/orkit/scheduler/plugins"
)

// PoolLabel is the label SamePool matches on pods and nodes.
const PoolLabel = "example.orkit.dev/pool"

// SamePool is a predicate: a pod labelled PoolLabel=<p> fits only nodes
// labelled PoolLabel=<p>; a pod without the label fits every node.
type SamePool struct{}

var _ framework.Predicate = SamePool{}

// Name returns "SamePool".
func (SamePool) Name() string { return "SamePool" }

// Filter implements framework.Predicate.
func (SamePool) Filter(_ context.Context, _ *framework.CycleState, pod *core.Pod, n *framework.NodeInfo) *framework.Status {
	want, ok := pod.Labels[PoolLabel]
	if !ok || n.Node().Labels[PoolLabel] == want {
		return nil
	}
	return framework.NewStatus(framework.Unschedulable, fmt.Sprintf("node(s) not in pool %q", want))
}

func main() {
	dataDir := flag.String("data-dir", "", "directory for the control plane's state (default: a temporary one, removed at exit)")
	listen := flag.String("listen", "127.0.0.1:0", "address of the API server")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *dataDir, *listen, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "embed:", err)
		os.Exit(1)
	}
}

// run starts the cluster, runs the scenario, stops everything and
// returns the scenario's result.
func run(ctx context.Context, dataDir, listen string, out io.Writer) error {
	if dataDir == "" {
		dir, err := os.MkdirTemp("", "orkit-embed-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		dataDir = dir
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	cp, err := startCluster(ctx, &wg, dataDir, listen, log)
	defer func() {
		cancel() // every component stops; then the control plane's store closes
		wg.Wait()
		if cp != nil {
			<-cp.Done()
		}
	}()
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "control plane at %s (admin kubeconfig %s)\n", cp.URL, cp.AdminKubeconfig)
	admin, err := clientFor(cp, "admin", "system:masters")
	if err != nil {
		return err
	}
	return scenario(ctx, admin, out)
}

// startCluster starts the control plane, then the scheduler, the
// controllers and the nodes, each with its own identity; their
// goroutines are counted in wg and stop when ctx ends.
func startCluster(ctx context.Context, wg *sync.WaitGroup, dataDir, listen string, log *slog.Logger) (*controlplane.ControlPlane, error) {
	cp, err := controlplane.Start(ctx, controlplane.Config{DataDir: dataDir, Listen: listen, Logger: log})
	if err != nil {
		return nil, err
	}
	goRun := func(name string, f func(context.Context) error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := f(ctx); err != nil && !errors.Is(err, context.Canceled) {
				log.Error("component stopped", "component", name, "err", err)
			}
		}()
	}
	sched, err := newScheduler(cp, log)
	if err != nil {
		return cp, err
	}
	goRun("scheduler", sched.Run)
	mgr, err := newControllerManager(cp, log)
	if err != nil {
		return cp, err
	}
	goRun("controller manager", mgr.Run)
	for _, pool := range []string{"blue", "green"} {
		nodes, err := newNodes(cp, pool, log)
		if err != nil {
			return cp, err
		}
		goRun(pool+" nodes", nodes.Run)
	}
	return cp, nil
}

// clientFor returns a client authenticated as user in groups with a
// certificate the control plane's CA signs.
func clientFor(cp *controlplane.ControlPlane, user string, groups ...string) (*client.Client, error) {
	cfg, err := cp.ClientConfig(user, groups...)
	if err != nil {
		return nil, err
	}
	return client.New(cfg)
}

// newScheduler is the default profile plus SamePool, as
// system:kube-scheduler.
func newScheduler(cp *controlplane.ControlPlane, log *slog.Logger) (*scheduler.Scheduler, error) {
	c, err := clientFor(cp, "system:kube-scheduler")
	if err != nil {
		return nil, err
	}
	profile := plugins.DefaultProfile("default-scheduler")
	profile.Predicates = append(profile.Predicates, SamePool{})
	return scheduler.New(scheduler.Config{Client: c, Profiles: []framework.Profile{profile}, Logger: log})
}

// newControllerManager runs the standard controllers, as
// system:kube-controller-manager.
func newControllerManager(cp *controlplane.ControlPlane, log *slog.Logger) (*controller.Manager, error) {
	c, err := clientFor(cp, "system:kube-controller-manager")
	if err != nil {
		return nil, err
	}
	m, err := controller.NewManager(controller.ManagerConfig{Client: c, Logger: log})
	if err != nil {
		return nil, err
	}
	// The standard set (ReplicaSet, Deployment, garbage collector, ...),
	// each with its zero Config.
	if _, err := standard.Add(m, standard.Config{}); err != nil {
		return nil, err
	}
	return m, nil
}

// newNodes returns a pool of one simulated node, <pool>-0, labelled
// PoolLabel=<pool>. Its kubelet runs as the admin here; a node of its
// own would use system:node:<name> in system:nodes.
func newNodes(cp *controlplane.ControlPlane, pool string, log *slog.Logger) (*kubelet.SimPool, error) {
	c, err := clientFor(cp, "admin", "system:masters")
	if err != nil {
		return nil, err
	}
	p := kubelet.NewSimPool(c, kubelet.SimConfig{Logger: log,
		Base: kubelet.Config{Labels: map[string]string{PoolLabel: pool}}})
	if _, err := p.Add(pool + "-0"); err != nil {
		return nil, err
	}
	return p, nil
}

// scenario creates a Deployment for the green pool and a pod for a pool
// that has no node, and waits until the Deployment's pods run on green-0
// and the other pod is reported unschedulable by SamePool.
func scenario(ctx context.Context, c *client.Client, out io.Writer) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	// Place work once both nodes have reported their capacity; before
	// that a node fits no pod.
	if err := waitFor(ctx, "nodes green-0 and blue-0 Ready", func() (bool, error) { return nodesReady(ctx, c, "green-0", "blue-0") }); err != nil {
		return err
	}
	two := int32(2)
	labels := map[string]string{"app": "web", PoolLabel: "green"}
	dep := &apps.Deployment{ObjectMeta: meta.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: apps.DeploymentSpec{Replicas: &two, Selector: &meta.LabelSelector{MatchLabels: labels},
			Template: core.PodTemplateSpec{ObjectMeta: meta.ObjectMeta{Labels: labels}, Spec: podSpec()}}}
	if _, err := client.For[apps.Deployment](c, "default").Create(ctx, dep); err != nil {
		return fmt.Errorf("create deployment: %w", err)
	}
	red := &core.Pod{ObjectMeta: meta.ObjectMeta{Name: "red", Namespace: "default", Labels: map[string]string{PoolLabel: "red"}},
		Spec: podSpec()}
	if _, err := client.For[core.Pod](c, "default").Create(ctx, red); err != nil {
		return fmt.Errorf("create pod: %w", err)
	}
	if err := waitFor(ctx, "web's pods running on green-0", func() (bool, error) { return webRunning(ctx, c, out) }); err != nil {
		return err
	}
	return waitFor(ctx, "pod red unschedulable", func() (bool, error) { return redUnschedulable(ctx, c, out) })
}

// nodesReady reports whether every named node is Ready.
func nodesReady(ctx context.Context, c *client.Client, names ...string) (bool, error) {
	for _, name := range names {
		n, err := client.For[core.Node](c, "").Get(ctx, name)
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		ready := false
		for _, cond := range n.Status.Conditions {
			ready = ready || cond.Type == core.NodeReady && cond.Status == meta.ConditionTrue
		}
		if !ready {
			return false, nil
		}
	}
	return true, nil
}

func podSpec() core.PodSpec {
	return core.PodSpec{Containers: []core.Container{{Name: "hello", Image: "orkit.local/hello:v1"}}}
}

// webRunning reports whether both web pods run on green-0, printing them
// when they do.
func webRunning(ctx context.Context, c *client.Client, out io.Writer) (bool, error) {
	pods, err := client.For[core.Pod](c, "default").List(ctx, client.ListOptions{LabelSelector: "app=web"})
	if err != nil {
		return false, err
	}
	running := 0
	for _, p := range pods.Items {
		if p.Spec.NodeName == "blue-0" {
			return false, fmt.Errorf("pod %s was scheduled to blue-0 despite SamePool", p.Name)
		}
		if p.Spec.NodeName == "green-0" && p.Status.Phase == core.PodRunning {
			running++
		}
	}
	if running < 2 {
		return false, nil
	}
	for _, p := range pods.Items {
		fmt.Fprintf(out, "pod %s scheduled to %s: %s\n", p.Name, p.Spec.NodeName, p.Status.Phase)
	}
	return true, nil
}

// redUnschedulable reports whether pod red carries SamePool's reason in
// its PodScheduled=False condition, printing it when it does.
func redUnschedulable(ctx context.Context, c *client.Client, out io.Writer) (bool, error) {
	p, err := client.For[core.Pod](c, "default").Get(ctx, "red")
	if err != nil {
		return false, err
	}
	if p.Spec.NodeName != "" {
		return false, fmt.Errorf("pod red was scheduled to %s despite SamePool", p.Spec.NodeName)
	}
	for _, cond := range p.Status.Conditions {
		if cond.Type == core.PodScheduled && cond.Status == meta.ConditionFalse && strings.Contains(cond.Message, `not in pool "red"`) {
			fmt.Fprintf(out, "pod red unschedulable: %s\n", cond.Message)
			return true, nil
		}
	}
	return false, nil
}

// waitFor polls done every 100ms until it reports true or fails, or ctx
// ends.
func waitFor(ctx context.Context, what string, done func() (bool, error)) error {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		ok, err := done()
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w", what, ctx.Err())
		case <-t.C:
		}
	}
}
