package podautoscaler

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/orkit/orkit/api/autoscaling"
	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/labels"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/resource"
	"github.com/orkit/orkit/api/validation"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/client/record"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/informer"
)

// Component is the source of the controller's Events.
const Component = "horizontal-pod-autoscaler"

// Defaults of Config, as kube-controller-manager's flags default them.
const (
	DefaultSyncPeriod             = 15 * time.Second
	DefaultDownscaleStabilization = 5 * time.Minute
)

// Config configures the controller. The zero value is usable.
type Config struct {
	// Metrics reads the pods' resource metrics; default APIMetrics over
	// the manager's client (the metrics.k8s.io API).
	Metrics MetricsClient
	// SyncPeriod is how often each autoscaler is evaluated; default
	// DefaultSyncPeriod.
	SyncPeriod time.Duration
	// Tolerance is how far the usage ratio may be from 1 without a
	// change; 0 means DefaultTolerance.
	Tolerance float64
	// DownscaleStabilization is the scale-down stabilization window of
	// autoscalers whose behavior sets none; default
	// DefaultDownscaleStabilization.
	DownscaleStabilization time.Duration
	// Workers evaluate different autoscalers at once; default 5.
	Workers int
	// Recorder records SuccessfulRescale and the failure Events; default
	// the manager's (Manager.Recorder).
	Recorder record.Recorder
	// Logger; default the manager's (Manager.Logger).
	Logger *slog.Logger
}

// Controller is the horizontal pod autoscaler: every SyncPeriod it reads
// each HorizontalPodAutoscaler's target scale and its pods' metrics, and
// sets the target's replicas. It is a *controller.Controller (add it to
// the Manager it was made on, or Run it) reconciling with its own
// Reconcile. Make one with New; safe for concurrent use by its workers.
type Controller struct {
	*controller.Controller
	client  *client.Client
	hpas    informer.Lister[*autoscaling.HorizontalPodAutoscaler]
	pods    informer.Lister[*core.Pod]
	metrics MetricsClient
	cfg     Config
	rec     record.Recorder
	hist    histories
	now     func() time.Time
}

var _ controller.Reconciler = (*Controller)(nil)

// New makes the autoscaler controller over m's shared informers of
// HorizontalPodAutoscalers and Pods, writing through m's client. It fails
// with ErrInvalidConfig without a manager or with a negative setting, and
// when an informer cannot be made.
func New(m *controller.Manager, cfg Config) (*Controller, error) {
	if m == nil || cfg.SyncPeriod < 0 || cfg.Tolerance < 0 || cfg.DownscaleStabilization < 0 {
		return nil, fmt.Errorf("%w: a manager and non-negative settings are required", ErrInvalidConfig)
	}
	if cfg.SyncPeriod == 0 {
		cfg.SyncPeriod = DefaultSyncPeriod
	}
	if cfg.Tolerance == 0 {
		cfg.Tolerance = DefaultTolerance
	}
	if cfg.DownscaleStabilization == 0 {
		cfg.DownscaleStabilization = DefaultDownscaleStabilization
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 5
	}
	if cfg.Logger == nil {
		cfg.Logger = m.Logger()
	}
	if cfg.Metrics == nil {
		cfg.Metrics = NewAPIMetrics(m.Client())
	}
	hpaInf, err := controller.InformerFor[autoscaling.HorizontalPodAutoscaler](m, "")
	if err != nil {
		return nil, err
	}
	podInf, err := controller.InformerFor[core.Pod](m, "")
	if err != nil {
		return nil, err
	}
	r := &Controller{client: m.Client(), hpas: hpaInf.Lister(), pods: podInf.Lister(), metrics: cfg.Metrics, cfg: cfg, now: time.Now}
	if r.rec = cfg.Recorder; r.rec == nil {
		if r.rec, err = m.Recorder(Component); err != nil {
			return nil, err
		}
	}
	c, err := controller.New("horizontalpodautoscaler", r, controller.Config{Workers: cfg.Workers, Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	controller.WatchObjects(c, hpaInf)
	r.Controller = c
	return r, nil
}

// Reconcile evaluates one autoscaler and asks to be called again after
// SyncPeriod.
func (r *Controller) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	hpa, err := r.hpas.Namespace(req.Namespace).Get(req.Name)
	if errors.Is(err, informer.ErrNotFound) {
		r.hist.forget(req.Namespace + "/" + req.Name)
		return controller.Result{}, nil
	}
	if err != nil {
		return controller.Result{}, err
	}
	return controller.Result{RequeueAfter: r.cfg.SyncPeriod}, r.sync(ctx, meta.DeepCopy(hpa))
}

// sync is one evaluation: read the scale, compute the count, rescale,
// write the status.
func (r *Controller) sync(ctx context.Context, hpa *autoscaling.HorizontalPodAutoscaler) error {
	old := meta.DeepCopy(hpa)
	now := r.now().Truncate(time.Second) // the resolution status times keep
	scale, target, err := r.getScale(ctx, hpa)
	if err != nil {
		r.rec.Eventf(hpa, core.EventTypeWarning, "FailedGetScale", "%v", err)
		setCondition(hpa, autoscaling.AbleToScale, meta.ConditionFalse, "FailedGetScale", "the HPA controller was unable to get the target's current scale: "+err.Error(), now)
		return r.writeStatus(ctx, old, hpa)
	}
	setCondition(hpa, autoscaling.AbleToScale, meta.ConditionTrue, "SucceededGetScale", "the HPA controller was able to get the target's current scale", now)
	current := scale.Spec.Replicas
	desired, reason, ok := r.desired(ctx, hpa, scale, current, now)
	if !ok {
		hpa.Status.CurrentReplicas = scale.Status.Replicas
		return r.writeStatus(ctx, old, hpa)
	}
	if desired != current {
		scale.Spec.Replicas = desired
		if _, err := target.UpdateScale(ctx, hpa.Spec.ScaleTargetRef.Name, scale); err != nil {
			r.rec.Eventf(hpa, core.EventTypeWarning, "FailedRescale", "New size: %d; reason: %s; error: %v", desired, reason, err)
			setCondition(hpa, autoscaling.AbleToScale, meta.ConditionFalse, "FailedUpdateScale", "the HPA controller was unable to update the target scale: "+err.Error(), now)
			return r.writeStatus(ctx, old, hpa)
		}
		r.hist.get(key(hpa)).record(current, desired, now)
		setCondition(hpa, autoscaling.AbleToScale, meta.ConditionTrue, "SucceededRescale", fmt.Sprintf("the HPA controller was able to update the target scale to %d", desired), now)
		r.rec.Eventf(hpa, core.EventTypeNormal, "SuccessfulRescale", "New size: %d; reason: %s", desired, reason)
		t := meta.NewTime(now)
		hpa.Status.LastScaleTime = &t
	}
	hpa.Status.CurrentReplicas, hpa.Status.DesiredReplicas = scale.Status.Replicas, desired
	return r.writeStatus(ctx, old, hpa)
}

func key(hpa *autoscaling.HorizontalPodAutoscaler) string { return hpa.Namespace + "/" + hpa.Name }

// desired returns the replica count to set and why; false when the
// metrics could not be computed (the conditions then say why).
func (r *Controller) desired(ctx context.Context, hpa *autoscaling.HorizontalPodAutoscaler, scale *autoscaling.Scale, current int32, now time.Time) (int32, string, bool) {
	minR := int32(1)
	if hpa.Spec.MinReplicas != nil {
		minR = *hpa.Spec.MinReplicas
	}
	switch {
	case current == 0 && minR != 0:
		setCondition(hpa, autoscaling.ScalingActive, meta.ConditionFalse, "ScalingDisabled", "scaling is disabled since the replica count of the target is zero", now)
		return 0, "", true
	case current > hpa.Spec.MaxReplicas:
		return hpa.Spec.MaxReplicas, "Current number of replicas above Spec.MaxReplicas", true
	case current < minR:
		return minR, "Current number of replicas below Spec.MinReplicas", true
	}
	proposal, metricName, statuses, err := r.fromMetrics(ctx, hpa, scale, current)
	if err != nil {
		r.rec.Eventf(hpa, core.EventTypeWarning, "FailedComputeMetricsReplicas", "invalid metrics (%d invalid out of %d), first error is: %v", 1, len(hpa.Spec.Metrics), err)
		setCondition(hpa, autoscaling.ScalingActive, meta.ConditionFalse, "FailedGetResourceMetric", "the HPA was unable to compute the replica count: "+err.Error(), now)
		return 0, "", false
	}
	hpa.Status.CurrentMetrics = statuses
	setCondition(hpa, autoscaling.ScalingActive, meta.ConditionTrue, "ValidMetricFound", "the HPA was able to successfully calculate a replica count from "+metricName, now)
	rules := ResolveRules(hpa.Spec.Behavior, r.cfg.DownscaleStabilization)
	h := r.hist.get(key(hpa))
	stable, why, msg := h.stabilize(proposal, current, rules, now)
	if stable == proposal {
		why, msg = "ReadyForNewScale", "recommended size matches current size"
	}
	setCondition(hpa, autoscaling.AbleToScale, meta.ConditionTrue, why, msg, now)
	out, why, msg := h.limit(stable, current, minR, hpa.Spec.MaxReplicas, rules, now)
	limited := meta.ConditionFalse
	if out != stable {
		limited = meta.ConditionTrue
	}
	setCondition(hpa, autoscaling.ScalingLimited, limited, why, msg, now)
	reason := "All metrics below target"
	if out > current {
		reason = metricName + " above target"
	}
	return out, reason, true
}

// fromMetrics returns the largest count the metrics ask for, the name of
// the metric that asked for it, and the metrics' current values.
func (r *Controller) fromMetrics(ctx context.Context, hpa *autoscaling.HorizontalPodAutoscaler, scale *autoscaling.Scale, current int32) (int32, string, []autoscaling.MetricStatus, error) {
	sel, err := labels.Parse(scale.Status.Selector)
	if err != nil || scale.Status.Selector == "" {
		return 0, "", nil, fmt.Errorf("the target's scale has no usable selector %q", scale.Status.Selector)
	}
	pods := r.pods.Namespace(hpa.Namespace).List(sel)
	metricsOf, err := r.metrics.PodMetrics(ctx, hpa.Namespace, sel)
	if err != nil {
		return 0, "", nil, fmt.Errorf("failed to get pod metrics: %w", err)
	}
	var (
		best     int32
		bestName string
		statuses []autoscaling.MetricStatus
	)
	for i, m := range hpa.Spec.Metrics {
		t, name, err := resourceTarget(m)
		if err != nil {
			return 0, "", nil, fmt.Errorf("metric %d: %w", i, err)
		}
		rec, err := ReplicasForResource(current, t, pods, metricsOf, r.cfg.Tolerance)
		if err != nil {
			return 0, "", nil, fmt.Errorf("failed to get %s utilization: %w", t.Resource, err)
		}
		statuses = append(statuses, metricStatus(m, t, rec))
		if i == 0 || rec.Replicas > best {
			best, bestName = rec.Replicas, name
		}
	}
	return best, bestName, statuses, nil
}

// resourceTarget reads a Resource or ContainerResource metric.
func resourceTarget(m autoscaling.MetricSpec) (ResourceTarget, string, error) {
	var (
		t   ResourceTarget
		tgt autoscaling.MetricTarget
	)
	switch {
	case m.Resource != nil:
		t.Resource, tgt = m.Resource.Name, m.Resource.Target
	case m.ContainerResource != nil:
		t.Resource, t.Container, tgt = m.ContainerResource.Name, m.ContainerResource.Container, m.ContainerResource.Target
	default:
		return t, "", fmt.Errorf("%w: %s", ErrUnsupportedMetric, m.Type)
	}
	if tgt.AverageUtilization != nil {
		t.Utilization = *tgt.AverageUtilization
		return t, fmt.Sprintf("%s resource utilization (percentage of request)", t.Resource), nil
	}
	if tgt.AverageValue == nil {
		return t, "", fmt.Errorf("%w: %s target without averageUtilization or averageValue", ErrUnsupportedMetric, t.Resource)
	}
	t.AverageValue = quantityValue(tgt.AverageValue, t.Resource)
	if t.AverageValue <= 0 {
		return t, "", fmt.Errorf("%w: %s target averageValue must be positive", ErrUnsupportedMetric, t.Resource)
	}
	return t, fmt.Sprintf("%s resource", t.Resource), nil
}

// metricStatus is the current value of metric m.
func metricStatus(m autoscaling.MetricSpec, t ResourceTarget, rec Recommendation) autoscaling.MetricStatus {
	cur := autoscaling.MetricValueStatus{AverageValue: quantityOf(rec.AverageValue, t.Resource)}
	if t.Utilization > 0 {
		u := rec.Utilization
		cur.AverageUtilization = &u
	}
	if m.ContainerResource != nil {
		return autoscaling.MetricStatus{Type: autoscaling.ContainerResourceMetricSourceType, ContainerResource: &autoscaling.ContainerResourceMetricStatus{
			Name: t.Resource, Container: t.Container, Current: cur}}
	}
	return autoscaling.MetricStatus{Type: autoscaling.ResourceMetricSourceType, Resource: &autoscaling.ResourceMetricStatus{Name: t.Resource, Current: cur}}
}

// getScale reads the scale subresource of the autoscaler's target, and
// returns the resource to write it back through.
func (r *Controller) getScale(ctx context.Context, hpa *autoscaling.HorizontalPodAutoscaler) (*autoscaling.Scale, *client.Dynamic, error) {
	ref := hpa.Spec.ScaleTargetRef
	gv := meta.ParseGroupVersion(ref.APIVersion)
	if ref.APIVersion == "" {
		gv = wellKnown[ref.Kind]
	}
	m, err := r.client.RESTMapper().ForKind(ctx, gv.WithKind(ref.Kind))
	if err != nil {
		return nil, nil, fmt.Errorf("no scalable resource for %s %q: %w", ref.Kind, ref.APIVersion, err)
	}
	d := client.DynamicFor(r.client, m, hpa.Namespace)
	s, err := d.Scale(ctx, ref.Name)
	if err != nil {
		return nil, nil, fmt.Errorf("get scale of %s/%s: %w", strings.ToLower(ref.Kind), ref.Name, err)
	}
	return s, d, nil
}

// wellKnown are the group versions of the scalable built-in kinds, for
// references without an apiVersion.
var wellKnown = map[string]meta.GroupVersion{
	"Deployment": {Group: "apps", Version: "v1"}, "ReplicaSet": {Group: "apps", Version: "v1"},
	"StatefulSet": {Group: "apps", Version: "v1"}, "ReplicationController": {Version: "v1"},
}

// setCondition sets a condition, keeping its transition time when its
// status does not change.
func setCondition(hpa *autoscaling.HorizontalPodAutoscaler, t autoscaling.HorizontalPodAutoscalerConditionType, status meta.ConditionStatus, reason, msg string, now time.Time) {
	for i := range hpa.Status.Conditions {
		c := &hpa.Status.Conditions[i]
		if c.Type != t {
			continue
		}
		if c.Status != status {
			c.LastTransitionTime = meta.NewTime(now)
		}
		c.Status, c.Reason, c.Message = status, reason, msg
		return
	}
	hpa.Status.Conditions = append(hpa.Status.Conditions, autoscaling.HorizontalPodAutoscalerCondition{
		Type: t, Status: status, Reason: reason, Message: msg, LastTransitionTime: meta.NewTime(now)})
}

// writeStatus writes hpa's status when it differs from old's.
func (r *Controller) writeStatus(ctx context.Context, old, hpa *autoscaling.HorizontalPodAutoscaler) error {
	gen := hpa.Generation
	hpa.Status.ObservedGeneration = &gen
	if validation.SemanticEqual(old.Status, hpa.Status) {
		return nil
	}
	_, err := client.For[autoscaling.HorizontalPodAutoscaler](r.client, hpa.Namespace).UpdateStatus(ctx, hpa)
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("update status of autoscaler %s: %w", key(hpa), err)
	}
	return nil
}

// quantityOf is v (in the controller's units for res) as a Quantity.
func quantityOf(v int64, res core.ResourceName) *resource.Quantity {
	if res == core.ResourceCPU {
		return resource.NewMilliQuantity(v, resource.DecimalSI)
	}
	return resource.NewQuantity(v, resource.BinarySI)
}
