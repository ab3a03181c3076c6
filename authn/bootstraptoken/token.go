package bootstraptoken

import (
	"crypto/rand"
	"fmt"
	"strings"
	"time"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

// Names Kubernetes gives bootstrap token Secrets and their keys.
const (
	// SecretType is the type of a bootstrap token Secret.
	SecretType core.SecretType = "bootstrap.kubernetes.io/token"
	// Namespace holds the token Secrets.
	Namespace = "kube-system"
	// SecretPrefix starts a token Secret's name; the token ID follows.
	SecretPrefix = "bootstrap-token-"
	// UserPrefix starts a token's user name; the token ID follows.
	UserPrefix = "system:bootstrap:"
	// Group is every token user's group.
	Group = "system:bootstrappers"
)

// Keys of a token Secret's data, as Kubernetes names them.
const (
	KeyTokenID           = "token-id"
	KeyTokenSecret       = "token-secret"
	KeyExpiration        = "expiration" // RFC 3339; absent: never expires
	KeyDescription       = "description"
	KeyUsageAuthenticate = "usage-bootstrap-authentication" // "true" to authenticate
	KeyUsageSigning      = "usage-bootstrap-signing"
	KeyAuthExtraGroups   = "auth-extra-groups" // comma-separated system:bootstrappers:<name>
)

const (
	idLen, secretLen      = 6, 16
	tokenChars            = "abcdefghijklmnopqrstuvwxyz0123456789"
	extraGroupPrefix      = Group + ":"
	maxExtraGroupNameSize = 256
)

// Token is a bootstrap token: a public ID and a secret.
type Token struct {
	ID, Secret string
}

// String is the bearer form, "<id>.<secret>".
func (t Token) String() string { return t.ID + "." + t.Secret }

// Parse reads "<id>.<secret>"; anything else fails with ErrMalformed.
func Parse(s string) (Token, error) {
	id, secret, ok := strings.Cut(s, ".")
	if !ok || !valid(id, idLen) || !valid(secret, secretLen) {
		return Token{}, ErrMalformed
	}
	return Token{ID: id, Secret: secret}, nil
}

func valid(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := range len(s) {
		if !strings.ContainsRune(tokenChars, rune(s[i])) {
			return false
		}
	}
	return true
}

// Generate makes a random token (crypto/rand).
func Generate() (Token, error) {
	b := make([]byte, idLen+secretLen)
	if _, err := rand.Read(b); err != nil {
		return Token{}, fmt.Errorf("bootstrap token: %w", err)
	}
	for i := range b {
		b[i] = tokenChars[int(b[i])%len(tokenChars)]
	}
	return Token{ID: string(b[:idLen]), Secret: string(b[idLen:])}, nil
}

// NewSecret returns the Secret that makes t valid for authentication and
// signing until now+ttl (no expiration when ttl is 0), its users also in
// extraGroups (each "system:bootstrappers:<name>").
func NewSecret(t Token, ttl time.Duration, description string, extraGroups ...string) *core.Secret {
	data := map[string][]byte{
		KeyTokenID: []byte(t.ID), KeyTokenSecret: []byte(t.Secret),
		KeyUsageAuthenticate: []byte("true"), KeyUsageSigning: []byte("true"),
	}
	if ttl > 0 {
		data[KeyExpiration] = []byte(time.Now().Add(ttl).UTC().Format(time.RFC3339))
	}
	if description != "" {
		data[KeyDescription] = []byte(description)
	}
	if len(extraGroups) > 0 {
		data[KeyAuthExtraGroups] = []byte(strings.Join(extraGroups, ","))
	}
	return &core.Secret{
		TypeMeta:   meta.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: meta.ObjectMeta{Name: SecretPrefix + t.ID, Namespace: Namespace},
		Type:       SecretType, Data: data,
	}
}
