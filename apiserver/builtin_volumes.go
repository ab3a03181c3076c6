package apiserver

import (
	"context"
	"time"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

// persistentVolumeStrategy starts a new PersistentVolume Pending, with
// its phase transition time, and moves that time when a status update
// changes the phase, as kube-apiserver's strategies do.
type persistentVolumeStrategy struct {
	*DefaultStrategy
	now func() time.Time
}

// PrepareForCreate clears the status the client sent and makes the
// volume Pending as of now.
func (s *persistentVolumeStrategy) PrepareForCreate(ctx context.Context, obj meta.Object) {
	s.DefaultStrategy.PrepareForCreate(ctx, obj)
	now := meta.NewTime(s.now())
	obj.(*core.PersistentVolume).Status = core.PersistentVolumeStatus{Phase: core.VolumePending, LastPhaseTransitionTime: &now}
}

// PrepareForUpdate keeps the stored phase transition time while the
// phase stays and the client sends none, and sets it to now when a
// status update changes the phase without moving it.
func (s *persistentVolumeStrategy) PrepareForUpdate(ctx context.Context, obj, old meta.Object, subresource string) {
	s.DefaultStrategy.PrepareForUpdate(ctx, obj, old, subresource)
	if subresource != "status" {
		return
	}
	st, ost := &obj.(*core.PersistentVolume).Status, &old.(*core.PersistentVolume).Status
	switch {
	case st.Phase == ost.Phase && st.LastPhaseTransitionTime == nil:
		st.LastPhaseTransitionTime = ost.LastPhaseTransitionTime
	case st.Phase != ost.Phase && (st.LastPhaseTransitionTime == nil || sameTime(st.LastPhaseTransitionTime, ost.LastPhaseTransitionTime)):
		now := meta.NewTime(s.now())
		st.LastPhaseTransitionTime = &now
	}
}

// persistentVolumeClaimStrategy starts a new claim Pending. kube-apiserver
// stores an empty status and fills Pending when it reads the claim back
// (the v1 default), so clients see the same.
type persistentVolumeClaimStrategy struct {
	*DefaultStrategy
}

// PrepareForCreate clears the status the client sent and makes the claim
// Pending.
func (s *persistentVolumeClaimStrategy) PrepareForCreate(ctx context.Context, obj meta.Object) {
	s.DefaultStrategy.PrepareForCreate(ctx, obj)
	obj.(*core.PersistentVolumeClaim).Status = core.PersistentVolumeClaimStatus{Phase: core.ClaimPending}
}
