package daemonset

import (
	"slices"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

// DaemonTolerations are added to every DaemonSet pod, as Kubernetes
// does: daemons keep running on nodes that are not ready, unreachable,
// under pressure or cordoned.
func DaemonTolerations() []core.Toleration {
	exists := func(key string, effect core.TaintEffect) core.Toleration {
		return core.Toleration{Key: key, Operator: core.TolerationOpExists, Effect: effect}
	}
	return []core.Toleration{
		exists(core.TaintNodeNotReady, core.TaintEffectNoExecute),
		exists(core.TaintNodeUnreachable, core.TaintEffectNoExecute),
		exists(core.TaintNodeDiskPressure, core.TaintEffectNoSchedule),
		exists(core.TaintNodeMemoryPressure, core.TaintEffectNoSchedule),
		exists(core.TaintNodePIDPressure, core.TaintEffectNoSchedule),
		exists(core.TaintNodeUnschedulable, core.TaintEffectNoSchedule),
	}
}

// withDaemonTolerations returns tolerations plus the daemon ones that
// are not there already.
func withDaemonTolerations(tolerations []core.Toleration) []core.Toleration {
	out := slices.Clone(tolerations)
	for _, t := range DaemonTolerations() {
		if !slices.ContainsFunc(out, func(x core.Toleration) bool { return x.Key == t.Key && x.Effect == t.Effect }) {
			out = append(out, t)
		}
	}
	return out
}

// ShouldRun reports whether a new pod of ds belongs on node: the node
// matches the template's nodeSelector and required node affinity, and
// every NoSchedule and NoExecute taint is tolerated (by the template or
// by the daemon tolerations). It is a pure function of its arguments.
func ShouldRun(ds *apps.DaemonSet, node *core.Node) bool {
	run, _ := Placement(ds, node)
	return run
}

// Placement reports whether a new pod of ds belongs on node (run, as
// ShouldRun) and whether a pod already there may stay (keep): a
// NoSchedule taint keeps new pods away but does not remove running ones;
// an untolerated NoExecute taint, or a node that no longer matches, does.
// It is a pure function of its arguments.
func Placement(ds *apps.DaemonSet, node *core.Node) (run, keep bool) {
	pod := &core.Pod{Spec: ds.Spec.Template.Spec}
	if !core.PodMatchesNodeAffinity(pod, node) {
		return false, false
	}
	tol := withDaemonTolerations(ds.Spec.Template.Spec.Tolerations)
	run, keep = true, true
	for i := range node.Spec.Taints {
		t := &node.Spec.Taints[i]
		if t.Effect == core.TaintEffectPreferNoSchedule || core.TolerationsTolerateTaint(tol, t) {
			continue
		}
		run = false
		if t.Effect == core.TaintEffectNoExecute {
			keep = false
		}
	}
	return run, keep
}

// newPod returns a pod of ds for node at revision hash: the template,
// the daemon tolerations, and required node affinity for exactly that
// node (matchFields metadata.name), which replaces the template's
// required terms (the node was checked against them) and leaves the
// scheduler one choice.
func newPod(ds *apps.DaemonSet, node, hash string) *core.Pod {
	pod := &core.Pod{
		ObjectMeta: meta.ObjectMeta{
			GenerateName: ds.Name + "-", Namespace: ds.Namespace,
			Labels:          map[string]string{},
			Annotations:     map[string]string{},
			OwnerReferences: []meta.OwnerReference{ownerRef(ds)},
		},
		Spec: *meta.DeepCopy(&ds.Spec.Template.Spec),
	}
	for k, v := range ds.Spec.Template.Labels {
		pod.Labels[k] = v
	}
	for k, v := range ds.Spec.Template.Annotations {
		pod.Annotations[k] = v
	}
	pod.Labels[apps.DefaultDaemonSetUniqueLabelKey] = hash
	pod.Spec.Tolerations = withDaemonTolerations(pod.Spec.Tolerations)
	if pod.Spec.Affinity == nil {
		pod.Spec.Affinity = &core.Affinity{}
	}
	if pod.Spec.Affinity.NodeAffinity == nil {
		pod.Spec.Affinity.NodeAffinity = &core.NodeAffinity{}
	}
	pod.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = &core.NodeSelector{
		NodeSelectorTerms: []core.NodeSelectorTerm{{MatchFields: []core.NodeSelectorRequirement{
			{Key: "metadata.name", Operator: core.NodeSelectorOpIn, Values: []string{node}}}}},
	}
	return pod
}

// TargetNode returns the node a DaemonSet pod is for: its spec.nodeName
// once bound, else the node its required affinity pins it to ("" when
// neither says).
func TargetNode(pod *core.Pod) string {
	if pod.Spec.NodeName != "" {
		return pod.Spec.NodeName
	}
	a := pod.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return ""
	}
	for _, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		for _, r := range term.MatchFields {
			if r.Key == "metadata.name" && r.Operator == core.NodeSelectorOpIn && len(r.Values) == 1 {
				return r.Values[0]
			}
		}
	}
	return ""
}
