// Package podgc is the pod garbage collector, Kubernetes' pod GC
// controller written from its documentation:
//
//	every Period:
//	  pods bound to nodes that do not exist (confirmed by a live GET) ─▶ force delete
//	  unscheduled pods being deleted                                  ─▶ force delete
//	  terminated pods beyond TerminatedPodThreshold                   ─▶ delete, oldest first
package podgc
