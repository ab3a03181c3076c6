package certificates

import (
	"time"

	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheme"
)

// Register adds the certificates.k8s.io/v1 kinds to s:
// certificatesigningrequests (cluster-scoped, short name csr,
// subresources status and approval), clustertrustbundles
// (cluster-scoped) and podcertificaterequests (namespaced, subresource
// status). It panics if a kind is already registered.
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
	s.MustRegister(scheme.Type{
		Kind:     meta.GroupVersionKind{Group: GroupName, Version: Version, Kind: "ClusterTrustBundle"},
		Resource: "clustertrustbundles",
		New:      func() meta.Object { return &ClusterTrustBundle{} },
		NewList:  func() meta.ListObject { return &ClusterTrustBundleList{} },
		Validate: func(o meta.Object) field.ErrorList { return ValidateClusterTrustBundle(o.(*ClusterTrustBundle)) },
		ValidateUpdate: func(o, old meta.Object) field.ErrorList {
			return ValidateClusterTrustBundleUpdate(o.(*ClusterTrustBundle), old.(*ClusterTrustBundle))
		},
	})
	s.MustRegister(scheme.Type{
		Kind:         meta.GroupVersionKind{Group: GroupName, Version: Version, Kind: "PodCertificateRequest"},
		Resource:     "podcertificaterequests",
		Namespaced:   true,
		Subresources: []string{"status"},
		New:          func() meta.Object { return &PodCertificateRequest{} },
		NewList:      func() meta.ListObject { return &PodCertificateRequestList{} },
		Default:      func(o meta.Object) { DefaultPodCertificateRequest(o.(*PodCertificateRequest)) },
		Validate:     func(o meta.Object) field.ErrorList { return ValidatePodCertificateRequest(o.(*PodCertificateRequest)) },
		ValidateUpdate: func(o, old meta.Object) field.ErrorList {
			return ValidatePodCertificateRequestUpdate(o.(*PodCertificateRequest), old.(*PodCertificateRequest), time.Now())
		},
	})
}
