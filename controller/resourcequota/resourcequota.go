package resourcequota

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"time"

	"github.com/orkit/orkit/admission"
	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/batch"
	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/informer"
)

// DefaultResyncPeriod is how often every quota is recomputed without an
// event, as kube-controller-manager's --resource-quota-sync-period.
const DefaultResyncPeriod = 5 * time.Minute

// Config configures the controller. The zero value is usable.
type Config struct {
	// Workers reconcile different quotas at once; default 2.
	Workers int
	// ResyncPeriod is how often a quota is recomputed without an event
	// (which catches resources the controller has no informer for);
	// default DefaultResyncPeriod.
	ResyncPeriod time.Duration
	// Logger; default the manager's (Manager.Logger).
	Logger *slog.Logger
	// Now is the clock (a deleted pod past its grace period stops
	// counting); default time.Now.
	Now func() time.Time
}

// Controller computes and writes the status of ResourceQuotas. It is a
// *controller.Controller (add it to the Manager it was made on, or Run it)
// reconciling with its own Reconcile. Make one with New; it is safe for
// concurrent use by the controller's workers and holds no state beyond its
// listers.
type Controller struct {
	*controller.Controller
	client  *client.Client
	quotas  informer.Lister[*core.ResourceQuota]
	listers map[meta.GroupResource]func(ns string) []meta.Object
	resync  time.Duration
	log     *slog.Logger
	now     func() time.Time
}

var _ controller.Reconciler = (*Controller)(nil)

// New makes the quota controller over m's shared informers of
// ResourceQuotas and of the resources quotas usually count (Pods,
// Services, Secrets, ConfigMaps, PersistentVolumeClaims,
// ReplicationControllers, ReplicaSets, Deployments, StatefulSets,
// DaemonSets, Jobs, CronJobs), writing through m's client; add it to m
// (m.Add) to run it while m leads, or Run it. It fails with
// ErrInvalidConfig without a manager, and when an informer cannot be made.
func New(m *controller.Manager, cfg Config) (*Controller, error) {
	if m == nil {
		return nil, fmt.Errorf("%w: no manager", ErrInvalidConfig)
	}
	if cfg.ResyncPeriod < 0 {
		return nil, fmt.Errorf("%w: negative ResyncPeriod %v", ErrInvalidConfig, cfg.ResyncPeriod)
	}
	cfg = withDefaults(m, cfg)
	qInf, err := controller.InformerFor[core.ResourceQuota](m, "")
	if err != nil {
		return nil, err
	}
	r := &Controller{client: m.Client(), quotas: qInf.Lister(), listers: map[meta.GroupResource]func(string) []meta.Object{},
		resync: cfg.ResyncPeriod, log: cfg.Logger, now: cfg.Now}
	c, err := controller.New("resourcequota", r, controller.Config{Workers: cfg.Workers, Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	controller.WatchObjects(c, quotaEvents(qInf))
	for _, add := range []func(*Controller, *controller.Manager, *controller.Controller) error{
		track[core.Pod], track[core.Service], track[core.Secret], track[core.ConfigMap],
		track[core.PersistentVolumeClaim], track[core.ReplicationController], track[core.ResourceQuota],
		track[apps.ReplicaSet], track[apps.Deployment], track[apps.StatefulSet], track[apps.DaemonSet],
		track[batch.Job], track[batch.CronJob],
	} {
		if err := add(r, m, c); err != nil {
			return nil, err
		}
	}
	r.Controller = c
	return r, nil
}

func withDefaults(m *controller.Manager, cfg Config) Config {
	if cfg.Workers <= 0 {
		cfg.Workers = 2
	}
	if cfg.ResyncPeriod == 0 {
		cfg.ResyncPeriod = DefaultResyncPeriod
	}
	if cfg.Logger == nil {
		cfg.Logger = m.Logger()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return cfg
}

// track lists T's objects from m's shared informer and makes the changes
// of one that the admission plugin does not charge (objectEvents)
// recompute the quotas of its namespace.
func track[T any, PT interface {
	*T
	meta.Object
}](r *Controller, m *controller.Manager, c *controller.Controller) error {
	inf, err := controller.InformerFor[T, PT](m, "")
	if err != nil {
		return err
	}
	gvr, err := resourceOf[T, PT](m.Client())
	if err != nil {
		return err
	}
	lister := inf.Lister()
	r.listers[gvr] = func(ns string) []meta.Object {
		items := lister.Namespace(ns).List(nil)
		out := make([]meta.Object, len(items))
		for i, it := range items {
			out[i] = it
		}
		return out
	}
	controller.Watch(c, objectEvents[PT](inf, gvr, r.now), func(obj PT) []controller.Request { return r.quotasOf(obj.GetObjectMeta().Namespace) })
	return nil
}

// resourceOf is the group and resource of T in the client's scheme.
func resourceOf[T any, PT interface {
	*T
	meta.Object
}](c *client.Client) (meta.GroupResource, error) {
	want := reflect.TypeFor[PT]()
	for _, t := range c.Scheme().Types() {
		if reflect.TypeOf(t.New()) == want {
			return meta.GroupResource{Group: t.Kind.Group, Resource: t.Resource}, nil
		}
	}
	return meta.GroupResource{}, fmt.Errorf("%w: %v is not in the client's scheme", ErrInvalidConfig, want)
}

// quotasOf maps a change in ns to the quotas of ns.
func (r *Controller) quotasOf(ns string) []controller.Request {
	var out []controller.Request
	for _, q := range r.quotas.Namespace(ns).List(nil) {
		out = append(out, controller.Request{Namespace: q.Namespace, Name: q.Name})
	}
	return out
}

// Reconcile computes one quota's status and writes it when it differs,
// then asks to be run again after the resync period.
func (r *Controller) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	q, err := r.quotas.Namespace(req.Namespace).Get(req.Name)
	if errors.Is(err, informer.ErrNotFound) {
		return controller.Result{}, nil
	}
	if err != nil {
		return controller.Result{}, err
	}
	st := core.ResourceQuotaStatus{
		Hard: q.Spec.Hard.DeepCopy(),
		Used: admission.QuotaUsed(q, r.objects(ctx, q.Namespace), r.now()),
	}
	if err := r.writeStatus(ctx, q, st); err != nil {
		return controller.Result{}, err
	}
	return controller.Result{RequeueAfter: r.resync}, nil
}

// objects lists a resource's objects in ns: from an informer when the
// controller has one, otherwise through the API (a count/ quota on any
// other resource the server serves).
func (r *Controller) objects(ctx context.Context, ns string) admission.QuotaObjects {
	return func(gr meta.GroupResource) ([]meta.Object, error) {
		if l, ok := r.listers[gr]; ok {
			return l(ns), nil
		}
		name := gr.Resource
		if gr.Group != "" {
			name += "." + gr.Group
		}
		d, err := r.client.DynamicResource(ctx, name, ns)
		if err != nil {
			return nil, err
		}
		list, err := d.List(ctx, client.ListOptions{})
		if err != nil {
			return nil, err
		}
		out := make([]meta.Object, len(list.Items))
		for i := range list.Items {
			out[i] = &list.Items[i]
		}
		return out, nil
	}
}

// writeStatus writes st as q's status when it differs, guarded by the
// cached resourceVersion: a conflict (the admission plugin charged
// meanwhile) is returned, so the quota is recomputed from a fresher cache.
func (r *Controller) writeStatus(ctx context.Context, q *core.ResourceQuota, st core.ResourceQuotaStatus) error {
	if q.Status.Hard.Equal(st.Hard) && q.Status.Used.Equal(st.Used) {
		return nil
	}
	upd := *q
	upd.Status = st
	_, err := client.For[core.ResourceQuota](r.client, q.Namespace).UpdateStatus(ctx, &upd)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("update status of resourcequota %s/%s: %w", q.Namespace, q.Name, err)
	}
	return nil
}
