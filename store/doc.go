// Package store defines orkit's durable, revisioned, watchable key-value
// storage, modelled on etcd's: one global revision that every write
// increments, compare-and-swap on a key's modification revision, consistent
// paginated lists, and watches that replay history from any revision not yet
// compacted.
//
// Compactor compacts any Interface on an interval as kube-apiserver
// compacts etcd (the API server runs one): it keeps one interval of
// history, and several compactors on one store take turns through a
// compare-and-swap on CompactKey.
//
// Interface is the contract; store/bbolt is the default embedded backend,
// store/etcd the distributed one on an etcd v3 cluster, and store/storetest
// is the conformance suite every backend passes.
package store
