package apiserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/orkit/orkit/api/certificates"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/rbac"
	"github.com/orkit/orkit/authz"
)

// RBAC escalation prevention, as kube-apiserver's RBAC storage has it: a
// write of a Role, ClusterRole, RoleBinding or ClusterRoleBinding by a
// user outside system:masters must not grant anything the user does not
// hold already, unless the authorizer allows the user "escalate" on the
// role (roles) or "bind" on the referenced role (bindings). A
// ClusterRole's aggregationRule needs every permission (authz.FullAuthority).
// An update that changes only what the garbage collector changes
// (ownerReferences, finalizers) is not checked.
//
// Unlike kube-apiserver, which checks before validation, the check runs
// after the object was validated, so a malformed object gets its 422 (a
// roleRef of an unknown kind is a 500 in kube-apiserver).

// checkEscalation refuses obj (replacing old on update, else nil) when the
// request's user would escalate its RBAC permissions by writing it, or
// (checkAttest) write a ClusterTrustBundle for a signer it may not attest
// for. Other kinds pass. The refusal is a 403 worded as kube-apiserver's; a binding
// to a role that does not exist is that role's 404, as there.
func (s *Server) checkEscalation(ctx context.Context, req *Request, obj, old meta.Object) error {
	if b, ok := obj.(*certificates.ClusterTrustBundle); ok {
		return s.checkAttest(ctx, req, b, old)
	}
	if req.resource.gr().Group != rbac.GroupName || authz.EscalationAllowed(req.User) {
		return nil
	}
	if old != nil && onlyGCFieldsChanged(obj, old) {
		return nil
	}
	switch o := obj.(type) {
	case *rbac.Role:
		return s.checkRoleEscalation(ctx, req, o.Name, o.Namespace, o.Rules, false)
	case *rbac.ClusterRole:
		oldAgg := false
		if oc, ok := old.(*rbac.ClusterRole); ok {
			oldAgg = oc.AggregationRule != nil
		}
		return s.checkRoleEscalation(ctx, req, o.Name, "", o.Rules, o.AggregationRule != nil || oldAgg)
	case *rbac.RoleBinding:
		return s.checkBindingEscalation(ctx, req, o.Name, o.Namespace, o.RoleRef)
	case *rbac.ClusterRoleBinding:
		return s.checkBindingEscalation(ctx, req, o.Name, "", o.RoleRef)
	}
	return nil
}

// checkRoleEscalation: "escalate" on the role, else the user holds rules
// in ns (and every permission when aggregated).
func (s *Server) checkRoleEscalation(ctx context.Context, req *Request, name, ns string, rules []rbac.PolicyRule, aggregated bool) error {
	if authz.RoleEscalationAuthorized(ctx, s.authorizer, req.User, req.resource.gr().Resource, req.Info.Namespace, req.Info.Name) {
		return nil
	}
	if err := authz.ConfirmNoEscalation(s.rbacRules, req.User, ns, rules); err != nil {
		return s.escalationForbidden(req, name, err)
	}
	if aggregated {
		if err := authz.ConfirmNoEscalation(s.rbacRules, req.User, ns, authz.FullAuthority); err != nil {
			return s.escalationForbidden(req, name, authz.ErrAggregationRule)
		}
	}
	return nil
}

// checkBindingEscalation: "bind" on the referenced role, else the user
// holds the role's rules in ns.
func (s *Server) checkBindingEscalation(ctx context.Context, req *Request, name, ns string, ref rbac.RoleRef) error {
	if authz.BindingAuthorized(ctx, s.authorizer, req.User, ref, ns) {
		return nil
	}
	rules, err := s.roleRefRules(ctx, ref, ns)
	if err != nil {
		return err
	}
	if err := authz.ConfirmNoEscalation(s.rbacRules, req.User, ns, rules); err != nil {
		return s.escalationForbidden(req, name, err)
	}
	return nil
}

// roleRefRules reads the referenced role from storage, not the watch
// cache, so a binding written right after its role (kubectl apply of both
// in one file) finds it.
func (s *Server) roleRefRules(ctx context.Context, ref rbac.RoleRef, ns string) ([]rbac.PolicyRule, error) {
	var gvr meta.GroupVersionResource
	switch ref.Kind {
	case "Role":
		gvr = rbacGVR("roles")
	case "ClusterRole":
		gvr, ns = rbacGVR("clusterroles"), ""
	default:
		return nil, apierrors.NewBadRequest(fmt.Sprintf("unsupported role reference kind: %q", ref.Kind))
	}
	st, ok := s.Storage(gvr)
	if !ok {
		return nil, apierrors.NewNotFound(gvr.GroupResource(), ref.Name)
	}
	obj, err := st.Get(ctx, ns, ref.Name)
	if err != nil {
		return nil, err
	}
	switch r := obj.(type) {
	case *rbac.Role:
		return r.Rules, nil
	case *rbac.ClusterRole:
		return r.Rules, nil
	}
	return nil, apierrors.NewInternalError(fmt.Errorf("%s %q is a %T", gvr.Resource, ref.Name, obj))
}

func (s *Server) escalationForbidden(req *Request, name string, err error) error {
	gr := req.resource.gr()
	return apierrors.NewForbidden(gr, name, fmt.Sprintf("%s %q is forbidden: %v", gr, name, err))
}

// onlyGCFieldsChanged reports whether next differs from cur only in what
// the garbage collector writes (ownerReferences, finalizers, the deletion
// timestamp and grace period), as kube-apiserver's IsOnlyMutatingGCFields.
func onlyGCFieldsChanged(next, cur meta.Object) bool {
	c := meta.DeepCopy(next)
	cm, om := c.GetObjectMeta(), cur.GetObjectMeta()
	cm.OwnerReferences, cm.Finalizers = om.OwnerReferences, om.Finalizers
	cm.DeletionTimestamp, cm.DeletionGracePeriodSeconds = om.DeletionTimestamp, om.DeletionGracePeriodSeconds
	// the server records the write's field ownership before this check;
	// kube-apiserver checks before it does
	cm.ManagedFields = om.ManagedFields
	a, err1 := json.Marshal(c)
	b, err2 := json.Marshal(cur)
	return err1 == nil && err2 == nil && bytes.Equal(a, b)
}

// checkAttest is kube-apiserver's ClusterTrustBundleAttest admission: a
// write of a ClusterTrustBundle with a signer name needs the "attest"
// verb on certificates.k8s.io signers (the signer's name or
// "<domain>/*"), unless the update changes only what the garbage
// collector changes. The refusal is a 403 worded as Kubernetes'.
func (s *Server) checkAttest(ctx context.Context, req *Request, b *certificates.ClusterTrustBundle, old meta.Object) error {
	if b.Spec.SignerName == "" || (old != nil && onlyGCFieldsChanged(b, old)) {
		return nil
	}
	if signerAuthorized(ctx, s.authorizer, req.User, "attest", b.Spec.SignerName) {
		return nil
	}
	gr := req.resource.gr()
	return apierrors.NewForbidden(gr, b.Name, fmt.Sprintf("%s %q is forbidden: user not permitted to attest for signerName %q",
		gr, b.Name, b.Spec.SignerName))
}
