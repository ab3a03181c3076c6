package authn

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func writeFile(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "creds.csv")
	require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
	return p
}

func TestTokenFileLoad(t *testing.T) {
	tests := []struct {
		name     string
		content  string
		wantLine int // 0: load succeeds
		wantMsg  string
		wantLen  int
	}{
		{name: "minimal", content: "tok1,alice,1\n", wantLen: 1},
		{name: "quoted groups and extra columns", content: "tok1,alice,1,\"a, b,,c\",extra,cols\ntok2,bob,2\n", wantLen: 2},
		{name: "blank lines skipped", content: "\n\ntok1,alice,1\n\n", wantLen: 1},
		{name: "empty file", content: "", wantLen: 0},
		{name: "CRLF", content: "tok1,alice,1\r\ntok2,bob,2\r\n", wantLen: 2},
		{name: "too few columns", content: "tok1,alice,1\ntok2,bob\n", wantLine: 2, wantMsg: "want at least 3 columns"},
		{name: "empty token", content: "tok1,alice,1\n\n,bob,2\n", wantLine: 3, wantMsg: "token is empty"},
		{name: "empty user", content: "tok1, ,1\n", wantLine: 1, wantMsg: "user name is empty"},
		{name: "duplicate token", content: "tok1,alice,1\ntok1,bob,2\n", wantLine: 2, wantMsg: "already listed on line 1"},
		{name: "unterminated quote", content: "tok1,alice,1\ntok2,bob,2,\"g1,g2\n", wantLine: 2, wantMsg: "quote"},
		{name: "bare quote", content: "tok\"1,alice,1\n", wantLine: 1, wantMsg: "quote"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, tt.content)
			a, err := TokenFile(path)
			if tt.wantLine == 0 {
				require.NoError(t, err)
				assert.Equal(t, tt.wantLen, a.Len())
				return
			}
			require.Error(t, err)
			assert.Nil(t, a)
			assert.ErrorIs(t, err, ErrInvalidFile)
			var le *LineError
			require.True(t, errors.As(err, &le))
			assert.Equal(t, tt.wantLine, le.Line)
			assert.Equal(t, path, le.Path)
			assert.Contains(t, err.Error(), tt.wantMsg)
		})
	}
}

func TestTokenFileMissingAndOversized(t *testing.T) {
	_, err := TokenFile(filepath.Join(t.TempDir(), "nope.csv"))
	assert.ErrorIs(t, err, ErrInvalidFile)

	big := strings.NewReader(strings.Repeat("x", MaxFileSize+1))
	_, err = ReadTokenFile("big", big)
	assert.ErrorIs(t, err, ErrInvalidFile)
	assert.Contains(t, err.Error(), "larger than")
}

func TestTokenFileAuthenticate(t *testing.T) {
	a, err := ReadTokenFile("tokens", strings.NewReader(
		"secret-a,alice,uid-a,\"dev, ops\"\nsecret-b,bob,uid-b\n"))
	require.NoError(t, err)
	tests := []struct {
		name     string
		header   string
		wantUser *User
		wantOK   bool
		wantErr  error
	}{
		{"valid with groups", "Bearer secret-a", &User{Name: "alice", UID: "uid-a", Groups: []string{"dev", "ops"}}, true, nil},
		{"valid lower-case scheme", "bearer secret-b", &User{Name: "bob", UID: "uid-b"}, true, nil},
		{"unknown token", "Bearer secret-c", nil, false, ErrInvalidToken},
		{"prefix of a token", "Bearer secret-", nil, false, ErrInvalidToken},
		{"no header", "", nil, false, nil},
		{"basic scheme", "Basic YTpi", nil, false, nil},
		{"empty bearer", "Bearer ", nil, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			if tt.header != "" {
				r.Header.Set("Authorization", tt.header)
			}
			u, ok, err := a.AuthenticateRequest(r)
			if tt.wantErr != nil {
				assert.ErrorIs(t, err, tt.wantErr)
				assert.ErrorIs(t, err, ErrUnauthorized)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantOK, ok)
			assert.Equal(t, tt.wantUser, u)
		})
	}
	// The returned user is a copy.
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.Header.Set("Authorization", "Bearer secret-a")
	u, _, _ := a.AuthenticateRequest(r)
	u.Groups[0] = "changed"
	u2, _, _ := a.AuthenticateRequest(r)
	assert.Equal(t, "dev", u2.Groups[0])
}

func TestBasicAuthFile(t *testing.T) {
	path := writeFile(t, "pw-a,alice,uid-a,\"dev,ops\"\npw-b,bob,uid-b\n")
	a, err := BasicAuthFile(path)
	require.NoError(t, err)
	tests := []struct {
		name     string
		user, pw string
		header   string
		wantUser *User
		wantErr  error
		wantNone bool
	}{
		{name: "valid", user: "alice", pw: "pw-a", wantUser: &User{Name: "alice", UID: "uid-a", Groups: []string{"dev", "ops"}}},
		{name: "wrong password", user: "alice", pw: "pw-b", wantErr: ErrInvalidBasicAuth},
		{name: "unknown user", user: "carol", pw: "pw-a", wantErr: ErrInvalidBasicAuth},
		{name: "undecodable", header: "Basic !!!", wantErr: ErrInvalidBasicAuth},
		{name: "bearer is not mine", header: "Bearer x", wantNone: true},
		{name: "no header", wantNone: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			switch {
			case tt.user != "":
				r.SetBasicAuth(tt.user, tt.pw)
			case tt.header != "":
				r.Header.Set("Authorization", tt.header)
			}
			u, ok, err := a.AuthenticateRequest(r)
			switch {
			case tt.wantErr != nil:
				assert.ErrorIs(t, err, tt.wantErr)
				assert.False(t, ok)
			case tt.wantNone:
				assert.NoError(t, err)
				assert.False(t, ok)
			default:
				require.NoError(t, err)
				assert.True(t, ok)
				assert.Equal(t, tt.wantUser, u)
			}
		})
	}
}

func TestBasicAuthFileMalformed(t *testing.T) {
	tests := []struct {
		name, content string
		wantLine      int
		wantMsg       string
	}{
		{"duplicate user", "a,alice,1\nb,alice,2\n", 2, `user "alice" already listed on line 1`},
		{"empty password", "\n,alice,1\n", 2, "password is empty"},
		{"two columns", "a,alice\n", 1, "want at least 3 columns"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadBasicAuthFile("pw.csv", strings.NewReader(tt.content))
			var le *LineError
			require.True(t, errors.As(err, &le), "%v", err)
			assert.Equal(t, tt.wantLine, le.Line)
			assert.Contains(t, err.Error(), tt.wantMsg)
			assert.Contains(t, err.Error(), "pw.csv:")
		})
	}
}

// FuzzTokenFile checks the loader never panics and that whatever it
// accepts authenticates each of its tokens.
func FuzzTokenFile(f *testing.F) {
	f.Add("tok,alice,1,\"a,b\"\n")
	f.Add("\n\"t\"\"q\",u,1\r\n")
	f.Add("a,b\n")
	f.Fuzz(func(t *testing.T, content string) {
		a, err := ReadTokenFile("fuzz", strings.NewReader(content))
		if err != nil {
			var le *LineError
			if !errors.As(err, &le) {
				t.Fatalf("error %v is not a *LineError", err)
			}
			return
		}
		for _, e := range a.tokens {
			u, ok, err := a.AuthenticateToken(e.token)
			if err != nil || !ok || u.Name != e.user.Name {
				t.Fatalf("token %q: %v %v %v", e.token, u, ok, err)
			}
		}
	})
}

// FuzzBasicAuthFile checks the password-file loader never panics and
// returns only *LineError.
func FuzzBasicAuthFile(f *testing.F) {
	f.Add("pw,alice,1,\"a,b\"\n")
	f.Add("pw,alice\n")
	f.Fuzz(func(t *testing.T, content string) {
		_, err := ReadBasicAuthFile("fuzz", strings.NewReader(content))
		var le *LineError
		if err != nil && !errors.As(err, &le) {
			t.Fatalf("error %v is not a *LineError", err)
		}
	})
}
