package job

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/orkit/orkit/api/batch"
	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/labels"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
)

// jobRef returns pod's controller reference when it names a batch Job.
func jobRef(pod *core.Pod) *meta.OwnerReference {
	ref := meta.ControllerOf(&pod.ObjectMeta)
	if ref == nil || ref.Kind != "Job" || meta.ParseGroupVersion(ref.APIVersion).Group != batch.GroupName {
		return nil
	}
	return ref
}

// OwnerReference returns the controller reference a Job puts on its pods.
func OwnerReference(j *batch.Job) meta.OwnerReference {
	yes := true
	return meta.OwnerReference{APIVersion: "batch/v1", Kind: "Job", Name: j.Name, UID: j.UID,
		Controller: &yes, BlockOwnerDeletion: &yes}
}

// claimPods returns the pods j controls, after adopting the orphans its
// selector matches (with the tracking finalizer, re-checking live that j
// is not being deleted; terminated pods are left alone) and releasing the
// pods it controls but no longer matches (controller.ClaimObjects).
func (r *Controller) claimPods(ctx context.Context, j *batch.Job) ([]*core.Pod, error) {
	sel, err := labels.SelectorFromLabelSelector(j.Spec.Selector)
	if err != nil || sel.Empty() {
		sel = labels.Nothing()
	}
	candidates, err := controller.ClaimCandidates(r.podIndex, j)
	if err != nil {
		return nil, err
	}
	return controller.ClaimObjects(ctx, r.client, controller.Claim[*core.Pod]{Owner: j, Ref: OwnerReference(j), Selector: sel,
		Adoptable: func(p *core.Pod) bool { return !core.IsPodTerminal(p) },
		Finalizer: batch.JobTrackingFinalizer,
		Recheck: func(ctx context.Context) (meta.Object, error) {
			return client.For[batch.Job](r.client, j.Namespace).Get(ctx, j.Name)
		}}, candidates)
}

// releaseOrphans removes the tracking finalizer from pods controlled by a
// Job called req.Name that is gone (any UID but uid): nobody else will.
func (r *Controller) releaseOrphans(ctx context.Context, req controller.Request, uid meta.UID) error {
	var orphans []*core.Pod
	for _, p := range r.pods.Namespace(req.Namespace).List(nil) {
		if ref := jobRef(p); ref != nil && ref.Name == req.Name && ref.UID != uid && p.HasFinalizer(batch.JobTrackingFinalizer) {
			orphans = append(orphans, p)
		}
	}
	return r.removeFinalizers(ctx, orphans)
}

// removeFinalizers removes the tracking finalizer from pods that have it,
// each through a JSON patch that tests the finalizer is still where the
// cache saw it: a concurrent status update of the pod does not get in the
// way, and a changed finalizer list (the finalizer already gone) leaves
// the pod alone until the cache catches up.
func (r *Controller) removeFinalizers(ctx context.Context, pods []*core.Pod) error {
	for _, p := range pods {
		i := slices.Index(p.Finalizers, batch.JobTrackingFinalizer)
		if i < 0 {
			continue
		}
		path := "/metadata/finalizers/" + strconv.Itoa(i)
		patch, err := json.Marshal([]map[string]any{
			{"op": "test", "path": path, "value": batch.JobTrackingFinalizer}, {"op": "remove", "path": path}})
		if err != nil {
			return err
		}
		_, err = client.For[core.Pod](r.client, p.Namespace).Patch(ctx, p.Name, client.JSONPatchType, patch)
		switch {
		case err == nil || apierrors.IsNotFound(err):
		case apierrors.IsInvalid(err):
			// The test failed: the finalizers changed since the cache saw
			// the pod, and the event of that change brings another round.
		default:
			return fmt.Errorf("remove finalizer of pod %s/%s: %w", p.Namespace, p.Name, err)
		}
	}
	return nil
}

// NewPod returns the pod j creates from its template; index is its
// completion index for an Indexed Job (ignored otherwise).
func NewPod(j *batch.Job, index int) *core.Pod {
	t := meta.DeepCopy(&j.Spec.Template)
	pod := &core.Pod{
		ObjectMeta: meta.ObjectMeta{GenerateName: j.Name + "-", Namespace: j.Namespace, Labels: t.Labels,
			Annotations: t.Annotations, Finalizers: append(t.Finalizers, batch.JobTrackingFinalizer),
			OwnerReferences: []meta.OwnerReference{OwnerReference(j)}},
		Spec: t.Spec,
	}
	if !batch.IsIndexed(j) {
		return pod
	}
	idx := strconv.Itoa(index)
	pod.GenerateName = j.Name + "-" + idx + "-"
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	if pod.Labels == nil {
		pod.Labels = map[string]string{}
	}
	pod.Annotations[batch.JobCompletionIndexAnnotation] = idx
	pod.Labels[batch.JobCompletionIndexAnnotation] = idx
	if pod.Spec.Hostname == "" {
		pod.Spec.Hostname = j.Name + "-" + idx
	}
	env := core.EnvVar{Name: batch.JobCompletionIndexEnv, ValueFrom: &core.EnvVarSource{FieldRef: &core.ObjectFieldSelector{
		APIVersion: "v1", FieldPath: "metadata.annotations['" + batch.JobCompletionIndexAnnotation + "']"}}}
	for _, cs := range [][]core.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range cs {
			cs[i].Env = append(cs[i].Env, env)
		}
	}
	return pod
}

// createPods creates one pod per index (NonIndexed Jobs pass zeros); the
// expectations wait for each creation's event. With backoffLimitPerIndex
// each pod carries its index's failure counts, taken from the index's
// last failed pod in prev.
func (r *Controller) createPods(ctx context.Context, key controller.Request, j *batch.Job, indexes []int, prev map[int]*core.Pod) error {
	if len(indexes) == 0 {
		return nil
	}
	r.exp.ExpectCreations(key, len(indexes))
	pods := client.For[core.Pod](r.client, j.Namespace)
	var wg sync.WaitGroup
	errs := make([]error, len(indexes))
	for i, idx := range indexes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pod := NewPod(j, idx)
			if batch.HasBackoffLimitPerIndex(j) {
				setFailureCounts(j, pod, prev[idx])
			}
			created, err := pods.Create(ctx, pod)
			if err != nil {
				r.exp.CreationObserved(key) // no event will come
				errs[i] = err
				return
			}
			r.event(j, core.EventTypeNormal, ReasonSuccessfulCreate, "Created pod: "+created.Name)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			r.event(j, core.EventTypeWarning, ReasonFailedCreate, "Error creating: "+err.Error())
			return fmt.Errorf("create pods for job %s: %w", key, err)
		}
	}
	return nil
}

// setFailureCounts annotates pod, the replacement of the failed pod prev
// (nil for an index's first pod), with its index's failure counts.
func setFailureCounts(j *batch.Job, pod, prev *core.Pod) {
	counted, ignored := nextFailureCounts(j, prev)
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	pod.Annotations[batch.JobIndexFailureCountAnnotation] = strconv.Itoa(int(counted))
	if ignored > 0 {
		pod.Annotations[batch.JobIndexIgnoredFailureCountAnnotation] = strconv.Itoa(int(ignored))
	}
}

// deletePods deletes victims, waiting for each deletion's event.
func (r *Controller) deletePods(ctx context.Context, key controller.Request, j *batch.Job, victims []*core.Pod) error {
	if len(victims) == 0 {
		return nil
	}
	uids := make([]meta.UID, len(victims))
	for i, p := range victims {
		uids[i] = p.UID
	}
	r.exp.ExpectDeletionsOf(key, uids)
	var wg sync.WaitGroup
	errs := make([]error, len(victims))
	for i, p := range victims {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := client.For[core.Pod](r.client, p.Namespace).Delete(ctx, p.Name, nil)
			switch {
			case err == nil:
				r.event(j, core.EventTypeNormal, ReasonSuccessfulDelete, "Deleted pod: "+p.Name)
			case apierrors.IsNotFound(err):
				r.exp.DeletionObservedOf(key, p.UID) // no event will come
			default:
				r.exp.DeletionObservedOf(key, p.UID) // no event will come
				r.event(j, core.EventTypeWarning, ReasonFailedDelete, "Error deleting: "+err.Error())
				errs[i] = fmt.Errorf("delete pod %s/%s: %w", p.Namespace, p.Name, err)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// ownerKey is the Job that controls pod, for the expectations.
func ownerKey(pod *core.Pod) (controller.Request, bool) {
	ref := jobRef(pod)
	if ref == nil {
		return controller.Request{}, false
	}
	return controller.Request{Namespace: pod.Namespace, Name: ref.Name}, true
}
