package daemonset

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
)

// maxUnavailable returns the rolling update's budget of nodes without an
// available pod, out of desired nodes (default 1; at least 1).
func maxUnavailable(ds *apps.DaemonSet, desired int) int {
	v := meta.FromInt(1)
	if ru := ds.Spec.UpdateStrategy.RollingUpdate; ru != nil && ru.MaxUnavailable != nil {
		v = *ru.MaxUnavailable
	}
	n, err := v.ScaledValue(desired, true)
	if err != nil || n < 1 {
		return 1
	}
	return n
}

// pick returns the pod that speaks for a node in the status: its
// new-revision pod when it has one (surging), else its first.
func pick(pods []*core.Pod, hash string) *core.Pod {
	for _, p := range pods {
		if p.Labels[apps.DefaultDaemonSetUniqueLabelKey] == hash {
			return p
		}
	}
	return pods[0]
}

// maxSurge returns how many eligible nodes may run an extra, new pod
// beside their old one during a rolling update (0 unless set; rounded
// up).
func maxSurge(ds *apps.DaemonSet, desired int) int {
	ru := ds.Spec.UpdateStrategy.RollingUpdate
	if ru == nil || ru.MaxSurge == nil {
		return 0
	}
	n, err := ru.MaxSurge.ScaledValue(desired, true)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// surging reports whether ds rolls by surge: a new pod starts beside the
// old one, which goes once the new one is available.
func surging(ds *apps.DaemonSet) bool {
	ru := ds.Spec.UpdateStrategy.RollingUpdate
	return ds.Spec.UpdateStrategy.Type != apps.OnDeleteDaemonSetStrategyType &&
		ru != nil && ru.MaxSurge != nil && (ru.MaxSurge.IsString || ru.MaxSurge.IntVal > 0)
}

// surgeExtras returns which of one node's running pods (oldest first) go
// when surging: the node keeps its oldest new-revision pod and, until
// that one is available, its oldest old pod.
func surgeExtras(running []*core.Pod, hash string, now time.Time, minReadySeconds int32) []*core.Pod {
	var newest, oldest *core.Pod
	var del []*core.Pod
	for _, p := range running {
		isNew := p.Labels[apps.DefaultDaemonSetUniqueLabelKey] == hash
		switch {
		case isNew && newest == nil:
			newest = p
		case !isNew && oldest == nil:
			oldest = p
		default:
			del = append(del, p)
		}
	}
	if newest != nil && oldest != nil && isAvailable(newest, minReadySeconds, now) {
		del = append(del, oldest)
	}
	return del
}

// surgeCreates returns the eligible nodes that get a new-revision pod
// beside their old one: every node whose old pod is not available anyway,
// then others while no more than maxSurge nodes run two pods.
func surgeCreates(ds *apps.DaemonSet, byNode map[string][]*core.Pod, eligible []string, hash string, now time.Time) []string {
	inFlight := 0
	var unavailable, candidates []string
	for _, node := range eligible {
		pods := live(byNode[node])
		hasNew := slices.ContainsFunc(pods, func(p *core.Pod) bool { return p.Labels[apps.DefaultDaemonSetUniqueLabelKey] == hash })
		switch {
		case len(pods) == 0:
		case hasNew && len(pods) > 1:
			inFlight++
		case hasNew:
		case !isAvailable(pods[0], ds.Spec.MinReadySeconds, now):
			unavailable = append(unavailable, node)
		default:
			candidates = append(candidates, node)
		}
	}
	budget := maxSurge(ds, len(eligible)) - inFlight
	for i := 0; i < budget && i < len(candidates); i++ {
		unavailable = append(unavailable, candidates[i])
	}
	return unavailable
}

// rollingUpdate picks old-template pods to delete: every one that is not
// available anyway, then available ones while the eligible nodes without
// an available pod stay within maxUnavailable. It is a pure function.
func rollingUpdate(ds *apps.DaemonSet, byNode map[string][]*core.Pod, eligible []string, hash string) []*core.Pod {
	now := time.Now()
	unavailable := 0
	var oldAvailable, oldUnavailable []*core.Pod
	for _, node := range eligible {
		pods := live(byNode[node])
		if len(pods) == 0 {
			unavailable++ // its old pod is still terminating, or its new one not yet seen
			continue
		}
		p := pods[0]
		ok := isAvailable(p, ds.Spec.MinReadySeconds, now)
		if !ok {
			unavailable++
		}
		if p.Labels[apps.DefaultDaemonSetUniqueLabelKey] == hash {
			continue
		}
		if ok {
			oldAvailable = append(oldAvailable, p)
		} else {
			oldUnavailable = append(oldUnavailable, p)
		}
	}
	del := oldUnavailable
	budget := maxUnavailable(ds, len(eligible)) - unavailable
	for i := 0; i < budget && i < len(oldAvailable); i++ {
		del = append(del, oldAvailable[i])
	}
	return del
}

// isAvailable reports whether p has been Running and Ready for
// minReadySeconds.
func isAvailable(p *core.Pod, minReadySeconds int32, now time.Time) bool {
	if p.Status.Phase != core.PodRunning || !core.IsPodReady(p) {
		return false
	}
	if minReadySeconds == 0 {
		return true
	}
	_, cond := core.GetPodCondition(&p.Status, core.PodReady)
	return cond != nil && now.Sub(cond.LastTransitionTime.Time) >= time.Duration(minReadySeconds)*time.Second
}

// writeStatus counts the DaemonSet's nodes and pods and writes the status
// when it changed.
func (c *Controller) writeStatus(ctx context.Context, ds *apps.DaemonSet, byNode map[string][]*core.Pod, hash string) error {
	st := apps.DaemonSetStatus{ObservedGeneration: ds.Generation, CollisionCount: ds.Status.CollisionCount, Conditions: ds.Status.Conditions}
	now := time.Now()
	for _, node := range c.nodes.List(nil) {
		pods := live(byNode[node.Name])
		should := ShouldRun(ds, node)
		switch {
		case should:
			st.DesiredNumberScheduled++
			if len(pods) == 0 {
				continue
			}
			st.CurrentNumberScheduled++
			p := pick(pods, hash)
			if p.Status.Phase == core.PodRunning && core.IsPodReady(p) {
				st.NumberReady++
			}
			if isAvailable(p, ds.Spec.MinReadySeconds, now) {
				st.NumberAvailable++
			}
			if p.Labels[apps.DefaultDaemonSetUniqueLabelKey] == hash {
				st.UpdatedNumberScheduled++
			}
		case len(pods) > 0:
			st.NumberMisscheduled++
		}
	}
	st.NumberUnavailable = st.DesiredNumberScheduled - st.NumberAvailable
	if reflect.DeepEqual(st, ds.Status) {
		return nil
	}
	next := meta.DeepCopy(ds)
	next.Status = st
	_, err := client.For[apps.DaemonSet](c.client, ds.Namespace).UpdateStatus(ctx, next)
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("update status of %s/%s: %w", ds.Namespace, ds.Name, err)
	}
	return nil
}

// revisionData is the Data of ds's current revision as
// kube-controller-manager writes it, which clients compare byte for byte
// with what they compute from the DaemonSet (the e2e suite's history
// checks, kubectl rollout): the DaemonSet's JSON cut down to
// {"spec":{"template":...}} with "$patch":"replace" in the template, every
// object's keys sorted.
func revisionData(ds *apps.DaemonSet) ([]byte, error) {
	b, err := json.Marshal(ds)
	if err != nil {
		return nil, err
	}
	var raw struct {
		Spec struct {
			Template map[string]any `json:"template"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, err
	}
	tmpl := raw.Spec.Template
	if tmpl == nil {
		tmpl = map[string]any{}
	}
	tmpl["$patch"] = "replace"
	return json.Marshal(map[string]any{"spec": map[string]any{"template": tmpl}})
}

// syncRevision makes sure the ControllerRevision of ds's current template
// exists and returns the template's hash (the pods' label value). As in
// kube-controller-manager, a revision is ds's current one when its data is
// the current template's, whatever its name (a client may have written
// it); a revision that holds the name but another template is a
// collision, and the next collision count names the new one.
func (c *Controller) syncRevision(ctx context.Context, ds *apps.DaemonSet) (string, error) {
	data, err := revisionData(ds)
	if err != nil {
		return "", err
	}
	owned := func(r *apps.ControllerRevision) bool {
		ref := meta.ControllerOf(&r.ObjectMeta)
		return ref != nil && ref.UID == ds.UID
	}
	for _, r := range c.revisions.Namespace(ds.Namespace).List(nil) {
		if owned(r) && bytes.Equal(r.Data, data) {
			if h := r.Labels[apps.DefaultDaemonSetUniqueLabelKey]; h != "" {
				return h, nil
			}
			return strings.TrimPrefix(r.Name, ds.Name+"-"), nil
		}
	}
	var collisions int32
	if ds.Status.CollisionCount != nil {
		collisions = *ds.Status.CollisionCount
	}
	hash := templateHash(&ds.Spec.Template, collisions)
	name := ds.Name + "-" + hash
	for i := 0; i < 100; i++ {
		if _, err := c.revisions.Get(ds.Namespace, name); err != nil {
			break
		}
		collisions++
		hash = templateHash(&ds.Spec.Template, collisions)
		name = ds.Name + "-" + hash
	}
	var maxRev int64
	for _, r := range c.revisions.Namespace(ds.Namespace).List(nil) {
		if owned(r) {
			maxRev = max(maxRev, r.Revision)
		}
	}
	yes := true
	labels := map[string]string{apps.DefaultDaemonSetUniqueLabelKey: hash}
	for k, v := range ds.Spec.Template.Labels {
		labels[k] = v
	}
	rev := &apps.ControllerRevision{
		ObjectMeta: meta.ObjectMeta{Name: name, Namespace: ds.Namespace, Labels: labels,
			OwnerReferences: []meta.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: ds.Name, UID: ds.UID,
				Controller: &yes, BlockOwnerDeletion: &yes}}},
		Data: data, Revision: maxRev + 1,
	}
	_, err = client.For[apps.ControllerRevision](c.client, ds.Namespace).Create(ctx, rev)
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return "", fmt.Errorf("create revision %s/%s: %w", ds.Namespace, name, err)
	}
	return hash, nil
}
