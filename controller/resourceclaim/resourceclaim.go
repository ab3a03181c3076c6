package resourceclaim

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/dra"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/informer"
)

// Names Kubernetes gives the claims it generates.
const (
	// PodClaimNameAnnotation on a generated claim is the name of the
	// pod's spec.resourceClaims entry it was made for.
	PodClaimNameAnnotation = "resource.kubernetes.io/pod-claim-name"
	// DeleteProtectionFinalizer is put on a claim by its allocator; the
	// controller removes it with the allocation once nobody reserves the
	// claim.
	DeleteProtectionFinalizer = "resource.kubernetes.io/delete-protection"
	// maxBaseNameLength bounds "<pod>-<claim>" in a generated name.
	maxBaseNameLength = 57
)

// Config configures the controller; the zero value means defaults.
type Config struct {
	// Workers; default 1.
	Workers int
	// Logger; default the manager's (Manager.Logger).
	Logger *slog.Logger
}

// Controller is the resource claim controller (see the package doc). It
// is a *controller.Controller (add it to the Manager it was made on, or
// Run it) reconciling pods with its own Reconcile. Make one with New;
// safe for concurrent use.
type Controller struct {
	*controller.Controller
	client    *client.Client
	pods      informer.Lister[*core.Pod]
	claims    informer.Lister[*dra.ResourceClaim]
	templates informer.Lister[*dra.ResourceClaimTemplate]
}

var _ controller.Reconciler = (*Controller)(nil)

// New makes the controller over m's shared informers of Pods,
// ResourceClaims and ResourceClaimTemplates, writing through m's client.
// It fails with ErrInvalidConfig without a manager, and when an informer
// cannot be made.
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
	podInf, err := controller.InformerFor[core.Pod](m, "")
	if err != nil {
		return nil, err
	}
	claimInf, err := controller.InformerFor[dra.ResourceClaim](m, "")
	if err != nil {
		return nil, err
	}
	tplInf, err := controller.InformerFor[dra.ResourceClaimTemplate](m, "")
	if err != nil {
		return nil, err
	}
	r := &Controller{client: m.Client(), pods: podInf.Lister(), claims: claimInf.Lister(), templates: tplInf.Lister()}
	c, err := controller.New("resourceclaim", r, controller.Config{Workers: cfg.Workers, Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	controller.WatchObjects(c, podInf)
	controller.Watch(c, claimInf, claimPods)
	controller.Watch(c, tplInf, r.templatePods)
	r.Controller = c
	return r, nil
}

// claimPods maps a claim to the pods that may need work: its owning pod
// and the pods it is reserved for.
func claimPods(c *dra.ResourceClaim) []controller.Request {
	var out []controller.Request
	if name, _, ok := owningPod(c); ok {
		out = append(out, controller.Request{Namespace: c.Namespace, Name: name})
	}
	for _, r := range c.Status.ReservedFor {
		if isPodRef(r) {
			out = append(out, controller.Request{Namespace: c.Namespace, Name: r.Name})
		}
	}
	return out
}

// templatePods maps a template to the pods of its namespace that name it
// and have no claim yet (a template created after its pod).
func (r *Controller) templatePods(t *dra.ResourceClaimTemplate) []controller.Request {
	var out []controller.Request
	for _, p := range r.pods.Namespace(t.Namespace).List(nil) {
		claims, err := dra.PodClaims(p)
		if err != nil {
			continue
		}
		for _, c := range claims {
			if c.ResourceClaimTemplateName != nil && *c.ResourceClaimTemplateName == t.Name {
				out = append(out, controller.Request{Namespace: p.Namespace, Name: p.Name})
				break
			}
		}
	}
	return out
}

// Reconcile makes the missing claims of pod req and records them in its
// status, then tidies the claims of its namespace that name the pod.
func (r *Controller) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	pod, err := r.pods.Get(req.Namespace, req.Name)
	switch {
	case errors.Is(err, informer.ErrNotFound):
		pod = nil
	case err != nil:
		return controller.Result{}, err
	}
	if pod != nil && pod.DeletionTimestamp == nil && !podDone(pod) {
		if err := r.ensureClaims(ctx, pod); err != nil {
			return controller.Result{}, err
		}
	}
	return controller.Result{}, r.tidyClaims(ctx, req)
}

// podDone: the pod's containers will not run (again).
func podDone(p *core.Pod) bool {
	return p.Status.Phase == core.PodSucceeded || p.Status.Phase == core.PodFailed
}

func isPodRef(r dra.ResourceClaimConsumerReference) bool {
	return r.APIGroup == "" && r.Resource == "pods"
}

// owningPod returns the pod a claim was generated for (its controlling
// owner of kind Pod).
func owningPod(c *dra.ResourceClaim) (name string, uid meta.UID, ok bool) {
	for _, o := range c.OwnerReferences {
		if o.APIVersion == "v1" && o.Kind == "Pod" && o.Controller != nil && *o.Controller {
			return o.Name, o.UID, true
		}
	}
	return "", "", false
}

// ensureClaims creates a claim for every template entry of pod that has
// none and writes the pod's status.resourceClaimStatuses when it changed.
func (r *Controller) ensureClaims(ctx context.Context, pod *core.Pod) error {
	entries, err := dra.PodClaims(pod)
	if err != nil {
		return err
	}
	before, err := dra.PodClaimStatuses(pod)
	if err != nil {
		return err
	}
	var statuses []dra.PodResourceClaimStatus
	for _, e := range entries {
		if e.ResourceClaimTemplateName == nil {
			continue
		}
		name, err := r.claimFor(ctx, pod, e)
		if err != nil {
			return err
		}
		statuses = append(statuses, dra.PodResourceClaimStatus{Name: e.Name, ResourceClaimName: &name})
	}
	if statusesEqual(statuses, before) {
		return nil
	}
	upd := meta.DeepCopy(pod)
	upd.Status.ResourceClaimStatuses = dra.EncodeClaimStatuses(statuses)
	if _, err := client.For[core.Pod](r.client, pod.Namespace).UpdateStatus(ctx, upd); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("record the resource claims of pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	return nil
}

func statusesEqual(a, b []dra.PodResourceClaimStatus) bool {
	return slices.EqualFunc(a, b, func(x, y dra.PodResourceClaimStatus) bool {
		return x.Name == y.Name && (x.ResourceClaimName == nil) == (y.ResourceClaimName == nil) &&
			(x.ResourceClaimName == nil || *x.ResourceClaimName == *y.ResourceClaimName)
	})
}

// claimFor returns the name of the claim generated for entry e of pod,
// creating it from the template when the pod has none yet.
func (r *Controller) claimFor(ctx context.Context, pod *core.Pod, e dra.PodResourceClaim) (string, error) {
	for _, c := range r.claims.Namespace(pod.Namespace).List(nil) {
		if _, uid, ok := owningPod(c); ok && uid == pod.UID && c.Annotations[PodClaimNameAnnotation] == e.Name {
			return c.Name, nil
		}
	}
	tpl, err := r.templates.Get(pod.Namespace, *e.ResourceClaimTemplateName)
	if err != nil {
		return "", fmt.Errorf("pod %s/%s: resource claim template %q: %w", pod.Namespace, pod.Name, *e.ResourceClaimTemplateName, err)
	}
	claim := newClaim(pod, e.Name, tpl)
	out, err := client.For[dra.ResourceClaim](r.client, pod.Namespace).Create(ctx, claim)
	if err != nil {
		return "", fmt.Errorf("create resource claim for pod %s/%s, entry %q: %w", pod.Namespace, pod.Name, e.Name, err)
	}
	return out.Name, nil
}

// newClaim is the claim Kubernetes generates for entry name of pod from
// tpl: the template's labels, annotations and spec, owned by the pod.
func newClaim(pod *core.Pod, name string, tpl *dra.ResourceClaimTemplate) *dra.ResourceClaim {
	base := pod.Name + "-" + name
	if len(base) > maxBaseNameLength {
		base = base[:maxBaseNameLength]
	}
	annotations := maps.Clone(tpl.Spec.Annotations)
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[PodClaimNameAnnotation] = name
	yes := true
	return &dra.ResourceClaim{
		ObjectMeta: meta.ObjectMeta{
			GenerateName: base + "-", Namespace: pod.Namespace,
			Labels: maps.Clone(tpl.Spec.Labels), Annotations: annotations,
			OwnerReferences: []meta.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: pod.UID, Controller: &yes, BlockOwnerDeletion: &yes}},
		},
		Spec: *meta.DeepCopy(&tpl.Spec.Spec),
	}
}
