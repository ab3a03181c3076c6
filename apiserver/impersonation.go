package apiserver

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/authn"
)

// The impersonation headers kubectl's --as, --as-group and --as-uid send.
const (
	headerImpersonateUser        = "Impersonate-User"
	headerImpersonateGroup       = "Impersonate-Group"
	headerImpersonateUID         = "Impersonate-Uid"
	headerImpersonateExtraPrefix = "Impersonate-Extra-"
)

const serviceAccountPrefix = "system:serviceaccount:"

// impersonate returns the user the request acts as: u itself without
// impersonation headers, else the user, groups, uid and extras the
// headers ask for, once u has been authorized to impersonate each of them
// (verb impersonate on users or serviceaccounts, groups, uids and
// userextras/<key>, as kube-apiserver checks). A refusal is a 403 naming
// what u may not impersonate; groups, extras or a uid without a user are
// a 400. The headers are removed from r so nothing downstream sees them.
func (s *Server) impersonate(r *http.Request, u *authn.User) (*authn.User, error) {
	name := r.Header.Get(headerImpersonateUser)
	groups := r.Header.Values(headerImpersonateGroup)
	uid := r.Header.Get(headerImpersonateUID)
	extra := map[string][]string{}
	for h, vs := range r.Header {
		if k, ok := strings.CutPrefix(h, headerImpersonateExtraPrefix); ok {
			key, err := url.PathUnescape(k)
			if err != nil {
				return nil, apierrors.NewBadRequest(fmt.Sprintf("invalid impersonation extra key %q: %v", k, err))
			}
			extra[strings.ToLower(key)] = vs
		}
	}
	if name == "" && len(groups) == 0 && uid == "" && len(extra) == 0 {
		return u, nil
	}
	if name == "" {
		return nil, apierrors.NewBadRequest("requested impersonation of groups, a uid or extra values without impersonating a user")
	}
	checks := []RequestInfo{impersonationOf(name)}
	for _, g := range groups {
		checks = append(checks, RequestInfo{Resource: "groups", Name: g})
	}
	if uid != "" {
		checks = append(checks, RequestInfo{APIGroup: "authentication.k8s.io", Resource: "uids", Name: uid})
	}
	for k, vs := range extra {
		for _, v := range vs {
			checks = append(checks, RequestInfo{APIGroup: "authentication.k8s.io", Resource: "userextras", Subresource: k, Name: v})
		}
	}
	for i := range checks {
		c := &checks[i]
		c.Verb, c.IsResourceRequest, c.APIVersion = "impersonate", true, "v1"
		if err := s.authorize(r.Context(), u, c, r); err != nil {
			return nil, err
		}
	}
	out := &authn.User{Name: name, UID: uid, Groups: slices.Clone(groups)}
	if len(extra) > 0 {
		out.Extra = extra
	}
	if ns, _, ok := strings.Cut(strings.TrimPrefix(name, serviceAccountPrefix), ":"); strings.HasPrefix(name, serviceAccountPrefix) && ok && len(groups) == 0 {
		out.Groups = []string{"system:serviceaccounts", "system:serviceaccounts:" + ns}
	}
	if name != authn.AnonymousUser && !slices.Contains(out.Groups, authn.GroupAuthenticated) {
		out.Groups = append(out.Groups, authn.GroupAuthenticated)
	}
	for h := range r.Header {
		if strings.HasPrefix(h, "Impersonate-") {
			r.Header.Del(h)
		}
	}
	return out, nil
}

// impersonationOf is what impersonating user name is authorized as: the
// service account's object for "system:serviceaccount:<ns>:<name>", else
// the user.
func impersonationOf(name string) RequestInfo {
	if rest, ok := strings.CutPrefix(name, serviceAccountPrefix); ok {
		if ns, sa, ok := strings.Cut(rest, ":"); ok && ns != "" && sa != "" {
			return RequestInfo{Resource: "serviceaccounts", Namespace: ns, Name: sa}
		}
	}
	return RequestInfo{Resource: "users", Name: name}
}
