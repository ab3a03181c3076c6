// Package scheduler places pods: it watches pods and nodes through the
// API server, and for every pending pod whose spec.schedulerName names
// one of its profiles it filters the nodes with predicates, ranks the
// survivors with priorities, and posts a Binding for the best one.
//
// The pieces, each usable on its own:
//
//   - Queue: pending pods by priority then age, with backoff (1 s doubling
//     to 10 s) and an unschedulable set moved only by events that could
//     help (node added or changed, pod deleted, ...).
//   - Cache: every node's NodeInfo, counting bound pods and assumed ones
//     (placed, binding in flight), with expiry of assumptions the informer
//     never confirms; it brings a framework.Snapshot up to date by copying
//     only the nodes changed since the last cycle.
//   - the algorithm: adaptive search (Kubernetes' percentage of nodes to
//     score), filtering and scoring in parallel, random tie-break, and the
//     "0/N nodes are available: ..." FitError.
//   - Preemption: the PostFilter that evicts the smallest set of
//     lower-priority pods on one node and nominates it.
//   - Simulator: the same algorithm against an in-memory snapshot, no
//     binding, for capacity planning.
//   - Extender: out-of-process filter and prioritize over HTTP/JSON.
//   - Scheduler: the loop that ties them to the API server, binding
//     asynchronously and writing Events and PodScheduled conditions.
//
// Plugin contracts live in scheduler/framework and the built-in plugins
// in scheduler/plugins; the scheduler depends only on api, client and
// informer. See README.md for the pipeline drawn out.
package scheduler
