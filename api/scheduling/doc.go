// Package scheduling holds the scheduling.k8s.io/v1 PriorityClass kind, the
// system priority classes, and PriorityClass defaulting, validation and
// scheme registration.
//
// PriorityClass marshals to JSON exactly as Kubernetes' scheduling/v1.
// Values are plain data with no internal synchronisation.
package scheduling
