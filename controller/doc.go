// Package controller is orkit's controller framework: the loop that turns
// what informers see into calls of a Reconciler, and the pieces every
// controller needs around it.
//
//	informer ──event──▶ Mapper ──Request{ns,name}──▶ workqueue ──▶ workers ──▶ Reconciler.Reconcile
//	   ▲                                                  ▲                          │
//	   └──────── list+watch (client) ◀── API server        └── retry (rate-limited) ◀─┘
//
// The pieces:
//
//   - Reconciler, ReconcilerFunc, Request, Result, TerminalError: the one
//     verb a controller implements. Requests are keys only (level-based):
//     a reconciler reads the current state from its listers.
//   - Controller (New, Watch, WatchObjects, WatchOwned, Mapper): a queue and
//     workers fed by informer handlers; errors retry with backoff (a 409
//     Conflict quietly: it is optimistic concurrency, not a failure),
//     Result.RequeueAfter delays, terminal errors are not retried, panics
//     are recovered. Metrics are Prometheus collectors the owner registers.
//   - Expectations: how many creations and deletions a controller is still
//     waiting to see in its cache, so it does not act twice on stale data.
//   - ClaimObjects, Claim, EnqueueSelectingOwners: adoption and release of
//     dependents by their controlling owner, one helper for every owner.
//   - LeaderElector: one active instance among several, on a
//     coordination.k8s.io/v1 Lease with optimistic concurrency.
//   - Manager: shared informers over a client (InformerFor, through
//     informer.ForResource), controllers run while leading, orderly
//     shutdown, Ready and Healthy checks.
//
// Built-in controllers live in subpackages (controller/<name>), each made
// by New(m, Config) (*Controller, error) on a Manager; nothing registers
// itself. controller/standard adds the standard set in one call.
//
// The model is controller-runtime's pkg/reconcile and pkg/builder, without
// a manager that owns everything: a Controller runs on its own, and a
// Manager is a convenience that starts informers and controllers together.
package controller
