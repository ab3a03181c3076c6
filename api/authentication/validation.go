package authentication

import "github.com/orkit/orkit/api/field"

// ValidateTokenReview checks a TokenReview: the token is required.
func ValidateTokenReview(r *TokenReview) field.ErrorList {
	if r.Spec.Token == "" {
		return field.ErrorList{field.Required(field.NewPath("spec", "token"), "")}
	}
	return nil
}
