package authz

import (
	"context"
	"errors"
	"strings"

	"github.com/orkit/orkit/authn"
)

// ChainAuthorizer asks authorizers in order. It is immutable after
// construction and safe for concurrent use.
type ChainAuthorizer struct {
	auths []Authorizer
}

var _ Authorizer = (*ChainAuthorizer)(nil)

// Chain returns an authorizer that asks auths in order: the first Allow
// wins, a Deny stops the chain (each returned with the deciding
// authorizer's own reason and error), NoOpinion — with or without an
// error, as in kube-apiserver's union authorizer — goes on to the next.
// If none decides, the result is NoOpinion with the reasons joined by
// "; " and every error joined. Put Masters() first. Nil entries are skipped.
func Chain(auths ...Authorizer) *ChainAuthorizer {
	list := make([]Authorizer, 0, len(auths))
	for _, a := range auths {
		if a != nil {
			list = append(list, a)
		}
	}
	return &ChainAuthorizer{auths: list}
}

// Authorize implements Authorizer.
func (c *ChainAuthorizer) Authorize(ctx context.Context, a Attributes) (Decision, string, error) {
	var (
		reasons []string
		errs    []error
	)
	for _, az := range c.auths {
		d, reason, err := az.Authorize(ctx, a)
		if err != nil {
			errs = append(errs, err)
		}
		switch d {
		case DecisionAllow, DecisionDeny:
			return d, reason, err
		}
		if reason != "" {
			reasons = append(reasons, reason)
		}
	}
	return DecisionNoOpinion, strings.Join(reasons, "; "), errors.Join(errs...)
}

// MastersAuthorizer allows every request of a user in group
// system:masters and has no opinion on anyone else.
type MastersAuthorizer struct{}

var _ Authorizer = MastersAuthorizer{}

// Masters returns the authorizer for the system:masters superuser group,
// which kube-apiserver checks before any other mode.
func Masters() MastersAuthorizer { return MastersAuthorizer{} }

// Authorize implements Authorizer.
func (MastersAuthorizer) Authorize(_ context.Context, a Attributes) (Decision, string, error) {
	if a.User.InGroup(authn.GroupMasters) {
		return DecisionAllow, "", nil
	}
	return DecisionNoOpinion, "", nil
}
