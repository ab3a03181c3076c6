// Package testnode is a test helper that plays the node agent for
// controller tests, without containers: it registers Node objects (Ready,
// with capacity, renewing their Leases), binds unscheduled pods to them
// round-robin when asked to (as a scheduler would, through pods/binding),
// reports bound pods Running and Ready (pod IP from a fake range,
// container statuses, conditions, start time) after an optional delay, and
// confirms graceful deletions by deleting with grace period 0.
//
// Tests steer it per pod with a Fate function: keep a pod Pending, or
// Running but not Ready, to hold a rollout where they want it; AddNode
// and RemoveNode change the set of nodes while it runs (RemoveNode
// without deleting the Node object leaves a silent node, as a crash
// would).
//
//	agent, _ := testnode.New(c, testnode.Config{Nodes: 3, Bind: true})
//	go agent.Run(ctx) // every goroutine stops when ctx ends
//
// Nothing here talks to anything but the API server: the node addresses
// and pod IPs are never contacted.
package testnode
