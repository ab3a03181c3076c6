package certificates

import (
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheme"
)

// Register adds certificates.k8s.io/v1 certificatesigningrequests
// (cluster-scoped, short name csr, subresources status and approval) to
// s. It panics if the kind is already registered.
func Register(s *scheme.Scheme) {
	s.MustRegister(scheme.Type{
		Kind:         meta.GroupVersionKind{Group: GroupName, Version: Version, Kind: "CertificateSigningRequest"},
		Resource:     "certificatesigningrequests",
		ShortNames:   []string{"csr"},
		Subresources: []string{"status", "approval"},
		New:          func() meta.Object { return &CertificateSigningRequest{} },
		NewList:      func() meta.ListObject { return &CertificateSigningRequestList{} },
		Validate: func(o meta.Object) field.ErrorList {
			return ValidateCertificateSigningRequest(o.(*CertificateSigningRequest))
		},
		ValidateUpdate: func(o, old meta.Object) field.ErrorList {
			return ValidateCertificateSigningRequestUpdate(o.(*CertificateSigningRequest), old.(*CertificateSigningRequest))
		},
	})
}
