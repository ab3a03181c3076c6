package plugins

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/storage"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/informer"
	"github.com/orkit/orkit/scheduler/framework"
)

// VolumeBinding reasons, worded as kube-scheduler's.
const (
	ReasonUnboundImmediateClaims = "pod has unbound immediate PersistentVolumeClaims"
	ReasonVolumeNodeConflict     = "node(s) had volume node affinity conflict"
	ReasonVolumeNotExist         = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"
	ReasonSelectedNodeConflict   = "node(s) didn't match the node selected for the pod's volumes"
)

// NameVolumeBinding is the name of the VolumeBinding plugin.
const NameVolumeBinding = "VolumeBinding"

// DefaultVolumeBindTimeout is how long PreBind waits for the volumes of
// a pod to be bound when VolumeBinding.BindTimeout is zero (Kubernetes'
// default bindTimeoutSeconds is 600).
const DefaultVolumeBindTimeout = 10 * time.Minute

// VolumeBinding places pods that use PersistentVolumeClaims, as
// kube-scheduler's VolumeBinding plugin does, so that no pod is bound to
// a node before its volumes:
//
//	PreFilter  every claim must exist and not be deleting; an unbound claim whose
//	           class binds Immediate (or that names no class, or a class that does
//	           not exist) rejects the pod on every node, UnschedulableAndUnresolvable:
//	           "pod has unbound immediate PersistentVolumeClaims"; a pod without
//	           claims is skipped
//	Filter     a bound claim's volume must exist and its node affinity match the
//	           node; an unbound WaitForFirstConsumer claim already annotated with a
//	           selected node fits that node only
//	PreBind    (the binding worker) every unbound WaitForFirstConsumer claim gets the
//	           volume.kubernetes.io/selected-node annotation (the provisioner makes
//	           its volume there), then the pod waits until every claim is bound —
//	           up to BindTimeout, after which the binding fails and the pod is
//	           retried
//
// The zero value is not usable: Claims, Volumes and Classes (informer
// listers, usually the scheduler's own) and Client (for the annotation)
// are required. Static volumes of WaitForFirstConsumer classes are not
// matched per node: such claims are served by a dynamic provisioner.
// Safe for concurrent use.
type VolumeBinding struct {
	Claims  informer.Lister[*core.PersistentVolumeClaim]
	Volumes informer.Lister[*core.PersistentVolume]
	Classes informer.Lister[*storage.StorageClass]
	Client  *client.Client
	// BindTimeout bounds PreBind's wait; default DefaultVolumeBindTimeout.
	BindTimeout time.Duration
	// PollInterval is how often PreBind looks at the claims while it
	// waits; default 100 ms.
	PollInterval time.Duration
}

var (
	_ framework.Predicate = (*VolumeBinding)(nil)
	_ framework.PreFilter = (*VolumeBinding)(nil)
	_ framework.PreBind   = (*VolumeBinding)(nil)
)

const volumesKey framework.StateKey = "PreFilter" + NameVolumeBinding

// podVolumes are the pod's claims, sorted for Filter and PreBind.
type podVolumes struct {
	// bound are the volumes of the pod's bound claims (nil: missing).
	bound []*core.PersistentVolume
	// delayed are the unbound claims of WaitForFirstConsumer classes.
	delayed []*core.PersistentVolumeClaim
}

// Clone implements framework.StateData; the value is immutable.
func (p *podVolumes) Clone() framework.StateData { return p }

// Name implements framework.Plugin.
func (*VolumeBinding) Name() string { return NameVolumeBinding }

// PreFilter sorts the pod's claims into bound and delayed ones, rejecting
// the pod when a claim is missing, deleting, or unbound with Immediate
// binding.
func (v *VolumeBinding) PreFilter(_ context.Context, state *framework.CycleState, pod *core.Pod) *framework.Status {
	names := claimNames(pod)
	if len(names) == 0 {
		return framework.NewStatus(framework.Skip)
	}
	pv := &podVolumes{}
	for _, name := range names {
		pvc, err := v.Claims.Get(pod.Namespace, name)
		switch {
		case errors.Is(err, informer.ErrNotFound):
			return framework.NewStatus(framework.UnschedulableAndUnresolvable, fmt.Sprintf("persistentvolumeclaim %q not found", name))
		case err != nil:
			return framework.AsStatus(err)
		case pvc.DeletionTimestamp != nil:
			return framework.NewStatus(framework.UnschedulableAndUnresolvable, fmt.Sprintf("persistentvolumeclaim %q is being deleted", name))
		case pvc.Spec.VolumeName != "":
			vol, err := v.Volumes.Get("", pvc.Spec.VolumeName)
			if err != nil {
				vol = nil
			}
			pv.bound = append(pv.bound, vol)
		case v.delayedBinding(pvc):
			pv.delayed = append(pv.delayed, pvc)
		default:
			return framework.NewStatus(framework.UnschedulableAndUnresolvable, ReasonUnboundImmediateClaims)
		}
	}
	state.Write(volumesKey, pv)
	return nil
}

// delayedBinding reports whether the claim's class binds on first consumer.
func (v *VolumeBinding) delayedBinding(pvc *core.PersistentVolumeClaim) bool {
	if pvc.Spec.StorageClassName == nil || *pvc.Spec.StorageClassName == "" {
		return false
	}
	sc, err := v.Classes.Get("", *pvc.Spec.StorageClassName)
	return err == nil && storage.BindingMode(sc) == storage.VolumeBindingWaitForFirstConsumer
}

// Filter implements framework.Predicate.
func (v *VolumeBinding) Filter(_ context.Context, state *framework.CycleState, pod *core.Pod, ni *framework.NodeInfo) *framework.Status {
	pv, err := framework.ReadAs[*podVolumes](state, volumesKey)
	if err != nil {
		return nil // PreFilter skipped: no claims
	}
	return FitsVolumes(pv.bound, pv.delayed, ni.Node())
}

// FitsVolumes is VolumeBinding's decision for one node: every bound
// volume exists and its node affinity admits node, and every delayed
// claim is either not yet placed or placed on node. It is a pure function.
func FitsVolumes(bound []*core.PersistentVolume, delayed []*core.PersistentVolumeClaim, node *core.Node) *framework.Status {
	for _, vol := range bound {
		if vol == nil {
			return framework.NewStatus(framework.UnschedulableAndUnresolvable, ReasonVolumeNotExist)
		}
		if na := vol.Spec.NodeAffinity; na != nil && na.Required != nil && !core.MatchNodeSelectorTerms(node, na.Required.NodeSelectorTerms) {
			return framework.NewStatus(framework.UnschedulableAndUnresolvable, ReasonVolumeNodeConflict)
		}
	}
	for _, pvc := range delayed {
		if sel := pvc.Annotations[storage.AnnotationSelectedNode]; sel != "" && sel != node.Name {
			return framework.NewStatus(framework.UnschedulableAndUnresolvable, ReasonSelectedNodeConflict)
		}
	}
	return nil
}

// PreBind annotates the pod's delayed claims with the node and waits
// until every claim of the pod is bound.
func (v *VolumeBinding) PreBind(ctx context.Context, state *framework.CycleState, pod *core.Pod, node string) *framework.Status {
	pv, err := framework.ReadAs[*podVolumes](state, volumesKey)
	if err != nil || len(pv.delayed) == 0 {
		return framework.NewStatus(framework.Skip)
	}
	for _, pvc := range pv.delayed {
		if pvc.Annotations[storage.AnnotationSelectedNode] == node {
			continue // annotated in an earlier attempt
		}
		if err := v.selectNode(ctx, pvc.Namespace, pvc.Name, node); err != nil {
			return framework.AsStatus(err)
		}
	}
	return framework.AsStatus(v.waitBound(ctx, pod, pv.delayed))
}

// selectNode sets the selected-node annotation on a claim (re-reading it
// on a conflict), unless it is bound or annotated already.
func (v *VolumeBinding) selectNode(ctx context.Context, ns, name, node string) error {
	claims := client.For[core.PersistentVolumeClaim](v.Client, ns)
	for range 5 {
		pvc, err := claims.Get(ctx, name)
		if err != nil {
			return fmt.Errorf("select node for claim %s/%s: %w", ns, name, err)
		}
		if pvc.Spec.VolumeName != "" || pvc.Annotations[storage.AnnotationSelectedNode] == node {
			return nil
		}
		next := meta.DeepCopy(pvc)
		if next.Annotations == nil {
			next.Annotations = map[string]string{}
		}
		next.Annotations[storage.AnnotationSelectedNode] = node
		_, err = claims.Update(ctx, next)
		if !apierrors.IsConflict(err) {
			if err != nil {
				return fmt.Errorf("select node for claim %s/%s: %w", ns, name, err)
			}
			return nil
		}
	}
	return fmt.Errorf("select node for claim %s/%s: conflicting updates", ns, name)
}

// waitBound polls the claim cache until every claim is bound, ctx ends
// or BindTimeout passes.
func (v *VolumeBinding) waitBound(ctx context.Context, pod *core.Pod, claims []*core.PersistentVolumeClaim) error {
	timeout, poll := v.BindTimeout, v.PollInterval
	if timeout <= 0 {
		timeout = DefaultVolumeBindTimeout
	}
	if poll <= 0 {
		poll = 100 * time.Millisecond
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		pending := ""
		for _, c := range claims {
			cur, err := v.Claims.Get(c.Namespace, c.Name)
			if err != nil || cur.UID != c.UID {
				return fmt.Errorf("binding volumes of pod %s: claim %s/%s is gone", framework.PodKey(pod), c.Namespace, c.Name)
			}
			if cur.Spec.VolumeName == "" || cur.Status.Phase != core.ClaimBound {
				pending = c.Name
				break
			}
		}
		if pending == "" {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("binding volumes of pod %s: claim %q not bound: %w", framework.PodKey(pod), pending, ctx.Err())
		case <-t.C:
		}
	}
}

// claimNames returns the claims a pod's volumes name.
func claimNames(pod *core.Pod) []string {
	var out []string
	for _, vol := range pod.Spec.Volumes {
		if c := vol.PersistentVolumeClaim; c != nil {
			out = append(out, c.ClaimName)
		}
	}
	return out
}
