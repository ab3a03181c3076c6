// Package nodelifecycle watches node heartbeats and cleans up after
// nodes and pods: the node lifecycle controller and the pod garbage
// collector.
//
//	Node lifecycle (per node, on node and Lease events and on a timer):
//	  last heartbeat = newest of the kube-node-lease Lease's renewTime and
//	                   the Ready condition's lastHeartbeatTime; the grace period
//	                   runs from when the controller saw it change (its own clock)
//	  older than GracePeriod ─▶ Ready (and pressure conditions) = Unknown;
//	                             taint node.kubernetes.io/unreachable:NoSchedule and
//	                             :NoExecute, its pods Ready=False — but no NoExecute
//	                             when no node of its zone is Ready (full disruption:
//	                             nothing is evicted)
//	  fresh and Ready=False  ─▶ taint node.kubernetes.io/not-ready:NoSchedule and :NoExecute
//	  fresh and Ready=True   ─▶ remove those taints
//	  NoExecute taints       ─▶ evict (delete) the node's pods that do not tolerate
//	                             them once tolerationSeconds (DefaultTolerationSeconds
//	                             for pods with no matching toleration) have passed
//	                             since the taint was added; their owners recreate them
//
//	Pod GC (every Period):
//	  pods bound to nodes that do not exist (confirmed by a live GET) ─▶ force delete
//	  unscheduled pods being deleted                                  ─▶ force delete
//	  terminated pods beyond TerminatedPodThreshold                   ─▶ delete, oldest first
//
// Both follow Kubernetes' node lifecycle controller (with its taint
// manager) and pod GC controller, written from their documentation.
package nodelifecycle
