package apiserver

import (
	"context"
	"fmt"
	"reflect"
	"slices"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/rbac"
	"github.com/orkit/orkit/api/scheduling"
	"github.com/orkit/orkit/authz"
)

// SystemNamespaces are created at start, as kube-apiserver does.
var SystemNamespaces = []string{"default", "kube-system", "kube-public", "kube-node-lease"}

// Bootstrap creates what a fresh cluster needs and leaves what exists
// alone: the system namespaces, the RBAC bootstrap policy (bootstrap
// ClusterRoles brought up to date unless an operator opted out), (when
// PriorityClasses are served) the system PriorityClasses and (when
// flowcontrol is served) the APF configuration (bootstrapFlowControl). It writes
// through storage, past admission, as the server's own identity. Start
// runs it when Config.Bootstrap is set; it may also be called at any time
// after New, any number of times.
func (s *Server) Bootstrap(ctx context.Context) error {
	for _, ns := range SystemNamespaces {
		n := &core.Namespace{ObjectMeta: meta.ObjectMeta{Name: ns}}
		if err := s.createIfMissing(ctx, coreGVR("namespaces"), n); err != nil {
			return err
		}
	}
	p := authz.BootstrapPolicy()
	for _, r := range p.ClusterRoles {
		if err := s.reconcileClusterRole(ctx, r); err != nil {
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
	pcs := meta.GroupVersionResource{Group: scheduling.GroupName, Version: scheduling.Version, Resource: "priorityclasses"}
	if _, ok := s.lookup(pcs); ok {
		for _, pc := range scheduling.SystemPriorityClasses() {
			if err := s.createIfMissing(ctx, pcs, pc); err != nil {
				return err
			}
		}
	}
	return s.bootstrapFlowControl(ctx)
}

// autoUpdate is the annotation that, set to "false", keeps Bootstrap from
// updating a bootstrap role an operator changed (as Kubernetes).
const autoUpdate = "rbac.authorization.kubernetes.io/autoupdate"

// reconcileClusterRole creates a bootstrap ClusterRole, or brings the
// rules of an existing one up to date (a newer orkit may grant more), as
// kube-apiserver reconciles its bootstrap roles at start. An aggregated
// role keeps the rules it has (the aggregation controller's) and gains
// the missing ones.
func (s *Server) reconcileClusterRole(ctx context.Context, want *rbac.ClusterRole) error {
	gvr := rbacGVR("clusterroles")
	res, ok := s.lookup(gvr)
	if !ok {
		return fmt.Errorf("bootstrap: %v is not registered", gvr)
	}
	_, err := res.storage.GuaranteedUpdate(ctx, "", want.Name, true, func(cur meta.Object) (meta.Object, error) {
		have := cur.(*rbac.ClusterRole)
		rules := want.Rules
		if want.AggregationRule != nil {
			// The aggregation controller owns an aggregated role's
			// rules (those of the roles it selects, users' too): keep
			// them, add what is missing.
			rules = slices.Clone(have.Rules)
			for _, r := range want.Rules {
				if !slices.ContainsFunc(rules, func(h rbac.PolicyRule) bool { return reflect.DeepEqual(h, r) }) {
					rules = append(rules, r)
				}
			}
		}
		if have.Annotations[autoUpdate] == "false" || (reflect.DeepEqual(have.Rules, rules) && reflect.DeepEqual(have.AggregationRule, want.AggregationRule)) {
			return nil, NoChange()
		}
		next := meta.DeepCopy(have)
		next.Rules, next.AggregationRule = rules, want.AggregationRule
		return next, nil
	})
	if apierrors.IsNotFound(err) {
		return s.createIfMissing(ctx, gvr, want)
	}
	return err
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
