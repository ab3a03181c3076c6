package authorization

import (
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheme"
)

// Register adds the authorization.k8s.io/v1 review kinds to s:
// subjectaccessreviews, selfsubjectaccessreviews and selfsubjectrulesreviews
// (cluster-scoped) and localsubjectaccessreviews (namespaced). They are
// create-only; the API server answers them rather than storing them. It
// panics if a kind is already registered.
func Register(s *scheme.Scheme) {
	gv := meta.GroupVersion{Group: GroupName, Version: Version}
	s.MustRegister(
		scheme.Type{
			Kind: gv.WithKind("SubjectAccessReview"), Resource: "subjectaccessreviews",
			New:     func() meta.Object { return &SubjectAccessReview{} },
			NewList: func() meta.ListObject { return &SubjectAccessReviewList{} },
			Validate: func(o meta.Object) field.ErrorList {
				return ValidateSubjectAccessReview(o.(*SubjectAccessReview))
			},
		},
		scheme.Type{
			Kind: gv.WithKind("SelfSubjectAccessReview"), Resource: "selfsubjectaccessreviews",
			New:     func() meta.Object { return &SelfSubjectAccessReview{} },
			NewList: func() meta.ListObject { return &SelfSubjectAccessReviewList{} },
			Validate: func(o meta.Object) field.ErrorList {
				return ValidateSelfSubjectAccessReview(o.(*SelfSubjectAccessReview))
			},
		},
		scheme.Type{
			Kind: gv.WithKind("LocalSubjectAccessReview"), Resource: "localsubjectaccessreviews", Namespaced: true,
			New:     func() meta.Object { return &LocalSubjectAccessReview{} },
			NewList: func() meta.ListObject { return &LocalSubjectAccessReviewList{} },
			Validate: func(o meta.Object) field.ErrorList {
				return ValidateLocalSubjectAccessReview(o.(*LocalSubjectAccessReview))
			},
		},
		scheme.Type{
			Kind: gv.WithKind("SelfSubjectRulesReview"), Resource: "selfsubjectrulesreviews",
			New:     func() meta.Object { return &SelfSubjectRulesReview{} },
			NewList: func() meta.ListObject { return &SelfSubjectRulesReviewList{} },
			Validate: func(o meta.Object) field.ErrorList {
				return ValidateSelfSubjectRulesReview(o.(*SelfSubjectRulesReview))
			},
		},
	)
}
