package authz

import (
	"context"

	"github.com/orkit/orkit/authn"
)

// Decision is an authorizer's answer.
type Decision int

// The decisions, as Kubernetes names them.
const (
	// DecisionDeny forbids the request; no later authorizer is asked.
	DecisionDeny Decision = iota
	// DecisionAllow permits the request; no later authorizer is asked.
	DecisionAllow
	// DecisionNoOpinion leaves the request to the next authorizer; if none
	// allows it, it is forbidden.
	DecisionNoOpinion
)

// String returns "Deny", "Allow" or "NoOpinion".
func (d Decision) String() string {
	switch d {
	case DecisionDeny:
		return "Deny"
	case DecisionAllow:
		return "Allow"
	case DecisionNoOpinion:
		return "NoOpinion"
	}
	return "Decision(?)"
}

// Verbs of resource requests, as the server derives them from the HTTP
// method and path, plus the special verbs some checks use.
const (
	VerbGet              = "get"
	VerbList             = "list"
	VerbWatch            = "watch"
	VerbCreate           = "create"
	VerbUpdate           = "update"
	VerbPatch            = "patch"
	VerbDelete           = "delete"
	VerbDeleteCollection = "deletecollection"
	VerbImpersonate      = "impersonate"
	VerbBind             = "bind"
	VerbEscalate         = "escalate"
	VerbUse              = "use"
)

// Attributes describe one request to authorize. The server builds them
// from the authenticated user and the request path; authorizers read them
// and never keep them.
type Attributes struct {
	User *authn.User
	// Verb is the request's verb (see the Verb constants); for
	// non-resource requests the lower-case HTTP method ("get", "post").
	Verb string

	Namespace   string
	APIGroup    string
	APIVersion  string
	Resource    string
	Subresource string
	Name        string

	// ResourceRequest tells resource requests (/api/v1/..., /apis/...)
	// from non-resource ones; Path is set for the latter.
	ResourceRequest bool
	Path            string

	// FieldSelector and LabelSelector are the request's selectors as sent,
	// so the Node authorizer can allow a node to list its own pods.
	FieldSelector string
	LabelSelector string
}

// IsReadOnly reports whether the verb only reads: get, list or watch.
func (a Attributes) IsReadOnly() bool {
	return a.Verb == VerbGet || a.Verb == VerbList || a.Verb == VerbWatch
}

// userName returns the user's name, or "" for no user.
func (a Attributes) userName() string {
	if a.User == nil {
		return ""
	}
	return a.User.Name
}

// Authorizer decides whether a request may proceed. The reason explains
// the decision to people (it is appended to the 403 message); an error
// means the authorizer could not decide (the server answers 500 unless a
// later authorizer allows). Implementations are safe for concurrent use.
type Authorizer interface {
	Authorize(ctx context.Context, a Attributes) (Decision, string, error)
}

// AuthorizerFunc adapts a function to Authorizer.
type AuthorizerFunc func(ctx context.Context, a Attributes) (Decision, string, error)

// Authorize calls f(ctx, a).
func (f AuthorizerFunc) Authorize(ctx context.Context, a Attributes) (Decision, string, error) {
	return f(ctx, a)
}

var _ Authorizer = AuthorizerFunc(nil)
