// Package clientgo holds the tests that drive orkit's control plane with
// client-go itself (k8s.io/client-go, the version compat/go.mod names):
// shared informers with the default feature gates (WatchList streaming)
// and without WatchList, under concurrent writers, forced 410s and API
// server restarts. It has no code of its own.
package clientgo
