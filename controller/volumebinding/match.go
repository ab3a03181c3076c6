package volumebinding

import (
	"slices"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/labels"
)

// classOf returns a claim's storage class ("" when none is named).
func classOf(pvc *core.PersistentVolumeClaim) string {
	if pvc.Spec.StorageClassName == nil {
		return ""
	}
	return *pvc.Spec.StorageClassName
}

func modeOf(m *core.PersistentVolumeMode) core.PersistentVolumeMode {
	if m == nil {
		return core.PersistentVolumeFilesystem
	}
	return *m
}

// Fits reports whether volume can serve claim: same storage class and
// volume mode, every access mode the claim asks for, at least the
// requested capacity, and the labels the claim's selector asks for. It
// does not look at the volume's claimRef or phase. It is a pure function.
func Fits(pv *core.PersistentVolume, pvc *core.PersistentVolumeClaim) bool {
	if pv.Spec.StorageClassName != classOf(pvc) || modeOf(pv.Spec.VolumeMode) != modeOf(pvc.Spec.VolumeMode) {
		return false
	}
	for _, m := range pvc.Spec.AccessModes {
		if !slices.Contains(pv.Spec.AccessModes, m) {
			return false
		}
	}
	want, ok := pvc.Spec.Resources.Requests[core.ResourceStorage]
	have, has := pv.Spec.Capacity[core.ResourceStorage]
	if !has || (ok && have.Cmp(want) < 0) {
		return false
	}
	if pvc.Spec.Selector != nil {
		sel, err := labels.SelectorFromLabelSelector(pvc.Spec.Selector)
		if err != nil || !sel.Matches(labels.Set(pv.Labels)) {
			return false
		}
	}
	return true
}

// claimedBy reports whether pv's claimRef names pvc (by UID when the
// reference carries one).
func claimedBy(pv *core.PersistentVolume, pvc *core.PersistentVolumeClaim) bool {
	r := pv.Spec.ClaimRef
	return r != nil && r.Namespace == pvc.Namespace && r.Name == pvc.Name && (r.UID == "" || r.UID == pvc.UID)
}

// FindVolume returns the volume claim should bind to: one pre-bound to it
// (claimRef) that fits, else the smallest fitting volume that is free
// (no claimRef, not being deleted, not Released or Failed); nil when none.
// It is a pure function.
func FindVolume(pvs []*core.PersistentVolume, pvc *core.PersistentVolumeClaim) *core.PersistentVolume {
	var best *core.PersistentVolume
	for _, pv := range pvs {
		if pv.DeletionTimestamp != nil || !Fits(pv, pvc) {
			continue
		}
		if claimedBy(pv, pvc) {
			return pv
		}
		if pv.Spec.ClaimRef != nil || pv.Status.Phase == core.VolumeReleased || pv.Status.Phase == core.VolumeFailed {
			continue
		}
		if best == nil || smaller(pv, best) {
			best = pv
		}
	}
	return best
}

func smaller(a, b *core.PersistentVolume) bool {
	qa, qb := a.Spec.Capacity[core.ResourceStorage], b.Spec.Capacity[core.ResourceStorage]
	if c := qa.Cmp(qb); c != 0 {
		return c < 0
	}
	return a.Name < b.Name
}
