package authn

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func fixed(u *User, ok bool, err error) Authenticator {
	return AuthenticatorFunc(func(*http.Request) (*User, bool, error) { return u.Clone(), ok, err })
}

func TestUnion(t *testing.T) {
	alice := &User{Name: "alice", Groups: []string{"dev"}}
	bob := &User{Name: "bob"}
	none := fixed(nil, false, nil)
	reject := fixed(nil, false, ErrInvalidToken)
	foreign := fixed(nil, false, errors.New("boom"))
	tests := []struct {
		name      string
		anonymous bool
		bearer    bool
		auths     []Authenticator
		wantUser  *User
		wantErr   error
	}{
		{"first ok wins", false, false, []Authenticator{none, fixed(alice, true, nil), fixed(bob, true, nil)},
			&User{Name: "alice", Groups: []string{"dev", GroupAuthenticated}}, nil},
		{"rejection then ok", false, false, []Authenticator{reject, fixed(bob, true, nil)},
			&User{Name: "bob", Groups: []string{GroupAuthenticated}}, nil},
		{"rejection fails even with anonymous", true, false, []Authenticator{none, reject}, nil, ErrInvalidToken},
		{"foreign error is still 401", true, false, []Authenticator{foreign}, nil, ErrUnauthorized},
		{"no credentials anonymous", true, false, []Authenticator{none, nil},
			&User{Name: AnonymousUser, Groups: []string{GroupUnauthenticated}}, nil},
		{"no credentials no anonymous", false, false, []Authenticator{none}, nil, ErrNoCredentials},
		{"no authenticators", false, false, nil, nil, ErrNoCredentials},
		{"unclaimed bearer token never anonymous", true, true, []Authenticator{none}, nil, ErrInvalidToken},
		{"already authenticated group not doubled", false, false,
			[]Authenticator{fixed(&User{Name: "c", Groups: []string{GroupAuthenticated}}, true, nil)},
			&User{Name: "c", Groups: []string{GroupAuthenticated}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/api", nil)
			if tt.bearer {
				r.Header.Set("Authorization", "Bearer abc")
			}
			u, ok, err := Union(tt.anonymous, tt.auths...).AuthenticateRequest(r)
			if tt.wantErr != nil {
				require.Error(t, err)
				assert.ErrorIs(t, err, tt.wantErr)
				assert.ErrorIs(t, err, ErrUnauthorized)
				assert.False(t, ok)
				assert.Nil(t, u)
				return
			}
			require.NoError(t, err)
			assert.True(t, ok)
			assert.Equal(t, tt.wantUser, u)
		})
	}
}

func TestUnionDoesNotAliasAuthenticatorUsers(t *testing.T) {
	shared := &User{Name: "alice", Groups: make([]string, 1, 8)}
	shared.Groups[0] = "dev"
	a := AuthenticatorFunc(func(*http.Request) (*User, bool, error) { return shared, true, nil })
	u, ok, err := Union(false, a).AuthenticateRequest(httptest.NewRequest(http.MethodGet, "/", nil))
	require.NoError(t, err)
	require.True(t, ok)
	u.Groups[0] = "changed"
	assert.Equal(t, []string{"dev"}, shared.Groups)
}
