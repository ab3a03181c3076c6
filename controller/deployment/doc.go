// Package deployment is the Deployment controller: it rolls a
// Deployment's pod template out through ReplicaSets, as Kubernetes' does,
// so that kubectl rollout status, undo and history and kubectl scale work
// unchanged.
//
//	Deployment/ReplicaSet/Pod event ──▶ queue ──▶ Reconcile(ns/name)
//	    claim ReplicaSets (adopt orphans the selector matches)
//	    new ReplicaSet = the one whose template equals spec.template
//	                     (name <deployment>-<pod-template-hash>)
//	    ├─ paused, or a scaling event: scale proportionally, update status
//	    ├─ Recreate: old to 0, wait for their pods to go, new to replicas
//	    └─ RollingUpdate: new up within maxSurge, old down within
//	                      maxUnavailable, repeat as pods become available
//	    revisions (deployment.kubernetes.io/revision), history limit,
//	    conditions Progressing (deadline) and Available, status
//
// A rollback (kubectl rollout undo) writes an old ReplicaSet's template
// back into the Deployment; that ReplicaSet becomes the new one again and
// gets the next revision.
package deployment
