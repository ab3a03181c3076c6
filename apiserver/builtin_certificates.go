package apiserver

import (
	"context"
	"strings"
	"time"

	"github.com/orkit/orkit/api/certificates"
	"github.com/orkit/orkit/api/fields"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/authn"
)

// csrGVR is certificates.k8s.io/v1 certificatesigningrequests.
var csrGVR = meta.GroupVersionResource{Group: certificates.GroupName, Version: certificates.Version, Resource: "certificatesigningrequests"}

// csrStrategy is Kubernetes' strategy for CertificateSigningRequests: the
// creator's identity goes into the spec on create; the spec never changes
// afterwards; the main resource cannot change the status, the status
// subresource cannot change the approval conditions (so a signer cannot
// approve its own work) and the approval subresource changes only the
// conditions.
type csrStrategy struct{ *DefaultStrategy }

// PrepareForCreate clears the status and records the creator.
func (s *csrStrategy) PrepareForCreate(ctx context.Context, obj meta.Object) {
	csr := obj.(*certificates.CertificateSigningRequest)
	csr.Status = certificates.CertificateSigningRequestStatus{}
	csr.Spec.Username, csr.Spec.UID, csr.Spec.Groups, csr.Spec.Extra = "", "", nil, nil
	if u := authn.UserFrom(ctx); u != nil {
		csr.Spec.Username, csr.Spec.UID, csr.Spec.Groups = u.Name, u.UID, append([]string(nil), u.Groups...)
		for k, v := range u.Extra {
			if csr.Spec.Extra == nil {
				csr.Spec.Extra = map[string]certificates.ExtraValue{}
			}
			csr.Spec.Extra[k] = append(certificates.ExtraValue(nil), v...)
		}
	}
}

// PrepareForUpdate keeps the spec, and the part of the status the
// subresource does not own.
func (s *csrStrategy) PrepareForUpdate(ctx context.Context, obj, old meta.Object, subresource string) {
	n, o := obj.(*certificates.CertificateSigningRequest), old.(*certificates.CertificateSigningRequest)
	n.Spec = o.Spec
	switch subresource {
	case "status":
		var conds []certificates.CertificateSigningRequestCondition
		for _, c := range o.Status.Conditions {
			if isApprovalCondition(c.Type) {
				conds = append(conds, c)
			}
		}
		for _, c := range n.Status.Conditions {
			if !isApprovalCondition(c.Type) {
				conds = append(conds, c)
			}
		}
		n.Status.Conditions = conds
	case "approval":
		n.Status.Certificate = o.Status.Certificate
	default:
		n.Status = o.Status
	}
	// The status and approval subresources keep metadata changes, as
	// kube-apiserver's csrStatusStrategy and csrApprovalStrategy do.
	stampConditions(n, o)
	n.Generation = o.Generation
}

func isApprovalCondition(t certificates.RequestConditionType) bool {
	return t == certificates.CertificateApproved || t == certificates.CertificateDenied
}

// stampConditions fills the times of new or changed conditions, as
// Kubernetes' strategy does.
func stampConditions(n, o *certificates.CertificateSigningRequest) {
	now := meta.Time{Time: time.Now().Truncate(time.Second)}
	for i := range n.Status.Conditions {
		c := &n.Status.Conditions[i]
		if c.LastUpdateTime.IsZero() {
			c.LastUpdateTime = now
		}
		if !c.LastTransitionTime.IsZero() {
			continue
		}
		c.LastTransitionTime = now
		for _, oc := range o.Status.Conditions {
			if oc.Type == c.Type && oc.Status == c.Status && !oc.LastTransitionTime.IsZero() {
				c.LastTransitionTime = oc.LastTransitionTime
			}
		}
	}
}

// csrTable is kubectl's view of CertificateSigningRequests.
var csrTable = &TableConvertor{
	Columns: []TableColumn{
		col("SignerName", "string", "The name of the signer.", 0),
		col("Requestor", "string", "The user who made the request.", 0),
		col("RequestedDuration", "string", "The requested validity of the certificate.", 0),
		col("Condition", "string", "The state of the request.", 0),
	},
	AgeBefore: "SignerName",
	Cells: func(obj meta.Object) []any {
		csr := obj.(*certificates.CertificateSigningRequest)
		dur := "<none>"
		if e := csr.Spec.ExpirationSeconds; e != nil {
			dur = HumanDuration(time.Duration(*e) * time.Second)
		}
		return []any{csr.Spec.SignerName, csr.Spec.Username, dur, csrCondition(csr)}
	},
}

// csrCondition is the Condition column: the true condition types joined
// by commas, "Issued" once there is a certificate, or "Pending".
func csrCondition(csr *certificates.CertificateSigningRequest) string {
	var parts []string
	for _, c := range csr.Status.Conditions {
		if c.Status == meta.ConditionTrue || c.Status == "" {
			parts = append(parts, string(c.Type))
		}
	}
	if len(csr.Status.Certificate) > 0 {
		parts = append(parts, "Issued")
	}
	if len(parts) == 0 {
		return "Pending"
	}
	return strings.Join(parts, ",")
}

// csrFields are kube-apiserver's selectable fields of a
// CertificateSigningRequest: spec.signerName (the conformance "CSR API
// operations" spec lists and watches by it).
func csrFields(obj meta.Object) fields.Set {
	return fields.Set{"spec.signerName": obj.(*certificates.CertificateSigningRequest).Spec.SignerName}
}
