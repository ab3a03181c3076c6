// Package replicaset is the ReplicaSet controller: it keeps
// spec.replicas pods matching each ReplicaSet's selector running, as
// Kubernetes' does.
//
//	ReplicaSet/Pod event ──▶ queue ──▶ Reconcile(ns/name)
//	    claim pods (adopt matching orphans, release non-matching)
//	    ├─ too few: create in slow-start batches 1, 2, 4, … (at most Burst)
//	    ├─ too many: delete the least valuable (unscheduled, pending,
//	    │            not ready, ready for less time, restarted more, newest)
//	    └─ status: replicas, fullyLabeledReplicas, readyReplicas,
//	               availableReplicas (minReadySeconds), observedGeneration
//
// Expectations keep it from acting twice on a cache that has not yet
// seen its own creations and deletions. Pods it creates carry a
// controller ownerReference with blockOwnerDeletion.
package replicaset
