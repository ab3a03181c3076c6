package storageversionmigration

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	svm "github.com/orkit/orkit/api/storagemigration"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/informer"
)

// Reasons written in the conditions, as kube's controller writes them.
const (
	ReasonRunning   = "MigrationRunning"
	ReasonSucceeded = "StorageVersionMigrationSucceeded"
	ReasonFailed    = "StorageVersionMigrationFailed"
)

// Config configures the controller. The zero value is usable.
type Config struct {
	// Workers; 0 means 1.
	Workers int
	// Logger; nil means the manager's (Manager.Logger).
	Logger *slog.Logger
	// DiscoveryGrace is how long after its creation a migration of a
	// resource discovery does not list is retried before it fails; 0
	// means one minute, as kube's.
	DiscoveryGrace time.Duration
	// Now returns the current time; nil means time.Now (a test seam).
	Now func() time.Time
}

// Controller migrates the objects of StorageVersionMigrations. It is a
// *controller.Controller (add it to the Manager it was made on, or Run
// it) reconciling with its own Reconcile. Make one with New; safe for
// concurrent use.
type Controller struct {
	*controller.Controller
	client     *client.Client
	migrations informer.Lister[*svm.StorageVersionMigration]
	grace      time.Duration
	now        func() time.Time
}

var _ controller.Reconciler = (*Controller)(nil)

// New makes the controller over m's shared StorageVersionMigration
// informer, writing through m's client. It fails with ErrInvalidConfig
// without a manager, and when the informer cannot be made.
func New(m *controller.Manager, cfg Config) (*Controller, error) {
	if m == nil {
		return nil, fmt.Errorf("%w: no manager", ErrInvalidConfig)
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 1
	}
	if cfg.Logger == nil {
		cfg.Logger = m.Logger()
	}
	if cfg.DiscoveryGrace <= 0 {
		cfg.DiscoveryGrace = time.Minute
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	inf, err := controller.InformerFor[svm.StorageVersionMigration](m, "")
	if err != nil {
		return nil, err
	}
	r := &Controller{client: m.Client(), migrations: inf.Lister(), grace: cfg.DiscoveryGrace, now: cfg.Now}
	c, err := controller.New("storage-version-migrator", r, controller.Config{Workers: cfg.Workers, Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	controller.WatchObjects(c, inf)
	r.Controller = c
	return r, nil
}

// Reconcile takes migration req.Name one step further (see the package
// documentation).
func (r *Controller) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	cur, err := r.migrations.Get("", req.Name)
	if errors.Is(err, informer.ErrNotFound) {
		return controller.Result{}, nil
	}
	if err != nil {
		return controller.Result{}, err
	}
	if cur.Status.IsTrue(svm.MigrationSucceeded) || cur.Status.IsTrue(svm.MigrationFailed) {
		return controller.Result{}, nil
	}
	m := meta.DeepCopy(cur)
	gr := m.Spec.Resource
	mapping, err := r.client.RESTMapper().ForGroupVersionResource(ctx, meta.GroupVersionResource{Group: gr.Group, Resource: gr.Resource})
	if errors.Is(err, client.ErrNoMatch) {
		if left := m.CreationTimestamp.Add(r.grace).Sub(r.now()); left > 0 {
			return controller.Result{RequeueAfter: min(left, 10*time.Second)}, nil
		}
		return controller.Result{}, r.fail(ctx, m, "resource does not exist in discovery")
	}
	if err != nil {
		return controller.Result{}, err
	}
	if !hasVerbs(mapping.Verbs, "list", "patch") {
		return controller.Result{}, r.fail(ctx, m, fmt.Sprintf("resource %q does not support the list and patch verbs", mapping.Resource.String()))
	}
	if m.Status.ResourceVersion == "" {
		return controller.Result{}, r.start(ctx, m, mapping)
	}
	return controller.Result{}, r.migrate(ctx, m, mapping)
}

// start records the resource's current list resourceVersion and sets
// Running.
func (r *Controller) start(ctx context.Context, m *svm.StorageVersionMigration, mapping client.Mapping) error {
	list, err := client.DynamicFor(r.client, mapping, "").List(ctx, client.ListOptions{Limit: 1})
	if err != nil {
		return fmt.Errorf("latest resourceVersion of %s: %w", mapping.Resource, err)
	}
	m.Status.ResourceVersion = list.ResourceVersion
	m.Status.SetCondition(r.condition(svm.MigrationRunning, ReasonRunning, "The migration is running"))
	return r.writeStatus(ctx, m)
}

// migrate rewrites every object at or below the recorded resourceVersion
// and sets Succeeded, or Failed on an error that retrying cannot cure.
func (r *Controller) migrate(ctx context.Context, m *svm.StorageVersionMigration, mapping client.Mapping) error {
	upTo, err := strconv.ParseUint(m.Status.ResourceVersion, 10, 64)
	if err != nil {
		return r.fail(ctx, m, fmt.Sprintf("status.resourceVersion %q is not a resourceVersion of this server", m.Status.ResourceVersion))
	}
	res := client.DynamicFor(r.client, mapping, "")
	var objs []client.Unstructured
	for cont := ""; ; {
		page, err := res.List(ctx, client.ListOptions{Limit: 500, Continue: cont})
		if err != nil {
			return fmt.Errorf("list %s: %w", mapping.Resource, err)
		}
		objs = append(objs, page.Items...)
		if cont = page.Continue; cont == "" {
			break
		}
	}
	total, migrated := len(objs), 0
	for i := range objs {
		om := objs[i].GetObjectMeta()
		if rv, err := strconv.ParseUint(om.ResourceVersion, 10, 64); err != nil || rv > upTo {
			migrated++ // written after the migration started: already current
			continue
		}
		err := r.rewrite(ctx, mapping, om)
		switch {
		case err == nil, apierrors.IsConflict(err), apierrors.IsNotFound(err):
			migrated++
		case retriable(err):
			return err
		default:
			msg := fmt.Sprintf("%d/%d not yet migrated. migration encountered unhandled error: %v", total-migrated, total, err)
			return r.fail(ctx, m, msg)
		}
	}
	msg := "The migration is running"
	if total > 0 {
		msg += fmt.Sprintf(", %d objects verified migrated", total)
	}
	m.Status.SetCondition(r.condition(svm.MigrationRunning, ReasonRunning, msg))
	m.Status.SetCondition(r.condition(svm.MigrationSucceeded, ReasonSucceeded, "Migration completed"))
	return r.writeStatus(ctx, m)
}

// rewrite sends the object an empty merge patch that carries its
// resourceVersion, so the server stores it again unless it changed since.
func (r *Controller) rewrite(ctx context.Context, mapping client.Mapping, om *meta.ObjectMeta) error {
	body, err := json.Marshal(map[string]any{
		"apiVersion": mapping.Kind.GroupVersion().String(), "kind": mapping.Kind.Kind,
		"metadata": map[string]any{"resourceVersion": om.ResourceVersion},
	})
	if err != nil {
		return err
	}
	_, err = client.DynamicFor(r.client, mapping, om.Namespace).Patch(ctx, om.Name, client.MergePatchType, body)
	return err
}

// fail sets Failed with msg.
func (r *Controller) fail(ctx context.Context, m *svm.StorageVersionMigration, msg string) error {
	m.Status.SetCondition(r.condition(svm.MigrationFailed, ReasonFailed, "migration encountered unhandled error: "+msg))
	return r.writeStatus(ctx, m)
}

func (r *Controller) condition(t svm.MigrationConditionType, reason, msg string) meta.Condition {
	return meta.Condition{Type: string(t), Status: meta.ConditionTrue, LastTransitionTime: meta.NewTime(r.now().Truncate(time.Second)), Reason: reason, Message: msg}
}

func (r *Controller) writeStatus(ctx context.Context, m *svm.StorageVersionMigration) error {
	_, err := client.For[svm.StorageVersionMigration](r.client, "").UpdateStatus(ctx, m)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("update status of StorageVersionMigration %s: %w", m.Name, err)
	}
	return nil
}

// retriable reports whether err is worth retrying: throttling, a server
// error or a timeout, or no answer at all.
func retriable(err error) bool {
	st := apierrors.FromError(err)
	if st == nil {
		return true // transport error
	}
	return st.Code == 429 || st.Code >= 500
}

func hasVerbs(have []string, want ...string) bool {
	for _, w := range want {
		found := false
		for _, h := range have {
			found = found || h == w
		}
		if !found {
			return false
		}
	}
	return true
}
