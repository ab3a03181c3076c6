package authn

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// BasicAuthenticator authenticates HTTP basic credentials listed in a
// password file. It is immutable after loading and safe for concurrent
// use.
type BasicAuthenticator struct {
	users map[string]basicEntry
}

type basicEntry struct {
	hash [sha256.Size]byte // SHA-256 of the password: equal-length compare
	user *User
}

var _ Authenticator = (*BasicAuthenticator)(nil)

// BasicAuthFile loads Kubernetes' basic-auth file: CSV lines
// `password,user,uid,"group1,group2"` (groups optional, extra columns
// ignored, blank lines skipped). A malformed line, an empty password or
// user name, or a user listed twice is an error naming the line (a
// *LineError wrapping ErrInvalidFile).
func BasicAuthFile(path string) (*BasicAuthenticator, error) {
	data, err := readFileLimited(path)
	if err != nil {
		return nil, err
	}
	return parseBasicAuthFile(path, data)
}

// ReadBasicAuthFile is BasicAuthFile reading from r; name is used in errors.
func ReadBasicAuthFile(name string, r io.Reader) (*BasicAuthenticator, error) {
	data, err := readLimited(name, r)
	if err != nil {
		return nil, err
	}
	return parseBasicAuthFile(name, data)
}

func parseBasicAuthFile(name string, data []byte) (*BasicAuthenticator, error) {
	recs, err := parseCSV(name, data, 3, "password, user name, user uid")
	if err != nil {
		return nil, err
	}
	a := &BasicAuthenticator{users: make(map[string]basicEntry, len(recs))}
	seen := make(map[string]int, len(recs))
	for _, rec := range recs {
		if rec.fields[0] == "" {
			return nil, &LineError{Path: name, Line: rec.line, Msg: "password is empty"}
		}
		u, err := recordUser(name, rec)
		if err != nil {
			return nil, err
		}
		if first, dup := seen[u.Name]; dup {
			return nil, &LineError{Path: name, Line: rec.line,
				Msg: fmt.Sprintf("user %q already listed on line %d", u.Name, first)}
		}
		seen[u.Name] = rec.line
		a.users[u.Name] = basicEntry{hash: sha256.Sum256([]byte(rec.fields[0])), user: u}
	}
	return a, nil
}

// AuthenticateRequest implements Authenticator. A request without an
// `Authorization: Basic` header is not ok; undecodable credentials, an
// unknown user or a wrong password is ErrInvalidBasicAuth.
func (a *BasicAuthenticator) AuthenticateRequest(r *http.Request) (*User, bool, error) {
	scheme, _, _ := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	if !strings.EqualFold(scheme, "basic") {
		return nil, false, nil
	}
	name, password, ok := r.BasicAuth()
	if !ok {
		return nil, false, fmt.Errorf("%w: undecodable credentials", ErrInvalidBasicAuth)
	}
	got := sha256.Sum256([]byte(password))
	e, known := a.users[name]
	// Compare even for an unknown user, so timing does not tell users apart.
	match := subtle.ConstantTimeCompare(e.hash[:], got[:]) == 1
	if !known || !match {
		return nil, false, ErrInvalidBasicAuth
	}
	return e.user.Clone(), true, nil
}
