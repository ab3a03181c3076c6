package apiserver

import (
	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/rbac"
	"github.com/orkit/orkit/authz"
)

// cacheSource reads the objects the authorizers need from the server's
// watch caches, so authorizing a request never touches the store.
type cacheSource struct{ s *Server }

var (
	_ authz.RBACSource     = cacheSource{}
	_ authz.RBACRevisioner = cacheSource{}
	_ authz.NodeGraph      = cacheSource{}
	_ authz.ClaimGetter    = cacheSource{}
)

// RBACSource returns the roles and bindings the RBAC authorizer reads.
func (s *Server) RBACSource() authz.RBACSource { return cacheSource{s} }

// NodeGraph returns the pods-by-node view the Node authorizer reads. It
// indexes the pods cache by spec.nodeName; call it before Start.
func (s *Server) NodeGraph() authz.NodeGraph {
	if c, ok := s.Cache(coreGVR("pods")); ok {
		c.IndexBy("spec.nodeName")
	}
	return cacheSource{s}
}

func rbacGVR(resource string) meta.GroupVersionResource {
	return meta.GroupVersionResource{Group: rbac.GroupName, Version: "v1", Resource: resource}
}

// get returns the cached object of gvr ns/name.
func get[T any](s *Server, gvr meta.GroupVersionResource, ns, name string) (*T, error) {
	c, ok := s.Cache(gvr)
	if !ok {
		return nil, apierrors.NewNotFound(gvr.GroupResource(), name)
	}
	o, ok := c.Get(ns, name)
	if !ok {
		return nil, apierrors.NewNotFound(gvr.GroupResource(), name)
	}
	t, ok := any(o.object()).(*T)
	if !ok {
		return nil, apierrors.NewNotFound(gvr.GroupResource(), name)
	}
	return t, nil
}

// list returns the cached objects of gvr in ns ("" for all).
func list[T any](s *Server, gvr meta.GroupVersionResource, ns string) []*T {
	c, ok := s.Cache(gvr)
	if !ok {
		return nil
	}
	objs, _ := c.List(ns, Filter{})
	out := make([]*T, 0, len(objs))
	for _, o := range objs {
		if t, ok := any(o.object()).(*T); ok {
			out = append(out, t)
		}
	}
	return out
}

// RBACRevision implements authz.RBACRevisioner: the sum of the change
// counts of the roles, cluster roles and both bindings caches.
func (c cacheSource) RBACRevision() int64 {
	var n int64
	for _, r := range [...]string{"roles", "clusterroles", "rolebindings", "clusterrolebindings"} {
		if wc, ok := c.s.Cache(rbacGVR(r)); ok {
			n += wc.Changes()
		}
	}
	return n
}

func (c cacheSource) GetRole(ns, name string) (*rbac.Role, error) {
	return get[rbac.Role](c.s, rbacGVR("roles"), ns, name)
}

func (c cacheSource) GetClusterRole(name string) (*rbac.ClusterRole, error) {
	return get[rbac.ClusterRole](c.s, rbacGVR("clusterroles"), "", name)
}

func (c cacheSource) ListRoleBindings(ns string) ([]*rbac.RoleBinding, error) {
	return list[rbac.RoleBinding](c.s, rbacGVR("rolebindings"), ns), nil
}

func (c cacheSource) ListClusterRoleBindings() ([]*rbac.ClusterRoleBinding, error) {
	return list[rbac.ClusterRoleBinding](c.s, rbacGVR("clusterrolebindings"), ""), nil
}

func (c cacheSource) PodsOnNode(node string) []*core.Pod {
	cache, ok := c.s.Cache(coreGVR("pods"))
	if !ok {
		return nil
	}
	objs := cache.ByIndex(node)
	out := make([]*core.Pod, 0, len(objs))
	for _, o := range objs {
		out = append(out, o.(*core.Pod))
	}
	return out
}

func (c cacheSource) GetPod(ns, name string) (*core.Pod, bool) {
	p, err := get[core.Pod](c.s, coreGVR("pods"), ns, name)
	return p, err == nil
}

func (c cacheSource) GetPersistentVolumeClaim(ns, name string) (*core.PersistentVolumeClaim, bool) {
	p, err := get[core.PersistentVolumeClaim](c.s, coreGVR("persistentvolumeclaims"), ns, name)
	return p, err == nil
}
