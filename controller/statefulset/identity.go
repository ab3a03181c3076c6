package statefulset

import (
	"strconv"
	"strings"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

// PodName returns the name of the set's pod with the given ordinal.
func PodName(set *apps.StatefulSet, ordinal int) string {
	return set.Name + "-" + strconv.Itoa(ordinal)
}

// ClaimName returns the name of the claim of template for the pod with
// the given ordinal: <template>-<set>-<ordinal>.
func ClaimName(set *apps.StatefulSet, template string, ordinal int) string {
	return template + "-" + PodName(set, ordinal)
}

// ParseOrdinal returns the ordinal in a pod name of the set ("web-2" →
// 2), or false when the name is not one of the set's.
func ParseOrdinal(set *apps.StatefulSet, podName string) (int, bool) {
	rest, ok := strings.CutPrefix(podName, set.Name+"-")
	if !ok || rest == "" || (len(rest) > 1 && rest[0] == '0') {
		return 0, false
	}
	for _, r := range rest {
		if r < '0' || r > '9' { // Atoi would take "+1"
			return 0, false
		}
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}

// newPod returns the pod of ordinal made from template at revision hash.
func newPod(set *apps.StatefulSet, template *core.PodTemplateSpec, hash string, ordinal int) *core.Pod {
	name := PodName(set, ordinal)
	pod := &core.Pod{
		ObjectMeta: meta.ObjectMeta{
			Name: name, Namespace: set.Namespace,
			Labels:          map[string]string{},
			Annotations:     map[string]string{},
			OwnerReferences: []meta.OwnerReference{controllerRef(set)},
		},
		Spec: *meta.DeepCopy(&template.Spec),
	}
	for k, v := range template.Labels {
		pod.Labels[k] = v
	}
	for k, v := range template.Annotations {
		pod.Annotations[k] = v
	}
	pod.Labels[apps.StatefulSetPodNameLabel] = name
	pod.Labels[apps.PodIndexLabel] = strconv.Itoa(ordinal)
	pod.Labels[apps.ControllerRevisionHashLabelKey] = hash
	pod.Spec.Hostname = name
	pod.Spec.Subdomain = set.Spec.ServiceName
	for _, t := range set.Spec.VolumeClaimTemplates {
		v := core.Volume{Name: t.Name, VolumeSource: core.VolumeSource{
			PersistentVolumeClaim: &core.PersistentVolumeClaimVolumeSource{ClaimName: ClaimName(set, t.Name, ordinal)}}}
		replaced := false
		for i := range pod.Spec.Volumes {
			if pod.Spec.Volumes[i].Name == t.Name {
				pod.Spec.Volumes[i], replaced = v, true
			}
		}
		if !replaced {
			pod.Spec.Volumes = append(pod.Spec.Volumes, v)
		}
	}
	return pod
}

// newClaim returns the claim of template t for ordinal. It is labelled
// with the set's selector labels and owned by the set only when the
// retention policy deletes claims with the set (claimOwners).
func newClaim(set *apps.StatefulSet, t *core.PersistentVolumeClaim, ordinal int) *core.PersistentVolumeClaim {
	pvc := &core.PersistentVolumeClaim{
		ObjectMeta: meta.ObjectMeta{Name: ClaimName(set, t.Name, ordinal), Namespace: set.Namespace,
			Labels: map[string]string{}, Annotations: map[string]string{}},
		Spec: *meta.DeepCopy(&t.Spec),
	}
	for k, v := range t.Labels {
		pvc.Labels[k] = v
	}
	for k, v := range t.Annotations {
		pvc.Annotations[k] = v
	}
	if set.Spec.Selector != nil {
		for k, v := range set.Spec.Selector.MatchLabels {
			pvc.Labels[k] = v
		}
	}
	pvc.OwnerReferences = claimOwners(set, nil, ordinal, nil)
	return pvc
}

// runningAndReady reports whether pod is Running with Ready=True.
func runningAndReady(pod *core.Pod) bool {
	return pod.Status.Phase == core.PodRunning && core.IsPodReady(pod)
}

// available reports whether pod has been ready for minReadySeconds at now.
func available(pod *core.Pod, minReadySeconds int32, now meta.Time) bool {
	if !runningAndReady(pod) {
		return false
	}
	if minReadySeconds == 0 {
		return true
	}
	_, c := core.GetPodCondition(&pod.Status, core.PodReady)
	return c != nil && !c.LastTransitionTime.IsZero() &&
		now.Sub(c.LastTransitionTime.Time).Seconds() >= float64(minReadySeconds)
}
