package statefulset

import (
	"context"
	"fmt"
	"slices"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
)

// claimOwners returns the ownerReferences a claim of ordinal should have
// under the set's persistentVolumeClaimRetentionPolicy, given the ones it
// has: references to the set and to pods of the ordinal are recomputed
// (the condemned pod alone when whenScaled=Delete, else the set when
// whenDeleted=Delete), others are kept. The garbage collector then
// deletes the claim with its owner. It is a pure function.
func claimOwners(set *apps.StatefulSet, have []meta.OwnerReference, ord int, condemned *core.Pod) []meta.OwnerReference {
	podName := PodName(set, ord)
	out := slices.DeleteFunc(slices.Clone(have), func(r meta.OwnerReference) bool {
		return (r.Kind == "StatefulSet" && r.UID == set.UID) || (r.Kind == "Pod" && r.APIVersion == "v1" && r.Name == podName)
	})
	no := false
	p := set.Spec.PersistentVolumeClaimRetentionPolicy
	switch {
	case p != nil && p.WhenScaled == apps.DeletePersistentVolumeClaimRetentionPolicyType && condemned != nil:
		// The pod alone: with the set as a second owner the collector
		// would keep the claim.
		out = append(out, meta.OwnerReference{APIVersion: "v1", Kind: "Pod", Name: condemned.Name, UID: condemned.UID,
			Controller: &no, BlockOwnerDeletion: &no})
	case p != nil && p.WhenDeleted == apps.DeletePersistentVolumeClaimRetentionPolicyType:
		ref := controllerRef(set)
		ref.Controller, ref.BlockOwnerDeletion = &no, &no
		out = append(out, ref)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// syncClaimOwners gives the existing claims of ordinal the owners the
// retention policy asks for (condemned: the pod about to be deleted for a
// scale-down, nil otherwise).
func (s *pass) syncClaimOwners(ctx context.Context, ord int, condemned *core.Pod) error {
	for _, t := range s.set.Spec.VolumeClaimTemplates {
		name := ClaimName(s.set, t.Name, ord)
		pvc, err := s.c.claims.Get(s.set.Namespace, name)
		if err != nil {
			continue // not made yet, or gone
		}
		want := claimOwners(s.set, pvc.OwnerReferences, ord, condemned)
		if slices.EqualFunc(want, pvc.OwnerReferences, sameRef) {
			continue
		}
		next := meta.DeepCopy(pvc)
		next.OwnerReferences = want
		_, err = client.For[core.PersistentVolumeClaim](s.c.client, s.set.Namespace).Update(ctx, next)
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("set owners of claim %s/%s: %w", s.set.Namespace, name, err)
		}
	}
	return nil
}

func sameRef(a, b meta.OwnerReference) bool {
	return a.UID == b.UID && a.Kind == b.Kind && a.Name == b.Name && a.APIVersion == b.APIVersion &&
		boolOf(a.Controller) == boolOf(b.Controller) && boolOf(a.BlockOwnerDeletion) == boolOf(b.BlockOwnerDeletion)
}

func boolOf(b *bool) bool { return b != nil && *b }
