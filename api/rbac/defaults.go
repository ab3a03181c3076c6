package rbac

// DefaultSubject fills s.APIGroup when empty: "" for service accounts,
// GroupName for users and groups, as Kubernetes' rbac/v1 defaulting does.
func DefaultSubject(s *Subject) {
	if s.APIGroup != "" {
		return
	}
	switch s.Kind {
	case UserKind, GroupKind:
		s.APIGroup = GroupName
	}
}

// DefaultRoleRef fills ref.APIGroup with GroupName when empty.
func DefaultRoleRef(ref *RoleRef) {
	if ref.APIGroup == "" {
		ref.APIGroup = GroupName
	}
}

// DefaultRoleBinding defaults the roleRef and every subject of b in place.
func DefaultRoleBinding(b *RoleBinding) {
	DefaultRoleRef(&b.RoleRef)
	for i := range b.Subjects {
		DefaultSubject(&b.Subjects[i])
	}
}

// DefaultClusterRoleBinding defaults the roleRef and every subject of b in
// place.
func DefaultClusterRoleBinding(b *ClusterRoleBinding) {
	DefaultRoleRef(&b.RoleRef)
	for i := range b.Subjects {
		DefaultSubject(&b.Subjects[i])
	}
}
