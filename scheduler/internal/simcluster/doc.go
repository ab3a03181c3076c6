// Package simcluster starts an in-process API server with simulated nodes
// (Node objects with capacity, no kubelet) for the scheduler's integration
// tests and end-to-end benchmark, and creates pods in parallel.
package simcluster
