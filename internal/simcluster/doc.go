// Package simcluster is a test harness: it starts an in-process control
// plane whose nodes are Node objects with capacity (no kubelet), for the
// scheduler's integration tests and end-to-end benchmark, and creates
// pods and nodes in parallel. It lives outside scheduler/ so that only the
// scheduler's _test files, never the scheduler itself, depend on the API
// server and the store.
package simcluster
