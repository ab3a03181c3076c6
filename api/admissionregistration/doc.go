// Package admissionregistration holds the InitializerConfiguration kind of
// admissionregistration.k8s.io/v1alpha1, as Kubernetes 1.7–1.13 had it: a
// cluster-scoped list of named initializers and the resources each one acts
// on. The API server reads these to fill metadata.initializers.pending of new
// objects (see DESIGN.md, "initializers").
//
// Types marshal to JSON exactly as Kubernetes did. Values are plain data with
// no internal synchronisation.
package admissionregistration
