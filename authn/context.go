package authn

import "context"

type userKey struct{}

// WithUser returns a copy of ctx carrying u, the authenticated user of the
// request being served (the API server sets it before a Strategy runs).
func WithUser(ctx context.Context, u *User) context.Context {
	return context.WithValue(ctx, userKey{}, u)
}

// UserFrom returns the user WithUser put in ctx, or nil.
func UserFrom(ctx context.Context) *User {
	u, _ := ctx.Value(userKey{}).(*User)
	return u
}
