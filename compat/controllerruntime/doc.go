// Package controllerruntime holds the tests that run controller-runtime
// (sigs.k8s.io/controller-runtime, the version compat/go.mod names)
// against orkit's control plane. It has no code of its own.
package controllerruntime
