// Package storetest is the conformance suite for store.Interface: every
// backend's tests call Run (semantics, concurrency, watch ordering,
// compaction, slow watchers, bad input) and, if its data lives in files,
// RunDurable (reopen, and a crash test that SIGKILLs a writing child
// process and checks every acknowledged write survived).
//
// Progress events (store.EventProgress) are advisory: the Progress case
// checks that they never overtake an event, and the other cases watch
// through a filter that hides them.
//
// The suite uses only the public contract; it makes no timing assertions
// (waits poll with generous deadlines) and runs under -race.
package storetest
