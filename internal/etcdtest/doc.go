// Package etcdtest is the one helper tests use to get a private etcd
// cluster: Start launches N etcd members as child processes on loopback
// ports (picked free) with temporary data directories, wires them with
// --initial-cluster, waits until every member reports healthy and, on
// t.Cleanup, SIGKILLs them by PID and removes the data. Fault tests use
// Member.Kill (SIGKILL) and Member.Restart (same name, ports and data) to
// take one member down and bring it back.
//
// The etcd server binary is built from etcd's own Go module by
// scripts/setup.sh (see Version); Binary finds it through $ETCD_BIN, PATH,
// /usr/local/bin and $GOPATH/bin. Without it a test is skipped with the
// exact reason; with the environment variable CI=true it fails instead, the
// convention of internal/testenv.Unavailable (not imported here, so store
// tests do not link the containerd client).
//
// Members run with --max-request-bytes raised to MaxRequestBytes so a value
// of store.MaxValueSize fits in one request, as store/etcd requires, and
// with a 2 s election timeout (etcd's default is 1 s) so CPU starvation on
// a loaded machine does not cause spurious leader changes.
package etcdtest
