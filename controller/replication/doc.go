// Package replication is the replication controller: it keeps
// spec.replicas pods matching each core/v1 ReplicationController's
// selector running, with the ReplicaSet controller's logic
// (controller/replicaset) over each ReplicationController seen as the
// ReplicaSet it behaves as, as kube-controller-manager's replication
// manager does:
//
//	ReplicationController/Pod event ──▶ queue ──▶ Reconcile(ns/name)
//	    view   = replicaset.ReplicaSetView(rc): selector map → matchLabels
//	    claim  = adopt matching orphans, release pods that no longer match
//	    manage = create (slow-start batches) or delete pods to spec.replicas
//	    status = replicas, fullyLabeled, ready, available, observedGeneration,
//	             ReplicaFailure, written as the ReplicationController's status
//
// Pods carry a v1 ReplicationController controller reference, and the
// Events (SuccessfulCreate, SuccessfulDelete, FailedCreate) name the
// ReplicationController, from the "replication-controller" component.
package replication
