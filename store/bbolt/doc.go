// Package bbolt is orkit's default store.Interface backend: an embedded,
// durable, revisioned and watchable key-value store in one bbolt file.
//
// # Layout
//
// The file holds three buckets (see codec.go for the byte layout):
//
//   - orkit.meta: schema magic and version, the current revision, the
//     compacted revision and how far that compaction's deletions got;
//   - orkit.keys: every live key → create revision, mod revision, value;
//   - orkit.history: revision → the event written at it (type, key, value,
//     create revision, previous mod revision). It is an append-only MVCC log.
//
// Get and a List at the current revision read orkit.keys. A List at a past
// revision R reads orkit.keys and undoes the writes after R: the first
// history record after R for a key names (by its previous mod revision) the
// version that was current at R. A Watch replays orkit.history from its
// start revision, looking up Prev the same way, then switches to live
// events. Compact(rev) keeps, for each key, its newest version at or
// before rev, and deletes every older version and every delete record at or
// before rev, so both paths stay answerable for every revision ≥ rev.
//
// # Space
//
// Compaction deletes history records in short transactions; bbolt reuses
// the pages they free, so under steady churn with periodic compaction
// (the API server compacts every 5 minutes) the file stops growing, but it
// never shrinks. Defragment, offline, copies the live data into a fresh
// file and renames it over the store, giving the freed space back.
//
// # Writes: group commit
//
// Writers validate their input (store.ValidateKey, store.ValidateValue:
// nothing is queued for bad input), append an op to the Store's queue and
// wait. One committer goroutine, owned by the Store, takes everything
// queued (up to Config.MaxBatchOps / MaxBatchBytes), applies each op in
// order inside ONE bbolt read-write transaction — each op checks its own
// precondition, so a conflicting op fails alone and takes no revision —
// commits (bbolt fsyncs the data and then the meta page), publishes the
// events to watchers, and wakes each writer with its own revision. It then
// yields the processor while the writers it just woke are still queueing
// (a few scheduler rounds, no timer) and starts the next transaction with
// whatever queued meanwhile: there is no batching delay, and the more
// writers wait, the more each fsync carries (Stats reports the mean batch). A storage error fails every op of that transaction and writes
// none of them.
//
// # Watch fan-out
//
// Live watchers are grouped by prefix in a hub; after each commit the
// committer hands each matching watcher its events without blocking:
// straight into the watch channel (16 slots) while the watcher's goroutine
// is idle, else into a bounded pending buffer (Config.WatchBuffer) that
// the goroutine drains in order; a watcher whose buffer would overflow is removed
// and, after its pending events, receives a final Event with
// store.ErrWatcherTooSlow. Writers and other watchers never wait for a
// watcher. A watch starting in the past replays history in short read
// transactions from its own goroutine (it is "unsynced" and not in the
// hub, so a slow replay stalls nobody) and joins the hub under the hub's
// lock once it has delivered every published revision; live events at or
// below the revision it replayed through are skipped, so there is no gap
// and no duplicate. A live watcher whose prefix a commit did not touch is
// told how far the store got with a store.EventProgress; progress is
// coalesced (only the latest is sent, after any pending events) and wakes
// an idle watcher at most once per Config.ProgressInterval, so a thousand
// idle watchers cost a commit little.
//
// # Keys, files and failure
//
// Keys follow store.ValidateKey (at most store.MaxKeySize = 1 KiB, "/"
// separated, no empty, "." or ".." segment, no NUL); values at most
// store.MaxValueSize. Open checks the pages bbolt reads while opening (both
// meta pages, the root and the freelist page) itself, so a foreign,
// truncated or damaged header fails with store.ErrCorrupt before bbolt maps
// the file; it then checks the schema and, by default, runs bbolt's
// page-level check over the whole file. Every bbolt call runs under a guard
// that turns a panic or a memory fault into store.ErrCorrupt. One invalid
// meta page of two is a crash during a commit (or a damaged page), which
// bbolt tolerates by serving the other page's, older, transaction: Open
// compares both pages before bbolt maps the file, rewrites the invalid one
// and logs a warning naming the lost transaction (the one after the valid
// page's) and the revision the store went back to, then goes on. The file
// lock makes a second Open, in any process, wait Config.LockTimeout and
// fail with ErrLocked, naming the process that holds the file.
package bbolt
