package authn

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// TokenFileAuthenticator authenticates bearer tokens listed in a static
// token file. It is immutable after loading and safe for concurrent use;
// to pick up a changed file, load a new one.
type TokenFileAuthenticator struct {
	// tokens is keyed by the SHA-256 of the token, so a lookup's timing
	// says nothing about the token itself; the final comparison is
	// constant-time.
	tokens map[[sha256.Size]byte]tokenEntry
}

type tokenEntry struct {
	token string
	user  *User
}

var _ Authenticator = (*TokenFileAuthenticator)(nil)

// TokenFile loads Kubernetes' static token file: CSV lines
// `token,user,uid,"group1,group2"` (the groups column is optional, extra
// columns are ignored, blank lines are skipped). A malformed line, an
// empty token or user name, or a token listed twice is an error naming
// the line (a *LineError wrapping ErrInvalidFile); nothing is loaded then.
func TokenFile(path string) (*TokenFileAuthenticator, error) {
	data, err := readFileLimited(path)
	if err != nil {
		return nil, err
	}
	return parseTokenFile(path, data)
}

// ReadTokenFile is TokenFile reading from r; name is used in errors.
func ReadTokenFile(name string, r io.Reader) (*TokenFileAuthenticator, error) {
	data, err := readLimited(name, r)
	if err != nil {
		return nil, err
	}
	return parseTokenFile(name, data)
}

func parseTokenFile(name string, data []byte) (*TokenFileAuthenticator, error) {
	recs, err := parseCSV(name, data, 3, "token, user name, user uid")
	if err != nil {
		return nil, err
	}
	a := &TokenFileAuthenticator{tokens: make(map[[sha256.Size]byte]tokenEntry, len(recs))}
	seen := make(map[[sha256.Size]byte]int, len(recs))
	for _, rec := range recs {
		tok := rec.fields[0]
		if tok == "" {
			return nil, &LineError{Path: name, Line: rec.line, Msg: "token is empty"}
		}
		u, err := recordUser(name, rec)
		if err != nil {
			return nil, err
		}
		h := sha256.Sum256([]byte(tok))
		if first, dup := seen[h]; dup {
			return nil, &LineError{Path: name, Line: rec.line,
				Msg: fmt.Sprintf("token already listed on line %d", first)}
		}
		seen[h] = rec.line
		a.tokens[h] = tokenEntry{token: tok, user: u}
	}
	return a, nil
}

// Len returns the number of tokens loaded.
func (a *TokenFileAuthenticator) Len() int { return len(a.tokens) }

// AuthenticateRequest implements Authenticator. A request without an
// `Authorization: Bearer` header is not ok; an unknown token is
// ErrInvalidToken.
func (a *TokenFileAuthenticator) AuthenticateRequest(r *http.Request) (*User, bool, error) {
	tok, found := BearerToken(r)
	if !found {
		return nil, false, nil
	}
	return a.AuthenticateToken(tok)
}

// AuthenticateToken checks a bearer token taken from elsewhere (a
// WebSocket protocol header, for instance).
func (a *TokenFileAuthenticator) AuthenticateToken(tok string) (*User, bool, error) {
	e, ok := a.tokens[sha256.Sum256([]byte(tok))]
	if !ok || subtle.ConstantTimeCompare([]byte(e.token), []byte(tok)) != 1 {
		return nil, false, ErrInvalidToken
	}
	return e.user.Clone(), true, nil
}

// BearerToken returns the token of an `Authorization: Bearer <token>`
// header (scheme case-insensitive, as kube-apiserver reads it) and whether
// there was one.
func BearerToken(r *http.Request) (string, bool) {
	auth := strings.TrimSpace(r.Header.Get("Authorization"))
	scheme, tok, ok := strings.Cut(auth, " ")
	if !ok || !strings.EqualFold(scheme, "bearer") {
		return "", false
	}
	tok = strings.TrimSpace(tok)
	return tok, tok != ""
}
