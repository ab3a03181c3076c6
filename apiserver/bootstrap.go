package apiserver

import (
	"context"
	"fmt"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/apiserver/authz"
)

// SystemNamespaces are created at start, as kube-apiserver does.
var SystemNamespaces = []string{"default", "kube-system", "kube-public", "kube-node-lease"}

// Bootstrap creates what a fresh cluster needs and leaves what exists
// alone: the system namespaces and the RBAC bootstrap policy. It writes
// through storage, past admission, as the server's own identity.
func (s *Server) Bootstrap(ctx context.Context) error {
	for _, ns := range SystemNamespaces {
		n := &core.Namespace{ObjectMeta: meta.ObjectMeta{Name: ns}}
		if err := s.createIfMissing(ctx, coreGVR("namespaces"), n); err != nil {
			return err
		}
	}
	p := authz.BootstrapPolicy()
	for _, r := range p.ClusterRoles {
		if err := s.createIfMissing(ctx, rbacGVR("clusterroles"), r); err != nil {
			return err
		}
	}
	for _, b := range p.ClusterRoleBindings {
		if err := s.createIfMissing(ctx, rbacGVR("clusterrolebindings"), b); err != nil {
			return err
		}
	}
	for _, r := range p.Roles {
		if err := s.createIfMissing(ctx, rbacGVR("roles"), r); err != nil {
			return err
		}
	}
	for _, b := range p.RoleBindings {
		if err := s.createIfMissing(ctx, rbacGVR("rolebindings"), b); err != nil {
			return err
		}
	}
	return nil
}

// CreateIfMissing stores obj as a new object of gvr with defaults and
// validation applied, unless one with its name exists.
func (s *Server) createIfMissing(ctx context.Context, gvr meta.GroupVersionResource, obj meta.Object) error {
	res, ok := s.lookup(gvr)
	if !ok {
		return fmt.Errorf("bootstrap: %v is not registered", gvr)
	}
	m := obj.GetObjectMeta()
	if _, err := res.storage.Get(ctx, m.Namespace, m.Name); err == nil {
		return nil
	}
	m.UID, m.CreationTimestamp = meta.UID(newUID()), meta.Now()
	if res.Type.Default != nil {
		res.Type.Default(obj)
	}
	res.Strategy.PrepareForCreate(ctx, obj)
	if errs := res.Strategy.Validate(ctx, obj); len(errs) > 0 {
		return fmt.Errorf("bootstrap %s %q: %w", gvr.Resource, m.Name, errs.ToAggregate())
	}
	if _, err := res.storage.Create(ctx, obj); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("bootstrap %s %q: %w", gvr.Resource, m.Name, err)
	}
	return nil
}
