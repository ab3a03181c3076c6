package apiserver

import (
	"context"
	"fmt"
	"net/http"

	"github.com/orkit/orkit/api/authentication"
	"github.com/orkit/orkit/api/authorization"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/authn"
	"github.com/orkit/orkit/authz"
)

// createAccessReview answers the authorization.k8s.io reviews with the
// server's own authorizer chain, without storing anything: a
// SelfSubjectAccessReview is about the caller (`kubectl auth can-i`), a
// (Local)SubjectAccessReview about the user named in its spec.
func (s *Server) createAccessReview(ctx context.Context, req *Request, obj meta.Object) (meta.Object, error) {
	var (
		spec   authorization.SubjectAccessReviewSpec
		status *authorization.SubjectAccessReviewStatus
		user   = req.User
	)
	switch o := obj.(type) {
	case *authorization.SelfSubjectAccessReview:
		spec.ResourceAttributes, spec.NonResourceAttributes = o.Spec.ResourceAttributes, o.Spec.NonResourceAttributes
		status = &o.Status
	case *authorization.SubjectAccessReview:
		spec, status, user = o.Spec, &o.Status, reviewUser(o.Spec)
	case *authorization.LocalSubjectAccessReview:
		if o.Spec.ResourceAttributes == nil || o.Spec.ResourceAttributes.Namespace != o.Namespace {
			return nil, apierrors.NewBadRequest("spec.resourceAttributes.namespace must match metadata.namespace")
		}
		spec, status, user = o.Spec, &o.Status, reviewUser(o.Spec)
	case *authorization.SelfSubjectRulesReview:
		return s.createRulesReview(ctx, req, o)
	default:
		return nil, apierrors.NewBadRequest(fmt.Sprintf("unexpected review %T", obj))
	}
	a := authz.Attributes{User: user}
	switch {
	case spec.ResourceAttributes != nil:
		ra := spec.ResourceAttributes
		a.ResourceRequest, a.Verb, a.Namespace, a.APIGroup, a.APIVersion = true, ra.Verb, ra.Namespace, ra.Group, ra.Version
		a.Resource, a.Subresource, a.Name = ra.Resource, ra.Subresource, ra.Name
	case spec.NonResourceAttributes != nil:
		a.Path, a.Verb = spec.NonResourceAttributes.Path, spec.NonResourceAttributes.Verb
	default:
		return nil, apierrors.NewBadRequest("exactly one of resourceAttributes and nonResourceAttributes must be set")
	}
	d, reason, err := s.authorizer.Authorize(ctx, a)
	status.Allowed, status.Denied, status.Reason = d == authz.DecisionAllow, d == authz.DecisionDeny, reason
	if err != nil {
		status.EvaluationError = err.Error()
	}
	obj.GetObjectMeta().CreationTimestamp = meta.Now()
	return obj, nil
}

// createRulesReview answers a SelfSubjectRulesReview (`kubectl auth can-i
// --list`) with the caller's rules in spec.namespace, as kube-apiserver
// does: from every authorizer of the chain that can list rules, with
// incomplete set when one cannot (a Node or Webhook authorizer, or an
// authorizer without authz.RuleResolver) and evaluationError telling why.
// A review without a namespace is a 400 ("no namespace on request").
func (s *Server) createRulesReview(ctx context.Context, req *Request, r *authorization.SelfSubjectRulesReview) (meta.Object, error) {
	if r.Spec.Namespace == "" {
		return nil, apierrors.NewBadRequest("no namespace on request")
	}
	rs := authz.RuleSet{Incomplete: true}
	var err error
	if rr, ok := s.authorizer.(authz.RuleResolver); ok {
		rs, err = rr.RulesFor(ctx, req.User, r.Spec.Namespace)
	} else {
		err = fmt.Errorf("authorizer %T %w", s.authorizer, authz.ErrRulesUnsupported)
	}
	r.Status = authorization.SubjectRulesReviewStatus{
		ResourceRules:    rs.ResourceRules,
		NonResourceRules: rs.NonResourceRules,
		Incomplete:       rs.Incomplete,
	}
	// Both lists are required in the wire format: empty, never null.
	if r.Status.ResourceRules == nil {
		r.Status.ResourceRules = []authorization.ResourceRule{}
	}
	if r.Status.NonResourceRules == nil {
		r.Status.NonResourceRules = []authorization.NonResourceRule{}
	}
	if err != nil {
		r.Status.EvaluationError = err.Error()
	}
	r.CreationTimestamp = meta.Now()
	return r, nil
}

func reviewUser(spec authorization.SubjectAccessReviewSpec) *authn.User {
	u := &authn.User{Name: spec.User, UID: spec.UID, Groups: spec.Groups}
	if len(spec.Extra) > 0 {
		u.Extra = map[string][]string{}
		for k, v := range spec.Extra {
			u.Extra[k] = v
		}
	}
	return u
}

// createSelfSubjectReview tells the caller who it is (`kubectl auth whoami`).
func (s *Server) createSelfSubjectReview(_ context.Context, req *Request, obj meta.Object) (meta.Object, error) {
	r := obj.(*authentication.SelfSubjectReview)
	r.Status.UserInfo = userInfo(req.User)
	r.CreationTimestamp = meta.Now()
	return r, nil
}

// createTokenReview checks a bearer token with the server's authenticators.
func (s *Server) createTokenReview(_ context.Context, req *Request, obj meta.Object) (meta.Object, error) {
	r := obj.(*authentication.TokenReview)
	if r.Spec.Token == "" {
		r.Status.Error = "no token"
		return r, nil
	}
	hr, _ := http.NewRequest(http.MethodGet, "/", nil)
	hr.Header.Set("Authorization", "Bearer "+r.Spec.Token)
	u, ok, err := s.authenticateRequest(hr)
	switch {
	case err != nil:
		r.Status.Error = err.Error()
	case ok && u.Name != "system:anonymous":
		r.Status.Authenticated, r.Status.User = true, userInfo(u)
	}
	return r, nil
}

func userInfo(u *authn.User) authentication.UserInfo {
	ui := authentication.UserInfo{Username: u.Name, UID: u.UID, Groups: u.Groups}
	if len(u.Extra) > 0 {
		ui.Extra = map[string]authentication.ExtraValue{}
		for k, v := range u.Extra {
			ui.Extra[k] = v
		}
	}
	return ui
}
