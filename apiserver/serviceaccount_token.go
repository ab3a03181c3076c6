package apiserver

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/orkit/orkit/api/authentication"
	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/authn"
	"github.com/orkit/orkit/authz"
)

// The OIDC discovery paths of the service-account issuer, as
// kube-apiserver serves them.
const (
	pathOIDCDiscovery = "/.well-known/openid-configuration"
	pathOIDCKeySet    = "/openid/v1/jwks"
)

// tokenRequestGVK is the kind of serviceaccounts/<name>/token bodies.
var tokenRequestGVK = meta.GroupVersionKind{Group: authentication.GroupName, Version: authentication.Version, Kind: "TokenRequest"}

// Messages worded as kube-apiserver words them.
const (
	msgTokenNameDiffs      = "name in URL does not match name in TokenRequest body"
	msgTokenNamespaceDiffs = "namespace in URL does not match namespace in TokenRequest body"
	msgBoundUIDDiffers     = "the UID in the bound object reference (%s) does not match the UID in record. The object might have been deleted and then recreated"
	msgBoundOtherAccount   = "cannot bind token for serviceaccount %q to pod running with different serviceaccount name."
)

// storageObjects is the service-account authenticator's view of the
// objects tokens name: one consistent read from storage per lookup, so a
// token bound to a deleted pod fails as soon as the pod is gone. Safe for
// concurrent use; it holds only the server.
type storageObjects struct{ s *Server }

var _ authn.ServiceAccountObjects = storageObjects{}

// ObjectMeta implements authn.ServiceAccountObjects.
func (o storageObjects) ObjectMeta(ctx context.Context, resource, namespace, name string) (*meta.ObjectMeta, bool, error) {
	st, ok := o.s.Storage(coreGVR(resource))
	if !ok {
		return nil, false, nil
	}
	obj, err := st.Get(ctx, namespace, name)
	if apierrors.IsNotFound(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return obj.GetObjectMeta(), true, nil
}

// authenticateServiceAccount asks the service-account authenticator
// first (it claims only tokens of its own issuer): ok=false with a nil
// error means the request is not for it.
func (s *Server) authenticateServiceAccount(r *http.Request) (*authn.User, bool, error) {
	if s.saAuth == nil {
		return nil, false, nil
	}
	u, ok, err := s.saAuth.AuthenticateRequest(r)
	if err != nil || !ok {
		return nil, ok, err
	}
	u.Groups = append(u.Groups, authn.GroupAuthenticated)
	return u, true, nil
}

// serveOIDC answers the issuer's discovery document and key set
// (public, cacheable for an hour, as kube-apiserver answers them); 404
// without an issuer.
func (s *Server) serveOIDC(w http.ResponseWriter, p string) {
	ti := s.cfg.ServiceAccountTokens
	if ti == nil {
		writeError(w, apierrors.NewPathNotFound())
		return
	}
	body, ctype := ti.DiscoveryDocument(), "application/json"
	if p == pathOIDCKeySet {
		body, ctype = ti.KeySet(), "application/jwk-set+json"
	}
	w.Header().Set("Cache-Control", "public, max-age=3600")
	w.Header().Set("Content-Type", ctype)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

// serveServiceAccountToken handles POST serviceaccounts/<name>/token, as
// kube-apiserver's TokenREST does: the account must exist; audiences
// default to the API server's and the lifetime to an hour; a bound Pod,
// Secret or Node must exist (with the UID given, if one is), and a bound
// pod must run as this account. The answer (201) is the request with the
// token and its expiry in status; nothing is stored.
func (s *Server) serveServiceAccountToken(ctx context.Context, w http.ResponseWriter, r *http.Request, req *Request) {
	if req.Info.Verb != "create" {
		writeError(w, apierrors.NewMethodNotSupported(req.resource.gr(), req.Info.Verb))
		return
	}
	tr, err := readTokenRequest(r, req)
	if err != nil {
		writeError(w, err)
		return
	}
	obj, err := s.getVisible(ctx, req)
	if err != nil {
		writeError(w, err)
		return
	}
	sa := obj.(*core.ServiceAccount)
	tok, err := s.tokenFor(ctx, sa, tr)
	if err == nil {
		err = checkNodeToken(req, tok)
	}
	if err != nil {
		writeError(w, err)
		return
	}
	if isDryRun(req.Query) {
		tok = authn.ServiceAccountToken{}
	}
	if err := s.signTokenRequest(tr, tok); err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, tr)
}

// readTokenRequest decodes, defaults and validates the body.
func readTokenRequest(r *http.Request, req *Request) (*authentication.TokenRequest, error) {
	body, _, err := readBody(r, "application/json", "application/yaml")
	if err != nil {
		return nil, err
	}
	tr := &authentication.TokenRequest{}
	if err := decodeStrict(body, tr, false); err != nil {
		return nil, err
	}
	switch {
	case tr.Name != "" && tr.Name != req.Info.Name:
		return nil, apierrors.NewBadRequest(msgTokenNameDiffs)
	case tr.Namespace != "" && tr.Namespace != req.Info.Namespace:
		return nil, apierrors.NewBadRequest(msgTokenNamespaceDiffs)
	}
	tr.SetDefaults()
	if errs := authentication.ValidateTokenRequest(tr); len(errs) > 0 {
		return nil, apierrors.NewInvalid(tokenRequestGVK, "", errs)
	}
	tr.Name, tr.Namespace = req.Info.Name, req.Info.Namespace
	tr.SetGroupVersionKind(tokenRequestGVK)
	return tr, nil
}

// tokenFor returns what the token will say, its binding checked.
func (s *Server) tokenFor(ctx context.Context, sa *core.ServiceAccount, tr *authentication.TokenRequest) (authn.ServiceAccountToken, error) {
	ti := s.cfg.ServiceAccountTokens
	now := ti.Now()
	tok := authn.ServiceAccountToken{
		Namespace: sa.Namespace, ServiceAccount: authn.ObjectRef{Name: sa.Name, UID: string(sa.UID)},
		Audiences: tr.Spec.Audiences, IssuedAt: now,
		Expiration: now.Add(time.Duration(*tr.Spec.ExpirationSeconds) * time.Second),
	}
	if len(tok.Audiences) == 0 {
		tok.Audiences = ti.APIAudiences()
		tr.Spec.Audiences = tok.Audiences
	}
	ref := tr.Spec.BoundObjectRef
	if ref == nil {
		return tok, nil
	}
	if ref.APIVersion != "v1" || (ref.Kind != "Pod" && ref.Kind != "Secret" && ref.Kind != "Node") {
		return tok, apierrors.NewBadRequest(fmt.Sprintf("cannot bind token to object of type %s, %s", ref.APIVersion, ref.Kind))
	}
	resource := map[string]string{"Pod": "pods", "Secret": "secrets", "Node": "nodes"}[ref.Kind]
	ns := sa.Namespace
	if ref.Kind == "Node" {
		ns = ""
	}
	obj, err := s.boundObject(ctx, resource, ns, ref)
	if err != nil {
		return tok, err
	}
	bound := &authn.ObjectRef{Name: ref.Name, UID: string(obj.GetObjectMeta().UID)}
	switch o := obj.(type) {
	case *core.Pod:
		if o.Spec.ServiceAccountName != sa.Name {
			return tok, apierrors.NewBadRequest(fmt.Sprintf(msgBoundOtherAccount, sa.Name))
		}
		tok.Pod, tok.Node = bound, s.nodeOfPod(ctx, o)
	case *core.Secret:
		tok.Secret = bound
	case *core.Node:
		tok.Node = bound
	}
	return tok, nil
}

// checkNodeToken refuses a node's token that is not bound to one of its
// own pods, as kube-apiserver's NodeRestriction does.
func checkNodeToken(req *Request, tok authn.ServiceAccountToken) error {
	node, ok := authz.NodeName(req.User)
	if !ok {
		return nil
	}
	why := ""
	switch {
	case tok.Pod == nil:
		why = "node requested token not bound to a pod"
	case tok.Node == nil || tok.Node.Name != node:
		why = "node requested token bound to a pod scheduled on a different node"
	default:
		return nil
	}
	gr := req.resource.gr()
	return apierrors.NewForbidden(gr, req.Info.Name, fmt.Sprintf("%s %q is forbidden: %s", gr.Resource, req.Info.Name, why))
}

// boundObject reads the object a token is to be bound to and checks the
// UID the reference gives.
func (s *Server) boundObject(ctx context.Context, resource, ns string, ref *authentication.BoundObjectReference) (meta.Object, error) {
	st, ok := s.Storage(coreGVR(resource))
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("cannot bind token to object of type %s, %s", ref.APIVersion, ref.Kind))
	}
	obj, err := st.Get(ctx, ns, ref.Name)
	if err != nil {
		return nil, err
	}
	if ref.UID != "" && obj.GetObjectMeta().UID != ref.UID {
		return nil, apierrors.NewConflict(meta.GroupResource{Resource: ref.Kind}, ref.Name, fmt.Errorf(msgBoundUIDDiffers, ref.UID))
	}
	return obj, nil
}

// nodeOfPod names the node a pod runs on (for information: a token bound
// to a pod lives as long as the pod), nil when it has none or the node
// is gone.
func (s *Server) nodeOfPod(ctx context.Context, pod *core.Pod) *authn.ObjectRef {
	if pod.Spec.NodeName == "" {
		return nil
	}
	st, ok := s.Storage(coreGVR("nodes"))
	if !ok {
		return nil
	}
	obj, err := st.Get(ctx, "", pod.Spec.NodeName)
	if err != nil {
		return nil
	}
	return &authn.ObjectRef{Name: pod.Spec.NodeName, UID: string(obj.GetObjectMeta().UID)}
}

// signTokenRequest signs tok into tr's status; a zero tok (a dry run)
// leaves the token empty.
func (s *Server) signTokenRequest(tr *authentication.TokenRequest, tok authn.ServiceAccountToken) error {
	if tok.Namespace == "" {
		return nil
	}
	signed, err := s.cfg.ServiceAccountTokens.Issue(tok)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	tr.Status = authentication.TokenRequestStatus{Token: signed, ExpirationTimestamp: meta.NewTime(tok.Expiration)}
	tr.CreationTimestamp = meta.NewTime(tok.IssuedAt.Truncate(time.Second))
	return nil
}
