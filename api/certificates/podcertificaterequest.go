package certificates

import (
	"github.com/orkit/orkit/api/meta"
)

// PodCertificateRequest limits and defaults, as in Kubernetes.
const (
	// MaxStubPKCS10RequestSize is the largest spec.stubPKCS10Request.
	MaxStubPKCS10RequestSize = 10 * 1024
	// MaxCertificateChainSize is the largest status.certificateChain.
	MaxCertificateChainSize = 100 * 1024
	// MinMaxExpirationSeconds is the smallest spec.maxExpirationSeconds
	// (one hour).
	MinMaxExpirationSeconds = 60 * 60
	// MaxMaxExpirationSeconds is the largest spec.maxExpirationSeconds
	// for signers outside kubernetes.io (91 days).
	MaxMaxExpirationSeconds = 91 * 24 * 60 * 60
	// KubernetesMaxMaxExpirationSeconds is the largest for signers in
	// kubernetes.io (one day).
	KubernetesMaxMaxExpirationSeconds = 24 * 60 * 60
	// DefaultMaxExpirationSeconds is what an unset
	// spec.maxExpirationSeconds defaults to (one day).
	DefaultMaxExpirationSeconds = 24 * 60 * 60
)

// PodCertificateRequest condition types: each terminal, at most one per
// request, always with status True.
const (
	PodCertificateRequestConditionTypeIssued = "Issued"
	PodCertificateRequestConditionTypeDenied = "Denied"
	PodCertificateRequestConditionTypeFailed = "Failed"
)

// Reasons a signer gives on a Denied or Failed condition (Kubernetes'
// well-known ones).
const (
	PodCertificateRequestConditionUnsupportedKeyType = "UnsupportedKeyType"
	PodCertificateRequestConditionInvalidUserConfig  = "InvalidUnverifiedUserAnnotations"
)

// PodCertificateRequest is a kubelet's request, on behalf of one pod, for
// a certificate from a signer (the podCertificate projected volume
// source). The spec is immutable; the signer answers through the status
// subresource with an Issued (certificate chain and times), Denied or
// Failed condition, after which the status never changes. Namespaced.
type PodCertificateRequest struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            PodCertificateRequestSpec   `json:"spec"`
	Status          PodCertificateRequestStatus `json:"status,omitempty"`
}

// PodCertificateRequestList is a list of PodCertificateRequests.
type PodCertificateRequestList = meta.List[PodCertificateRequest]

// PodCertificateRequestSpec is who asks (pod, service account, node, each
// with its UID), from which signer, for how long, and for which key (a
// PKCS#10 request signed by it, whose other contents are ignored).
type PodCertificateRequestSpec struct {
	SignerName           string `json:"signerName"`
	PodName              string `json:"podName"`
	PodUID               string `json:"podUID"`
	ServiceAccountName   string `json:"serviceAccountName"`
	ServiceAccountUID    string `json:"serviceAccountUID"`
	NodeName             string `json:"nodeName"`
	NodeUID              string `json:"nodeUID"`
	MaxExpirationSeconds *int32 `json:"maxExpirationSeconds,omitempty"`
	// StubPKCS10Request is a DER PKCS#10 request (base64 on the wire).
	StubPKCS10Request []byte `json:"stubPKCS10Request"`
	// UnverifiedUserAnnotations are passed from the pod's projection to
	// the signer unchecked.
	UnverifiedUserAnnotations map[string]string `json:"unverifiedUserAnnotations,omitempty"`
}

// PodCertificateRequestStatus is the signer's answer.
type PodCertificateRequestStatus struct {
	Conditions []meta.Condition `json:"conditions,omitempty"`
	// CertificateChain is PEM: the leaf first, then intermediates.
	CertificateChain string     `json:"certificateChain,omitempty"`
	NotBefore        *meta.Time `json:"notBefore,omitempty"`
	BeginRefreshAt   *meta.Time `json:"beginRefreshAt,omitempty"`
	NotAfter         *meta.Time `json:"notAfter,omitempty"`
}

// HasCondition reports a condition of type t with status True.
func (r *PodCertificateRequest) HasCondition(t string) bool {
	for _, c := range r.Status.Conditions {
		if c.Type == t && c.Status == meta.ConditionTrue {
			return true
		}
	}
	return false
}

// IsTerminal reports an Issued, Denied or Failed request.
func (r *PodCertificateRequest) IsTerminal() bool {
	return r.HasCondition(PodCertificateRequestConditionTypeIssued) ||
		r.HasCondition(PodCertificateRequestConditionTypeDenied) ||
		r.HasCondition(PodCertificateRequestConditionTypeFailed)
}

// DefaultPodCertificateRequest sets an unset spec.maxExpirationSeconds to
// DefaultMaxExpirationSeconds, as Kubernetes' defaulting does.
func DefaultPodCertificateRequest(r *PodCertificateRequest) {
	if r.Spec.MaxExpirationSeconds == nil {
		v := int32(DefaultMaxExpirationSeconds)
		r.Spec.MaxExpirationSeconds = &v
	}
}
