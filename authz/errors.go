package authz

import (
	"errors"
	"fmt"
)

// Sentinel errors; check with errors.Is.
var (
	// ErrInvalidPolicy: an ABAC policy file is malformed. The concrete
	// error is a *LineError naming the file and line.
	ErrInvalidPolicy = errors.New("invalid authorization policy")
	// ErrInvalidConfig: an authorizer's configuration is unusable.
	ErrInvalidConfig = errors.New("invalid authorizer configuration")
	// ErrWebhook: the authorization webhook could not be reached or gave
	// an unusable answer; the decision is NoOpinion.
	ErrWebhook = errors.New("authorization webhook failed")
	// ErrNotFound: a role named by a binding does not exist (returned by
	// Policy's RBACSource methods).
	ErrNotFound = errors.New("not found")
	// ErrRulesUnsupported: an authorizer cannot list a user's rules (Node
	// for nodes, Webhook); the RuleSet is then Incomplete. The error that
	// wraps it names the authorizer.
	ErrRulesUnsupported = errors.New("does not support user rule resolution")
	// ErrEscalation: a user would grant RBAC permissions it does not hold
	// (ConfirmNoEscalation; the concrete error is an *EscalationError).
	ErrEscalation = errors.New("RBAC escalation")
	// ErrAggregationRule: a user without FullAuthority would set or change
	// a ClusterRole's aggregationRule. Its text is kube-apiserver's, which
	// the server puts after `clusterroles.rbac.authorization.k8s.io
	// "<name>" is forbidden: `.
	ErrAggregationRule = errors.New("must have cluster-admin privileges to use the aggregationRule")
)

// LineError reports a malformed line of a policy file. It wraps
// ErrInvalidPolicy. Line is 1-based; 0 means the file as a whole.
type LineError struct {
	Path string
	Line int
	Msg  string
}

// Error formats the error as "path:line: msg".
func (e *LineError) Error() string {
	name := e.Path
	if name == "" {
		name = "<input>"
	}
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", name, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", name, e.Line, e.Msg)
}

// Unwrap returns ErrInvalidPolicy.
func (e *LineError) Unwrap() error { return ErrInvalidPolicy }
