package rbac

import (
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheme"
)

// Register adds the rbac.authorization.k8s.io/v1 kinds to s: roles and
// rolebindings (namespaced), clusterroles and clusterrolebindings
// (cluster-scoped), none with short names, as Kubernetes serves them. It
// panics if a kind is already registered (a wiring bug).
func Register(s *scheme.Scheme) {
	gv := meta.GroupVersion{Group: GroupName, Version: Version}
	s.MustRegister(
		scheme.Type{
			Kind: gv.WithKind("Role"), Resource: "roles", Namespaced: true,
			New:      func() meta.Object { return &Role{} },
			NewList:  func() meta.ListObject { return &RoleList{} },
			Validate: func(o meta.Object) field.ErrorList { return ValidateRole(o.(*Role)) },
			ValidateUpdate: func(o, old meta.Object) field.ErrorList {
				return ValidateRoleUpdate(o.(*Role), old.(*Role))
			},
		},
		scheme.Type{
			Kind: gv.WithKind("ClusterRole"), Resource: "clusterroles",
			New:      func() meta.Object { return &ClusterRole{} },
			NewList:  func() meta.ListObject { return &ClusterRoleList{} },
			Validate: func(o meta.Object) field.ErrorList { return ValidateClusterRole(o.(*ClusterRole)) },
			ValidateUpdate: func(o, old meta.Object) field.ErrorList {
				return ValidateClusterRoleUpdate(o.(*ClusterRole), old.(*ClusterRole))
			},
		},
		scheme.Type{
			Kind: gv.WithKind("RoleBinding"), Resource: "rolebindings", Namespaced: true,
			New:      func() meta.Object { return &RoleBinding{} },
			NewList:  func() meta.ListObject { return &RoleBindingList{} },
			Default:  func(o meta.Object) { DefaultRoleBinding(o.(*RoleBinding)) },
			Validate: func(o meta.Object) field.ErrorList { return ValidateRoleBinding(o.(*RoleBinding)) },
			ValidateUpdate: func(o, old meta.Object) field.ErrorList {
				return ValidateRoleBindingUpdate(o.(*RoleBinding), old.(*RoleBinding))
			},
		},
		scheme.Type{
			Kind: gv.WithKind("ClusterRoleBinding"), Resource: "clusterrolebindings",
			New:     func() meta.Object { return &ClusterRoleBinding{} },
			NewList: func() meta.ListObject { return &ClusterRoleBindingList{} },
			Default: func(o meta.Object) { DefaultClusterRoleBinding(o.(*ClusterRoleBinding)) },
			Validate: func(o meta.Object) field.ErrorList {
				return ValidateClusterRoleBinding(o.(*ClusterRoleBinding))
			},
			ValidateUpdate: func(o, old meta.Object) field.ErrorList {
				return ValidateClusterRoleBindingUpdate(o.(*ClusterRoleBinding), old.(*ClusterRoleBinding))
			},
		},
	)
}
