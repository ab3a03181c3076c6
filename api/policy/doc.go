// Package policy holds the policy/v1 kinds: PodDisruptionBudget, which
// limits how many pods of an application voluntary disruptions (evictions,
// `kubectl drain`) may take down at once, and Eviction, the body of the
// pods/eviction subresource. It carries validation as Kubernetes'
// policy/v1 does it, the well-known condition, reasons and cause, and
// scheme registration of PodDisruptionBudget (Eviction is not a resource
// of its own: the API server serves it as a subresource of pods).
//
// Types marshal to JSON exactly as Kubernetes' policy/v1 for every field
// they carry. Values are plain data with no internal synchronisation:
// share them read-only or copy them (meta.DeepCopy).
package policy
