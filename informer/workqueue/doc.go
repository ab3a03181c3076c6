// Package workqueue owns the work queue that sits between informers and
// controllers: a de-duplicating, rate-limited, delaying queue of keys.
//
// A controller's event handlers Add keys (usually "namespace/name"); its
// workers Get a key, reconcile, then call Done, and either Forget the key
// (success) or AddRateLimited it (retry with per-key exponential backoff
// capped by an overall token bucket).
//
// Guarantees, as client-go's util/workqueue gives them:
//
//   - A key added several times before a worker takes it is handed out once.
//   - A key is never held by two workers at once: a key added while it is
//     being processed is queued again only after Done.
//   - Keys are handed out in the order they first became ready.
//
// Time comes from an injectable Clock so tests drive delays with a FakeClock.
// Metrics are Prometheus collectors the owner registers; nothing is global.
package workqueue
