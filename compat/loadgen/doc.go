// Package loadgen is a load generator built on client-go, measuring the
// API server as client-go users see it (issue 20): every request goes
// through the typed clientset with JSON bodies and client-side rate
// limits lifted. Its modes:
//
//	Creates      N ConfigMaps of 1 KiB from W goroutines: creates/s, latency p50/p99
//	WatchLatency W watchers, each on its own TLS connection with a field
//	             selector, one writer updating one ConfigMap every interval:
//	             write sent → event received p50/p99, events missing
//	InformerSync N objects, then a fresh shared informer: time to HasSynced
//	Schedule     N Nodes registered with status by a client-go node agent,
//	             M pods from W writers: first create → last bound (and Running)
//
// Each mode is a function taking a Config (the server's rest.Config and
// the mode's sizes) and returning a Result; cmd/loadgen runs them from the
// command line against an in-process orkit or any kubeconfig. The modes
// own every goroutine they start and return when done or when ctx ends.
package loadgen
