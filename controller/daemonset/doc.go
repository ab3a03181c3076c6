// Package daemonset is the DaemonSet controller: one pod per eligible
// node, kept as nodes come and go, rolled to a new template node by node.
//
//	DaemonSet ──▶ revision (ControllerRevision named <set>-<hash>)
//	          ──▶ for every node: should it run a pod?  (nodeSelector, required node affinity,
//	                 NoSchedule/NoExecute taints against the template's tolerations plus the
//	                 daemon tolerations every DaemonSet pod gets)
//	                 yes, none there  ─▶ create one, pinned to the node by node affinity
//	                                      (matchFields metadata.name); the scheduler binds it
//	                 yes, several     ─▶ delete all but the oldest
//	                 failed pod       ─▶ delete (recreated next pass)
//	                 no, pods there   ─▶ delete them
//	          ──▶ pods of nodes that no longer exist: delete
//	          ──▶ RollingUpdate: delete old-template pods while at most maxUnavailable
//	                 nodes lack an available pod; or, with maxSurge, start the new pod
//	                 beside the old one on at most maxSurge nodes at a time and delete
//	                 the old one once the new one is available
//	          ──▶ status (desired, current, misscheduled, ready, available, updated)
//
// Creations are counted with controller.Expectations so that a stale
// cache never causes two pods for one node. This follows Kubernetes'
// DaemonSet controller, written from its documentation.
package daemonset
