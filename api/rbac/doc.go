// Package rbac holds the rbac.authorization.k8s.io/v1 kinds — Role,
// ClusterRole, RoleBinding, ClusterRoleBinding — with their defaulting,
// validation and scheme registration, and the pure rule-matching functions
// (RuleAllows, RuleAllowsNonResource) the RBAC authorizer is built from.
//
// Types marshal to JSON exactly as Kubernetes' rbac/v1 for every field they
// carry. Values are plain data with no internal synchronisation: share them
// read-only or copy them (meta.DeepCopy).
package rbac
