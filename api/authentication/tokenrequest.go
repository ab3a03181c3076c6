package authentication

import (
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
)

// Limits of TokenRequest.spec.expirationSeconds, as Kubernetes validates
// them.
const (
	// DefaultTokenExpirationSeconds is the lifetime of a token whose
	// request names none: one hour.
	DefaultTokenExpirationSeconds int64 = 60 * 60
	// MinTokenExpirationSeconds is the shortest lifetime a request may ask
	// for: ten minutes.
	MinTokenExpirationSeconds int64 = 10 * 60
	// MaxTokenExpirationSeconds is the longest: 2^32 seconds.
	MaxTokenExpirationSeconds int64 = 1 << 32
)

// TokenRequest asks for a service-account token (POST
// serviceaccounts/<name>/token, `kubectl create token`); the answer
// carries it in status. It is never stored.
type TokenRequest struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            TokenRequestSpec   `json:"spec"`
	Status          TokenRequestStatus `json:"status,omitempty"`
}

// TokenRequestSpec is what the token is for: its audiences (empty means
// the API server's), its lifetime (nil means
// DefaultTokenExpirationSeconds) and the object it is bound to (nil:
// none).
type TokenRequestSpec struct {
	Audiences         []string              `json:"audiences"`
	ExpirationSeconds *int64                `json:"expirationSeconds"`
	BoundObjectRef    *BoundObjectReference `json:"boundObjectRef"`
}

// TokenRequestStatus is the token and when it expires.
type TokenRequestStatus struct {
	Token               string    `json:"token"`
	ExpirationTimestamp meta.Time `json:"expirationTimestamp"`
}

// BoundObjectReference names the object a token is bound to: a v1 Pod,
// Secret or Node. A UID, when given, must be the object's.
type BoundObjectReference struct {
	Kind       string   `json:"kind,omitempty"`
	APIVersion string   `json:"apiVersion,omitempty"`
	Name       string   `json:"name,omitempty"`
	UID        meta.UID `json:"uid,omitempty"`
}

// SetDefaults fills the lifetime of a request that names none.
func (r *TokenRequest) SetDefaults() {
	if r.Spec.ExpirationSeconds == nil {
		d := DefaultTokenExpirationSeconds
		r.Spec.ExpirationSeconds = &d
	}
}

// ValidateTokenRequest checks a defaulted TokenRequest as Kubernetes
// does: a lifetime between ten minutes and 2^32 seconds, non-empty
// audiences.
func ValidateTokenRequest(r *TokenRequest) field.ErrorList {
	var errs field.ErrorList
	p := field.NewPath("spec")
	if e := r.Spec.ExpirationSeconds; e != nil {
		switch {
		case *e < MinTokenExpirationSeconds:
			errs = append(errs, field.Invalid(p.Child("expirationSeconds"), *e, "may not specify a duration less than 10 minutes"))
		case *e > MaxTokenExpirationSeconds:
			errs = append(errs, field.Invalid(p.Child("expirationSeconds"), *e, "may not specify a duration larger than 2^32 seconds"))
		}
	}
	for i, a := range r.Spec.Audiences {
		if a == "" {
			errs = append(errs, field.Invalid(p.Child("audiences").Index(i), a, "may not be empty"))
		}
	}
	return errs
}
