// Package client is the Go client of the orkit API server (and of any
// Kubernetes API server): kubeconfig loading (Config, ConfigFromKubeconfig),
// a REST core with rate limiting and retries, discovery with a disk cache
// and a RESTMapper, client-side validation, typed generic access
// (For[T]), untyped access (Dynamic), watches, and the pods subresources
// (Bind, GetLogs).
package client
