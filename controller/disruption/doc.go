// Package disruption is the disruption controller: it keeps the status of
// every PodDisruptionBudget — how many of its pods are healthy, how many
// must stay healthy, and so how many evictions the API server may allow —
// as Kubernetes' does.
//
//	PDB / Pod / ReplicaSet / Deployment / StatefulSet event ──▶ queue ──▶ Reconcile(ns/name)
//	    pods     = the namespace's pods the selector matches (nil: none, {}: all)
//	    expected = maxUnavailable or a percentage minAvailable: the sum of the
//	               pods' controllers' replicas (a ReplicaSet owned by a
//	               Deployment counts the Deployment's); an integer
//	               minAvailable: the pod count
//	    desired  = minAvailable, or expected - maxUnavailable (percentages round up)
//	    healthy  = Ready pods, not being deleted, not in disruptedPods
//	    allowed  = healthy - desired (0 when expected is 0)
//	    status   = observedGeneration, the counts, disruptedPods without the
//	               entries of deleted pods and those older than DeletionTimeout,
//	               condition DisruptionAllowed (SufficientPods / InsufficientPods)
//	    failure  = allowed 0, DisruptionAllowed False with reason SyncFailed
//
// The API server's pods/eviction handler is the other writer of the
// status: it decrements disruptionsAllowed and records the evicted pod in
// disruptedPods, so that the next eviction does not count it as healthy
// before its deletion reaches this controller. ComputeStatus is the pure
// decision, tested without the framework.
package disruption
