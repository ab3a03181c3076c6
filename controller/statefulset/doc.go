// Package statefulset is the StatefulSet controller: pods with stable
// identities (<set>-<ordinal>, hostname and subdomain), one
// PersistentVolumeClaim per ordinal and volume claim template, created and
// deleted in ordinal order.
//
//	StatefulSet ──▶ revisions (ControllerRevision per pod template: current, update)
//	            ──▶ for each ordinal 0..replicas-1, in order:
//	                  claims exist? ─no─▶ create <template>-<set>-<ordinal>
//	                  pod exists?   ─no─▶ create <set>-<ordinal> (update revision, or current below the partition)
//	                  OrderedReady: stop until it is Running and Ready
//	            ──▶ ordinals ≥ replicas: delete, highest first (OrderedReady: one at a time)
//	            ──▶ RollingUpdate: replace the highest pod ≥ partition not at the update revision
//	            ──▶ status (replicas, ready, available, current/updated, revisions)
//
// Claims are kept on scale-down and when the set is deleted (the
// default Retain policy). With persistentVolumeClaimRetentionPolicy
// whenDeleted=Delete they carry an ownerReference to the set, and with
// whenScaled=Delete a condemned pod's claims are handed to the pod before
// it is deleted, so the garbage collector removes them with their owner. This follows Kubernetes' StatefulSet controller, written from its
// documentation.
package statefulset
