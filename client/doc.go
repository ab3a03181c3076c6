// Package client is the Go client of the orkit API server: kubeconfig
// loading, and (as it grows) discovery, typed and untyped access, watches
// and rate limiting.
package client
