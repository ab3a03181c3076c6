// Package garbagecollector is orkit's garbage collector: it keeps a graph
// of ownerReferences over every resource the API server serves (built-in
// and user-defined, found through discovery and followed with dynamic
// informers) and deletes what lost its owners.
//
//	discovery ──▶ one dynamic informer per resource ──event──▶ graph (uid → owners, owner → dependents)
//	                                                               │
//	                                   queue of UIDs ◀─────────────┘
//	                                        │
//	        ┌───────────────────────────────┼─────────────────────────────────┐
//	        ▼                               ▼                                 ▼
//	  owner has "orphan":           owner has "foregroundDeletion":    dependent whose owners are
//	  strip its ownerReferences     delete dependents, wait for the    all gone (checked by a live
//	  from dependents, then drop    blocking ones, then drop the       GET by UID): delete it
//	  the finalizer                 finalizer                          (background cascading)
//
// The API server adds the orphan and foregroundDeletion finalizers for
// the Orphan and Foreground propagation policies and keeps the object
// until they are removed; Background deletion removes the owner at once
// and the collector removes the dependents afterwards. This is the
// behaviour of Kubernetes' garbage collector, written from its
// documentation.
package garbagecollector
