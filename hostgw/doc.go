// Package hostgw keeps a node's host-gateway routes: for every other Node
// of the cluster, a route to that node's pod CIDRs via that node's host
// address (its InternalIP), as kindnet and kube-router's host-gw mode do.
// With these routes a pod on node A reaches a pod on node B by its pod IP
// when the nodes share a layer-2 network (one hop: the other node's
// address must be on a link of this host).
//
// The pieces:
//
//   - Desired, a pure function from the Node objects to the routes this
//     node needs (tested without a kernel);
//   - Table, the routes this package owns in a kernel routing table,
//     marked with RouteProtocol so they are told from everyone else's
//     (List, Replace, Delete through netlink, in the network namespace of
//     the handle it was made with);
//   - Router, which watches the Nodes (an informer) and makes the Table
//     equal to Desired after every change and at every resync.
//
// Routes outlive the Router, as pods outlive a kubelet: a Router that
// stops leaves them, one that starts takes them over (they carry its
// protocol) and removes those no Node wants any more.
package hostgw
