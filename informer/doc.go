// Package informer owns the client-side cache of API objects: the
// reflector that lists and watches a resource, the indexed store that
// holds the objects, typed listers over it, shared informers that fan
// events out to handlers, and a factory that keeps one informer per
// resource per process. The work queue controllers feed from handlers is
// in the workqueue subpackage.
//
// The pipeline, as client-go's tools/cache draws it:
//
//	API server ──list+watch──▶ Reflector ──diff/apply──▶ Indexer (cache)
//	                                              └──notify──▶ listener ──▶ Handler
//	                                              └──notify──▶ listener ──▶ Handler
//
// The Reflector lists in pages of 500, then watches from the list's
// resourceVersion with bookmarks. A dropped watch resumes from the last
// resourceVersion it saw, with backoff. A 410 (reason Expired: the
// resourceVersion is older than the server keeps; or Gone) makes it list
// again, and the Informer hands handlers only the differences against its
// cache: adds, updates of objects whose resourceVersion changed, and
// deletes of objects that are gone as DeletedFinalStateUnknown tombstones.
//
// Each handler has its own goroutine and its own unbounded buffer, so a
// slow handler delays nobody else; Informer.Pending reports the backlog.
//
// The package builds on the client package: it talks to the server through
// the small ListerWatcher interface, the one list/watch seam of orkit, whose
// options and events are the client's. ResourceListerWatcher implements it
// over a client.Resource (typed or dynamic), and ForResource makes a
// factory's informer with it; tests feed informers through their own.
package informer
