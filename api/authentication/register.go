package authentication

import (
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheme"
)

// Register adds authentication.k8s.io/v1 tokenreviews and
// selfsubjectreviews (both cluster-scoped and create-only) to s. It panics if
// a kind is already registered.
func Register(s *scheme.Scheme) {
	gv := meta.GroupVersion{Group: GroupName, Version: Version}
	s.MustRegister(
		scheme.Type{
			Kind: gv.WithKind("TokenReview"), Resource: "tokenreviews",
			New:      func() meta.Object { return &TokenReview{} },
			NewList:  func() meta.ListObject { return &TokenReviewList{} },
			Validate: func(o meta.Object) field.ErrorList { return ValidateTokenReview(o.(*TokenReview)) },
		},
		scheme.Type{
			Kind: gv.WithKind("SelfSubjectReview"), Resource: "selfsubjectreviews",
			New:     func() meta.Object { return &SelfSubjectReview{} },
			NewList: func() meta.ListObject { return &SelfSubjectReviewList{} },
		},
	)
}
