// Package clusterroleaggregation is the ClusterRole aggregation
// controller: a ClusterRole with an aggregationRule (admin, edit, view,
// or one of a user's) holds the union of the rules of the ClusterRoles its
// selectors match (each selector's in name order, duplicates once, never
// its own), kept up to date as they change, as Kubernetes'
// clusterrole-aggregation controller keeps it. So a ClusterRole labelled
// rbac.authorization.k8s.io/aggregate-to-view: "true" (a CRD's operator
// ships one) grants its rules to everyone bound to view.
//
// Requests are names of aggregated ClusterRoles; the controller watches
// ClusterRoles through its manager's shared informer and writes with
// Update (its user needs "escalate" on clusterroles).
package clusterroleaggregation
