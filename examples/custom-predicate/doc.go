// Command custom-predicate shows how to plug your own scheduling logic
// into orkit's scheduler: a predicate (ZonePinned) that keeps a pod
// labelled zone-pinned=<zone> on the nodes of that zone, and a priority
// (ZoneSpread) that prefers the zones holding the fewest pods of the
// pod's app. Both read the node label topology.kubernetes.io/zone.
//
// They are added to the built-in default profile (Profile), which the
// scheduler runs for every pod that names no other scheduler. The program
// starts a control plane, registers a few nodes spread over zones and runs
// the scheduler with that profile until Ctrl-C:
//
//	go run ./examples/custom-predicate --data-dir /tmp/zones
//
// The nodes are Node objects only (no kubelet runs), so pods are bound
// and then stay Pending: `kubectl get pods -o wide` shows the placement.
package main
