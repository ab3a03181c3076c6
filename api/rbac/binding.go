package rbac

import "github.com/orkit/orkit/api/meta"

// Subject kinds.
const (
	// ServiceAccountKind subjects live in the core group ("" apiGroup) and
	// name a namespace.
	ServiceAccountKind = "ServiceAccount"
	// UserKind subjects name a user in the rbac.authorization.k8s.io group.
	UserKind = "User"
	// GroupKind subjects name a group in the rbac.authorization.k8s.io group.
	GroupKind = "Group"
)

// Subject is who a binding grants the role to: a user, a group or a
// service account.
type Subject struct {
	// Kind is User, Group or ServiceAccount.
	Kind string `json:"kind"`
	// APIGroup is "" for ServiceAccount and "rbac.authorization.k8s.io"
	// for User and Group (defaulted so).
	APIGroup string `json:"apiGroup,omitempty"`
	// Name of the user, group or service account.
	Name string `json:"name"`
	// Namespace of a service account; empty for users and groups. In a
	// RoleBinding an empty namespace means the binding's namespace.
	Namespace string `json:"namespace,omitempty"`
}

// RoleRef names the role a binding grants. It cannot change after the
// binding is created.
type RoleRef struct {
	// APIGroup is always "rbac.authorization.k8s.io" (defaulted so).
	APIGroup string `json:"apiGroup"`
	// Kind is Role or ClusterRole (ClusterRole only in a ClusterRoleBinding).
	Kind string `json:"kind"`
	// Name of the role.
	Name string `json:"name"`
}

// RoleBinding grants a Role, or a ClusterRole's rules, to subjects within
// the binding's namespace.
type RoleBinding struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Subjects        []Subject `json:"subjects,omitempty"`
	RoleRef         RoleRef   `json:"roleRef"`
}

// RoleBindingList is a list of RoleBindings.
type RoleBindingList = meta.List[RoleBinding]

// ClusterRoleBinding grants a ClusterRole to subjects in every namespace and
// on non-resource URLs.
type ClusterRoleBinding struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Subjects        []Subject `json:"subjects,omitempty"`
	RoleRef         RoleRef   `json:"roleRef"`
}

// ClusterRoleBindingList is a list of ClusterRoleBindings.
type ClusterRoleBindingList = meta.List[ClusterRoleBinding]
