package authz

import (
	"github.com/orkit/orkit/api/rbac"
)

// Policy is a fixed set of RBAC objects. BootstrapPolicy returns one for
// the server to seed; it also serves as an in-memory RBACSource for tests
// and for embedders without an API server cache. A Policy is plain data:
// safe for concurrent reads, not for concurrent changes.
type Policy struct {
	ClusterRoles        []*rbac.ClusterRole
	ClusterRoleBindings []*rbac.ClusterRoleBinding
	Roles               []*rbac.Role
	RoleBindings        []*rbac.RoleBinding
}

var _ RBACSource = (*Policy)(nil)

// GetRole implements RBACSource; a missing role wraps ErrNotFound.
func (p *Policy) GetRole(namespace, name string) (*rbac.Role, error) {
	for _, r := range p.Roles {
		if r.Namespace == namespace && r.Name == name {
			return r, nil
		}
	}
	return nil, notFound("role", name)
}

// GetClusterRole implements RBACSource; a missing role wraps ErrNotFound.
func (p *Policy) GetClusterRole(name string) (*rbac.ClusterRole, error) {
	for _, r := range p.ClusterRoles {
		if r.Name == name {
			return r, nil
		}
	}
	return nil, notFound("clusterrole", name)
}

// ListRoleBindings implements RBACSource.
func (p *Policy) ListRoleBindings(namespace string) ([]*rbac.RoleBinding, error) {
	var out []*rbac.RoleBinding
	for _, b := range p.RoleBindings {
		if b.Namespace == namespace {
			out = append(out, b)
		}
	}
	return out, nil
}

// ListClusterRoleBindings implements RBACSource.
func (p *Policy) ListClusterRoleBindings() ([]*rbac.ClusterRoleBinding, error) {
	return p.ClusterRoleBindings, nil
}
