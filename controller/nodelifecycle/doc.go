// Package nodelifecycle watches node heartbeats and taints and evicts
// from nodes that stop sending them: the node lifecycle controller with
// its taint manager. The pod garbage collector is in controller/podgc.
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
// It follows Kubernetes' node lifecycle controller (with its taint
// manager), written from its documentation.
package nodelifecycle
