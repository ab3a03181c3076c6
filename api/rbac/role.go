package rbac

import "github.com/orkit/orkit/api/meta"

// GroupName is the API group of every kind in this package.
const GroupName = "rbac.authorization.k8s.io"

// Version is the API version of every kind in this package.
const Version = "v1"

// Wildcards a PolicyRule may use.
const (
	// APIGroupAll matches every API group.
	APIGroupAll = "*"
	// ResourceAll matches every resource and subresource.
	ResourceAll = "*"
	// VerbAll matches every verb.
	VerbAll = "*"
	// NonResourceAll matches every non-resource URL.
	NonResourceAll = "*"
)

// Label and annotation keys that RBAC bootstrapping and aggregation use.
const (
	// AutoUpdateAnnotationKey marks default roles the API server may reconcile.
	AutoUpdateAnnotationKey = "rbac.authorization.kubernetes.io/autoupdate"
	// AggregateToAdminLabel, AggregateToEditLabel and AggregateToViewLabel
	// select cluster roles aggregated into the default user-facing roles.
	AggregateToAdminLabel = "rbac.authorization.k8s.io/aggregate-to-admin"
	AggregateToEditLabel  = "rbac.authorization.k8s.io/aggregate-to-edit"
	AggregateToViewLabel  = "rbac.authorization.k8s.io/aggregate-to-view"
)

// PolicyRule grants Verbs on either resources (APIGroups × Resources,
// optionally narrowed to ResourceNames) or on NonResourceURLs, never both.
// See RuleAllows and RuleAllowsNonResource for how a request is matched.
type PolicyRule struct {
	// Verbs the rule grants ("get", "list", ...; "*" for all). Required.
	Verbs []string `json:"verbs"`
	// APIGroups the resources belong to ("" is the core group; "*" all).
	APIGroups []string `json:"apiGroups,omitempty"`
	// Resources the rule applies to: "pods", "pods/log" for a subresource,
	// "*/scale" for a subresource of every resource, "*" for all.
	Resources []string `json:"resources,omitempty"`
	// ResourceNames narrows the rule to objects with these names; empty
	// means every name.
	ResourceNames []string `json:"resourceNames,omitempty"`
	// NonResourceURLs are URL paths ("/healthz", "/api/*" as a prefix)
	// the rule applies to; valid only in a ClusterRole.
	NonResourceURLs []string `json:"nonResourceURLs,omitempty"`
}

// Role is a namespaced set of rules, granted by RoleBindings in its namespace.
type Role struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	// Rules are the grants of the role.
	Rules []PolicyRule `json:"rules"`
}

// RoleList is a list of Roles.
type RoleList = meta.List[Role]

// ClusterRole is a cluster-wide set of rules, granted by ClusterRoleBindings
// everywhere or by RoleBindings within one namespace.
type ClusterRole struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	// Rules are the grants of the role. With an AggregationRule the
	// controller owns them and overwrites what clients write.
	Rules []PolicyRule `json:"rules"`
	// AggregationRule, when set, makes Rules the union of the rules of the
	// cluster roles its selectors match.
	AggregationRule *AggregationRule `json:"aggregationRule,omitempty"`
}

// ClusterRoleList is a list of ClusterRoles.
type ClusterRoleList = meta.List[ClusterRole]

// AggregationRule selects the cluster roles whose rules a ClusterRole
// aggregates; a role matched by any selector is included.
type AggregationRule struct {
	ClusterRoleSelectors []meta.LabelSelector `json:"clusterRoleSelectors,omitempty"`
}
