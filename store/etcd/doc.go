// Package etcd is store.Interface on an etcd v3 cluster
// (go.etcd.io/etcd/client/v3): the distributed backend, for orkit clusters
// whose API servers run as several processes on several machines.
// store/bbolt stays the embedded default; both pass store/storetest.
//
//	s, err := etcd.New(ctx, etcd.Config{
//		Endpoints: []string{"https://10.0.0.1:2379", "https://10.0.0.2:2379", "https://10.0.0.3:2379"},
//		TLS:       clientTLS, // CA pool and client certificate
//	})
//
// How the contract maps onto etcd:
//
//   - Revisions are etcd's revisions: an object's resourceVersion is its
//     etcd mod_revision, as in Kubernetes, so every Store on a cluster
//     agrees and resourceVersions are global and monotonic across API
//     servers. (etcd's empty keyspace is revision 1, so the first write is
//     revision 2.)
//   - Create, Update and Delete are single etcd transactions comparing the
//     key's CreateRevision (0: absent) and ModRevision; a failed compare
//     reads the key in its Else branch to tell store.ErrNotFound from
//     store.ErrConflict. A failed write takes no revision. Writes are not
//     retried: one whose ctx ends in flight may or may not have applied.
//   - Get, List and Revision are linearizable reads: they see every write
//     acknowledged before they began, whichever member serves them.
//   - List reads one page at one revision; its Continue token (store.
//     ContinueToken) holds that revision and the last key, so later pages
//     read the same snapshot from etcd's multi-version store. Remaining is
//     etcd's count of the keys after the page.
//   - Watch first reads at its start revision (failing at once with
//     store.ErrTooOld or store.ErrFutureRevision), then opens an etcd watch
//     with previous values and progress notifications. If the member
//     serving it dies or loses its leader (the watch requires one), the
//     watch resumes elsewhere from the last revision it delivered; a
//     compaction in between ends it with store.ErrTooOld, never a silent
//     gap. Live events beyond Config.WatchBuffer undelivered end it with
//     store.ErrWatcherTooSlow.
//   - Compact is etcd compaction, which covers the whole keyspace: Stores
//     with different Prefixes on one cluster share history and revisions.
//   - Keys and values are checked exactly as store/bbolt checks them
//     (store.ValidateKey, store.ValidateValue), so bad input gets the same
//     errors. The largest value (store.MaxValueSize, 1.5 MiB) needs etcd's
//     --max-request-bytes of at least MinMaxRequestBytes; a smaller limit
//     makes those writes fail with store.ErrTooLarge.
//
// The etcd server orkit tests with is built from etcd's own Go module
// (go.etcd.io/etcd/server/v3 v3.7.3) by scripts/setup.sh;
// internal/etcdtest starts private clusters of it for tests.
package etcd
