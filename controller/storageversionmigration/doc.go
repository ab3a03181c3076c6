// Package storageversionmigration is the storage version migration
// controller: for each storagemigration.k8s.io/v1 StorageVersionMigration
// it rewrites every stored object of the named resource through the API
// server, as kube-controller-manager's storage-version-migrator does, so
// each object is stored again as the server now encodes it.
//
// A migration goes through these steps, one per reconcile:
//
//	resource not in discovery ─▶ retried for a minute after creation, then Failed
//	no status.resourceVersion  ─▶ Running=True, resourceVersion = the resource's list RV now
//	rewrite                    ─▶ every object at or below that RV is sent an empty merge
//	                              patch carrying its own resourceVersion (conflicts and
//	                              deletions are skipped: the object was rewritten anyway)
//	done                       ─▶ Succeeded=True (Running stays True, as kube's)
//
// A patch the server refuses for another reason makes the migration
// Failed; transient errors (429, 5xx, timeouts) are retried with backoff.
// Succeeded and Failed are final. orkit stores one version of every kind
// and encrypts nothing at rest, so a rewrite of an unchanged object may
// store the same bytes again; the migration is still the way to make sure
// every object has been written by the running server.
//
// The controller reads migrations through its manager's shared informer
// and writes statuses with UpdateStatus; its identity needs list and patch
// on every resource it migrates and update on storageversionmigrations/status.
package storageversionmigration
