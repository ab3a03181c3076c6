package bootstraptoken

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

func TestParseAndGenerate(t *testing.T) {
	tok, err := Generate()
	require.NoError(t, err)
	got, err := Parse(tok.String())
	require.NoError(t, err)
	assert.Equal(t, tok, got)
	for _, bad := range []string{"", "abcdef", "abcdef.", "abcdef.0123456789abcdeF", "abcde.0123456789abcdef", "abcdef.0123456789abcdef0", "abcdef:0123456789abcdef"} {
		_, err := Parse(bad)
		assert.ErrorIs(t, err, ErrMalformed, bad)
	}
}

// FuzzParse: Parse never panics and accepts only what String gives back.
func FuzzParse(f *testing.F) {
	f.Add("abcdef.0123456789abcdef")
	f.Add("..")
	f.Fuzz(func(t *testing.T, s string) {
		tok, err := Parse(s)
		if err == nil && tok.String() != s {
			t.Fatalf("Parse(%q) = %v", s, tok)
		}
	})
}

type secrets map[string]*core.Secret

func (m secrets) GetSecret(_ context.Context, ns, name string) (*core.Secret, error) {
	if s, ok := m[ns+"/"+name]; ok {
		return s, nil
	}
	return nil, errors.New("not found")
}

func TestAuthenticator(t *testing.T) {
	tok := Token{ID: "abcdef", Secret: "0123456789abcdef"}
	put := func(change func(*core.Secret)) secrets {
		s := NewSecret(tok, time.Hour, "test", "system:bootstrappers:workers")
		if change != nil {
			change(s)
		}
		return secrets{s.Namespace + "/" + s.Name: s}
	}
	for _, tc := range []struct {
		name   string
		store  secrets
		bearer string
		ok     bool
	}{
		{"valid", put(nil), tok.String(), true},
		{"wrong secret", put(nil), "abcdef.0123456789abcdee", false},
		{"no secret", secrets{}, tok.String(), false},
		{"malformed", put(nil), "abcdef", false},
		{"wrong type", put(func(s *core.Secret) { s.Type = core.SecretTypeOpaque }), tok.String(), false},
		{"expired", put(func(s *core.Secret) { s.Data[KeyExpiration] = []byte("2000-01-01T00:00:00Z") }), tok.String(), false},
		{"bad expiration", put(func(s *core.Secret) { s.Data[KeyExpiration] = []byte("soon") }), tok.String(), false},
		{"no auth usage", put(func(s *core.Secret) { delete(s.Data, KeyUsageAuthenticate) }), tok.String(), false},
		{"being deleted", put(func(s *core.Secret) { now := meta.Now(); s.DeletionTimestamp = &now }), tok.String(), false},
		{"bad extra group", put(func(s *core.Secret) { s.Data[KeyAuthExtraGroups] = []byte("system:masters") }), tok.String(), false},
		{"id mismatch", put(func(s *core.Secret) { s.Data[KeyTokenID] = []byte("zzzzzz") }), tok.String(), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			r.Header.Set("Authorization", "Bearer "+tc.bearer)
			u, ok, err := NewAuthenticator(tc.store).AuthenticateRequest(r)
			require.NoError(t, err, "never an error: other authenticators may try")
			require.Equal(t, tc.ok, ok)
			if ok {
				assert.Equal(t, "system:bootstrap:abcdef", u.Name)
				assert.Equal(t, []string{"system:bootstrappers", "system:bootstrappers:workers"}, u.Groups)
			}
		})
	}
}
