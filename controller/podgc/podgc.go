package podgc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/informer"
)

// Defaults of Config.
const (
	DefaultTerminatedPodThreshold = 12500
	DefaultPeriod                 = 20 * time.Second
)

// Config configures the pod garbage collector; the zero value means
// Kubernetes' defaults.
type Config struct {
	// TerminatedPodThreshold is how many terminated (Succeeded or Failed)
	// pods may exist before the oldest are deleted; default 12,500.
	TerminatedPodThreshold int
	// Period is how often the collector looks; default 20 s.
	Period time.Duration
	// Logger; default the manager's (Manager.Logger).
	Logger *slog.Logger
}

// Controller is the pod garbage collector: it deletes pods nobody else
// will: terminated pods beyond a threshold (oldest first), pods bound to
// nodes that no longer exist, and unscheduled pods that are being deleted.
// It is a controller.Runnable (add it to the Manager it was made on, or
// Run it); it reads the manager's informers of Pods and Nodes and deletes
// through its client. Safe for concurrent use.
type Controller struct {
	opts   Config
	client *client.Client
	pods   informer.Lister[*core.Pod]
	nodes  informer.Lister[*core.Node]
	synced []func() bool
	log    *slog.Logger
}

var _ controller.Runnable = (*Controller)(nil)

// New makes the pod garbage collector over m's shared informers of Pods
// and Nodes, deleting through m's client; add it to m (m.Add) to run it
// while m leads, or Run it. It fails with ErrInvalidConfig without a
// manager or for a negative TerminatedPodThreshold, and when an informer
// cannot be made.
func New(m *controller.Manager, cfg Config) (*Controller, error) {
	if m == nil {
		return nil, fmt.Errorf("%w: no manager", ErrInvalidConfig)
	}
	if cfg.TerminatedPodThreshold < 0 {
		return nil, fmt.Errorf("%w: negative TerminatedPodThreshold", ErrInvalidConfig)
	}
	if cfg.TerminatedPodThreshold == 0 {
		cfg.TerminatedPodThreshold = DefaultTerminatedPodThreshold
	}
	if cfg.Period <= 0 {
		cfg.Period = DefaultPeriod
	}
	if cfg.Logger == nil {
		cfg.Logger = m.Logger()
	}
	podInf, err := controller.InformerFor[core.Pod](m, "")
	if err != nil {
		return nil, err
	}
	nodeInf, err := controller.InformerFor[core.Node](m, "")
	if err != nil {
		return nil, err
	}
	return &Controller{opts: cfg, client: m.Client(), pods: podInf.Lister(), nodes: nodeInf.Lister(),
		synced: []func() bool{podInf.HasSynced, nodeInf.HasSynced}, log: cfg.Logger.With("controller", "podgc")}, nil
}

// Run collects every Period until ctx ends, once the informers have
// synced. Failures are logged and tried again next period; it returns nil.
func (g *Controller) Run(ctx context.Context) error {
	if !informer.WaitForCacheSync(ctx, g.synced...) {
		return nil
	}
	t := time.NewTicker(g.opts.Period)
	defer t.Stop()
	for {
		if err := g.Collect(ctx); err != nil && ctx.Err() == nil {
			g.log.Warn("pod garbage collection incomplete", "err", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// Collect runs one collection over the cached pods.
func (g *Controller) Collect(ctx context.Context) error {
	pods := g.pods.List(nil)
	return errors.Join(g.collectOrphaned(ctx, pods), g.collectUnscheduledTerminating(ctx, pods), g.collectTerminated(ctx, pods))
}

// collectOrphaned force-deletes pods bound to a node that neither the
// cache nor a live GET knows.
func (g *Controller) collectOrphaned(ctx context.Context, pods []*core.Pod) error {
	gone := map[string]bool{}
	var errs []error
	for _, p := range pods {
		n := p.Spec.NodeName
		if n == "" {
			continue
		}
		if _, err := g.nodes.Get("", n); err == nil {
			continue
		}
		missing, ok := gone[n]
		if !ok {
			_, err := client.For[core.Node](g.client, "").Get(ctx, n)
			if err != nil && !apierrors.IsNotFound(err) {
				errs = append(errs, fmt.Errorf("check node %s: %w", n, err))
				continue
			}
			missing = apierrors.IsNotFound(err)
			gone[n] = missing
		}
		if missing {
			errs = append(errs, g.delete(ctx, p, true, "bound to a node that no longer exists"))
		}
	}
	return errors.Join(errs...)
}

// collectUnscheduledTerminating force-deletes pods with no node that are
// being deleted (nothing else will confirm their deletion).
func (g *Controller) collectUnscheduledTerminating(ctx context.Context, pods []*core.Pod) error {
	var errs []error
	for _, p := range pods {
		if p.Spec.NodeName == "" && p.DeletionTimestamp != nil {
			errs = append(errs, g.delete(ctx, p, true, "unscheduled and terminating"))
		}
	}
	return errors.Join(errs...)
}

// collectTerminated deletes the oldest terminated pods beyond the threshold.
func (g *Controller) collectTerminated(ctx context.Context, pods []*core.Pod) error {
	var done []*core.Pod
	for _, p := range pods {
		if core.IsPodTerminal(p) && p.DeletionTimestamp == nil {
			done = append(done, p)
		}
	}
	excess := len(done) - g.opts.TerminatedPodThreshold
	if excess <= 0 {
		return nil
	}
	slices.SortFunc(done, func(a, b *core.Pod) int {
		if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
			return c
		}
		return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name)
	})
	var errs []error
	for _, p := range done[:excess] {
		errs = append(errs, g.delete(ctx, p, false, "terminated pods above the threshold"))
	}
	return errors.Join(errs...)
}

// delete deletes p (still the object with p's UID), at once when force.
func (g *Controller) delete(ctx context.Context, p *core.Pod, force bool, why string) error {
	uid := p.UID
	opts := &meta.DeleteOptions{Preconditions: &meta.Preconditions{UID: &uid}}
	if force {
		zero := int64(0)
		opts.GracePeriodSeconds = &zero
	}
	err := client.For[core.Pod](g.client, p.Namespace).Delete(ctx, p.Name, opts)
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("delete pod %s/%s: %w", p.Namespace, p.Name, err)
	}
	g.log.Info("deleted pod", "pod", p.Namespace+"/"+p.Name, "reason", why)
	return nil
}
