package certificates

import (
	"github.com/orkit/orkit/api/meta"
)

// GroupName is the API group of CertificateSigningRequest.
const GroupName = "certificates.k8s.io"

// Version is the API version of CertificateSigningRequest.
const Version = "v1"

// Well-known signers (Kubernetes' names).
const (
	// KubeAPIServerClientSignerName signs client certificates the API
	// server accepts; no request is approved automatically.
	KubeAPIServerClientSignerName = "kubernetes.io/kube-apiserver-client"
	// KubeAPIServerClientKubeletSignerName signs kubelets' client
	// certificates (CN system:node:<name>, O system:nodes).
	KubeAPIServerClientKubeletSignerName = "kubernetes.io/kube-apiserver-client-kubelet"
	// KubeletServingSignerName signs kubelets' serving certificates.
	KubeletServingSignerName = "kubernetes.io/kubelet-serving"
	// LegacyUnknownSignerName is never signed by the built-in signers.
	LegacyUnknownSignerName = "kubernetes.io/legacy-unknown"
)

// CertificateSigningRequest asks a signer for a certificate. The API
// server fills spec.username, uid, groups and extra from the creator; an
// approver adds an Approved or Denied condition through the approval
// subresource; the signer writes status.certificate through the status
// subresource. Cluster-scoped.
type CertificateSigningRequest struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            CertificateSigningRequestSpec   `json:"spec"`
	Status          CertificateSigningRequestStatus `json:"status,omitempty"`
}

// CertificateSigningRequestList is a list of CertificateSigningRequests.
type CertificateSigningRequestList = meta.List[CertificateSigningRequest]

// CertificateSigningRequestSpec is what is requested and, set by the
// API server, who requested it. It is immutable after create.
type CertificateSigningRequestSpec struct {
	// Request is a PEM "CERTIFICATE REQUEST" (base64 on the wire).
	Request []byte `json:"request"`
	// SignerName names the signer, "<domain>/<path>".
	SignerName string `json:"signerName"`
	// ExpirationSeconds is the requested validity (at least 600); the
	// signer may issue a shorter one.
	ExpirationSeconds *int32 `json:"expirationSeconds,omitempty"`
	// Usages are the requested key usages and extended key usages.
	Usages []KeyUsage `json:"usages,omitempty"`
	// Username, UID, Groups and Extra identify the creator; set by the
	// API server.
	Username string                `json:"username,omitempty"`
	UID      string                `json:"uid,omitempty"`
	Groups   []string              `json:"groups,omitempty"`
	Extra    map[string]ExtraValue `json:"extra,omitempty"`
}

// ExtraValue is one extra attribute of the requesting user.
type ExtraValue []string

// CertificateSigningRequestStatus is the approval and the answer.
type CertificateSigningRequestStatus struct {
	// Conditions: Approved, Denied (mutually exclusive, never removed)
	// and Failed.
	Conditions []CertificateSigningRequestCondition `json:"conditions,omitempty"`
	// Certificate is the issued certificate chain, PEM (base64 on the
	// wire); set once, after approval.
	Certificate []byte `json:"certificate,omitempty"`
}

// RequestConditionType is the type of a CertificateSigningRequestCondition.
type RequestConditionType string

// Condition types.
const (
	CertificateApproved RequestConditionType = "Approved"
	CertificateDenied   RequestConditionType = "Denied"
	CertificateFailed   RequestConditionType = "Failed"
)

// CertificateSigningRequestCondition is one condition of a request.
type CertificateSigningRequestCondition struct {
	Type               RequestConditionType `json:"type"`
	Status             meta.ConditionStatus `json:"status"`
	Reason             string               `json:"reason,omitempty"`
	Message            string               `json:"message,omitempty"`
	LastUpdateTime     meta.Time            `json:"lastUpdateTime,omitempty"`
	LastTransitionTime meta.Time            `json:"lastTransitionTime,omitempty"`
}

// KeyUsage is a key usage or extended key usage, as Kubernetes names them.
type KeyUsage string

// The key usages Kubernetes knows.
const (
	UsageSigning           KeyUsage = "signing"
	UsageDigitalSignature  KeyUsage = "digital signature"
	UsageContentCommitment KeyUsage = "content commitment"
	UsageKeyEncipherment   KeyUsage = "key encipherment"
	UsageKeyAgreement      KeyUsage = "key agreement"
	UsageDataEncipherment  KeyUsage = "data encipherment"
	UsageCertSign          KeyUsage = "cert sign"
	UsageCRLSign           KeyUsage = "crl sign"
	UsageEncipherOnly      KeyUsage = "encipher only"
	UsageDecipherOnly      KeyUsage = "decipher only"
	UsageAny               KeyUsage = "any"
	UsageServerAuth        KeyUsage = "server auth"
	UsageClientAuth        KeyUsage = "client auth"
	UsageCodeSigning       KeyUsage = "code signing"
	UsageEmailProtection   KeyUsage = "email protection"
	UsageSMIME             KeyUsage = "s/mime"
	UsageIPsecEndSystem    KeyUsage = "ipsec end system"
	UsageIPsecTunnel       KeyUsage = "ipsec tunnel"
	UsageIPsecUser         KeyUsage = "ipsec user"
	UsageTimestamping      KeyUsage = "timestamping"
	UsageOCSPSigning       KeyUsage = "ocsp signing"
	UsageMicrosoftSGC      KeyUsage = "microsoft sgc"
	UsageNetscapeSGC       KeyUsage = "netscape sgc"
)

// knownUsages is every KeyUsage validation accepts.
var knownUsages = map[KeyUsage]bool{
	UsageSigning: true, UsageDigitalSignature: true, UsageContentCommitment: true, UsageKeyEncipherment: true,
	UsageKeyAgreement: true, UsageDataEncipherment: true, UsageCertSign: true, UsageCRLSign: true,
	UsageEncipherOnly: true, UsageDecipherOnly: true, UsageAny: true, UsageServerAuth: true,
	UsageClientAuth: true, UsageCodeSigning: true, UsageEmailProtection: true, UsageSMIME: true,
	UsageIPsecEndSystem: true, UsageIPsecTunnel: true, UsageIPsecUser: true, UsageTimestamping: true,
	UsageOCSPSigning: true, UsageMicrosoftSGC: true, UsageNetscapeSGC: true,
}

// HasCondition reports whether csr has a condition of type t with status
// True.
func (csr *CertificateSigningRequest) HasCondition(t RequestConditionType) bool {
	for _, c := range csr.Status.Conditions {
		if c.Type == t && c.Status == meta.ConditionTrue {
			return true
		}
	}
	return false
}

// IsApproved reports an Approved condition (and no Denied one).
func (csr *CertificateSigningRequest) IsApproved() bool {
	return csr.HasCondition(CertificateApproved) && !csr.HasCondition(CertificateDenied)
}

// IsFinished reports a request that will not change any more: denied,
// failed, or with its certificate.
func (csr *CertificateSigningRequest) IsFinished() bool {
	return csr.HasCondition(CertificateDenied) || csr.HasCondition(CertificateFailed) || len(csr.Status.Certificate) > 0
}
