package replicaset

import (
	"context"
	"fmt"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/informer"
)

// kindAdapter is what the controller needs of the kind it manages. Its
// logic works on a ReplicaSet view of the object; the adapter reads the
// object (and that view), names it in owner references and writes its
// status. ReplicaSets are their own view; ReplicationControllers are
// converted, as kube-controller-manager's replication manager runs the
// ReplicaSet controller over converted objects.
type kindAdapter struct {
	// name is the Kind ("ReplicaSet"); apiVersion its group and version.
	name, apiVersion string
	// get returns the cached object and its ReplicaSet view.
	get func(ns, name string) (meta.Object, *apps.ReplicaSet, error)
	// fetch reads the object live (adoption's recheck).
	fetch func(ctx context.Context, ns, name string) (meta.Object, error)
	// orphanOwners maps an orphan pod to the objects that select it.
	orphanOwners func(pod *core.Pod) []controller.Request
	// writeStatus writes st as the status of obj (the cached object).
	writeStatus func(ctx context.Context, obj meta.Object, st apps.ReplicaSetStatus) error
}

// ref is the controller reference the kind puts on its pods.
func (k *kindAdapter) ref(obj meta.Object) meta.OwnerReference {
	yes := true
	m := obj.GetObjectMeta()
	return meta.OwnerReference{APIVersion: k.apiVersion, Kind: k.name, Name: m.Name, UID: m.UID,
		Controller: &yes, BlockOwnerDeletion: &yes}
}

// owns reports whether ref names an object of the kind.
func (k *kindAdapter) owns(ref *meta.OwnerReference) bool {
	return ref != nil && ref.Kind == k.name &&
		meta.ParseGroupVersion(ref.APIVersion).Group == meta.ParseGroupVersion(k.apiVersion).Group
}

// replicaSetKind manages ReplicaSets.
func replicaSetKind(c *client.Client, rss informer.Lister[*apps.ReplicaSet]) kindAdapter {
	return kindAdapter{
		name: "ReplicaSet", apiVersion: "apps/v1",
		get: func(ns, name string) (meta.Object, *apps.ReplicaSet, error) {
			rs, err := rss.Namespace(ns).Get(name)
			return rs, rs, err
		},
		fetch: func(ctx context.Context, ns, name string) (meta.Object, error) {
			return client.For[apps.ReplicaSet](c, ns).Get(ctx, name)
		},
		orphanOwners: controller.EnqueueSelectingOwners[*core.Pod](rss,
			func(rs *apps.ReplicaSet) *meta.LabelSelector { return rs.Spec.Selector }, nil),
		writeStatus: func(ctx context.Context, obj meta.Object, st apps.ReplicaSetStatus) error {
			upd := *obj.(*apps.ReplicaSet)
			upd.Status = st
			_, err := client.For[apps.ReplicaSet](c, upd.Namespace).UpdateStatus(ctx, &upd)
			return statusWritten(err, "replicaset", upd.Namespace, upd.Name)
		},
	}
}

// replicationControllerKind manages core/v1 ReplicationControllers.
func replicationControllerKind(c *client.Client, rcs informer.Lister[*core.ReplicationController]) kindAdapter {
	return kindAdapter{
		name: "ReplicationController", apiVersion: "v1",
		get: func(ns, name string) (meta.Object, *apps.ReplicaSet, error) {
			rc, err := rcs.Namespace(ns).Get(name)
			if err != nil {
				return nil, nil, err
			}
			return rc, ReplicaSetView(rc), nil
		},
		fetch: func(ctx context.Context, ns, name string) (meta.Object, error) {
			return client.For[core.ReplicationController](c, ns).Get(ctx, name)
		},
		orphanOwners: controller.EnqueueSelectingOwners[*core.Pod](rcs, func(rc *core.ReplicationController) *meta.LabelSelector {
			return &meta.LabelSelector{MatchLabels: rc.Spec.Selector}
		}, nil),
		writeStatus: func(ctx context.Context, obj meta.Object, st apps.ReplicaSetStatus) error {
			upd := *obj.(*core.ReplicationController)
			upd.Status = rcStatus(st)
			_, err := client.For[core.ReplicationController](c, upd.Namespace).UpdateStatus(ctx, &upd)
			return statusWritten(err, "replicationcontroller", upd.Namespace, upd.Name)
		},
	}
}

// statusWritten turns a status write's error into the reconcile's: a
// vanished object is no error.
func statusWritten(err error, kind, ns, name string) error {
	if err == nil || apierrors.IsNotFound(err) {
		return nil
	}
	return fmt.Errorf("update status of %s %s/%s: %w", kind, ns, name, err)
}

// ReplicaSetView returns rc as the ReplicaSet it behaves as: the same
// metadata, replicas, minReadySeconds and template, its label map as a
// matchLabels selector, and its status. The view shares no memory that
// the controller writes.
func ReplicaSetView(rc *core.ReplicationController) *apps.ReplicaSet {
	rs := &apps.ReplicaSet{
		TypeMeta:   meta.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"},
		ObjectMeta: rc.ObjectMeta,
		Spec: apps.ReplicaSetSpec{Replicas: rc.Spec.Replicas, MinReadySeconds: rc.Spec.MinReadySeconds,
			Selector: &meta.LabelSelector{MatchLabels: rc.Spec.Selector}},
		Status: apps.ReplicaSetStatus{Replicas: rc.Status.Replicas, FullyLabeledReplicas: rc.Status.FullyLabeledReplicas,
			ReadyReplicas: rc.Status.ReadyReplicas, AvailableReplicas: rc.Status.AvailableReplicas,
			ObservedGeneration: rc.Status.ObservedGeneration},
	}
	if rc.Spec.Template != nil {
		rs.Spec.Template = *rc.Spec.Template
	}
	for _, c := range rc.Status.Conditions {
		rs.Status.Conditions = append(rs.Status.Conditions, apps.ReplicaSetCondition{Type: apps.ReplicaSetConditionType(c.Type),
			Status: c.Status, LastTransitionTime: c.LastTransitionTime, Reason: c.Reason, Message: c.Message})
	}
	return rs
}

// rcStatus is a ReplicaSet status as a ReplicationController's.
func rcStatus(st apps.ReplicaSetStatus) core.ReplicationControllerStatus {
	out := core.ReplicationControllerStatus{Replicas: st.Replicas, FullyLabeledReplicas: st.FullyLabeledReplicas,
		ReadyReplicas: st.ReadyReplicas, AvailableReplicas: st.AvailableReplicas, ObservedGeneration: st.ObservedGeneration}
	for _, c := range st.Conditions {
		out.Conditions = append(out.Conditions, core.ReplicationControllerCondition{Type: core.ReplicationControllerConditionType(c.Type),
			Status: c.Status, LastTransitionTime: c.LastTransitionTime, Reason: c.Reason, Message: c.Message})
	}
	return out
}
