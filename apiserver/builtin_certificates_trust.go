package apiserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/orkit/orkit/api/certificates"
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/fields"
	"github.com/orkit/orkit/api/labels"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/validation"
	"github.com/orkit/orkit/authn"
	"github.com/orkit/orkit/authz"
)

// ctbGVR and pcrGVR are certificates.k8s.io/v1 clustertrustbundles and
// podcertificaterequests.
var (
	ctbGVR = meta.GroupVersionResource{Group: certificates.GroupName, Version: certificates.Version, Resource: "clustertrustbundles"}
	pcrGVR = meta.GroupVersionResource{Group: certificates.GroupName, Version: certificates.Version, Resource: "podcertificaterequests"}
)

// addCertificatesExtras adds the strategies, tables and selectable fields
// of ClusterTrustBundles and PodCertificateRequests.
func (s *Server) addCertificatesExtras(m map[meta.GroupVersionResource]func(*Resource)) {
	m[ctbGVR] = func(r *Resource) { r.Table, r.Fields = ctbTable, ctbFields }
	m[pcrGVR] = func(r *Resource) {
		r.Strategy = &pcrStrategy{DefaultStrategy: NewDefaultStrategy(r.Type), srv: s}
		r.Table, r.Fields = pcrTable, pcrFields
	}
}

// pcrStrategy is Kubernetes' strategy for PodCertificateRequests: the
// default one (status owned by the status subresource, the stored
// metadata kept by status updates) plus the signer check: a change of
// the status needs the "sign" verb on the request's signer
// (certificates.k8s.io signers, by name or "<domain>/*").
type pcrStrategy struct {
	*DefaultStrategy
	srv *Server
}

// ValidateUpdate runs the scheme's checks, then the signer check when
// the status changes.
func (s *pcrStrategy) ValidateUpdate(ctx context.Context, obj, old meta.Object) field.ErrorList {
	if errs := s.DefaultStrategy.ValidateUpdate(ctx, obj, old); len(errs) > 0 {
		return errs
	}
	n, o := obj.(*certificates.PodCertificateRequest), old.(*certificates.PodCertificateRequest)
	if validation.SemanticEqual(n.Status, o.Status) {
		return nil
	}
	p := field.NewPath("spec", "signerName")
	u := authn.UserFrom(ctx)
	if u == nil {
		return field.ErrorList{field.InternalError(p, fmt.Errorf(`cannot determine calling user to perform "sign" check`))}
	}
	if !signerAuthorized(ctx, s.srv.authorizer, u, "sign", o.Spec.SignerName) {
		return field.ErrorList{field.Forbidden(p, fmt.Sprintf("User %q is not permitted to \"sign\" for signer %q", u.Name, o.Spec.SignerName))}
	}
	return nil
}

// signerAuthorized asks a whether u may verb the signer signerName:
// certificates.k8s.io signers named signerName, or "<domain>/*".
func signerAuthorized(ctx context.Context, a authz.Authorizer, u *authn.User, verb, signerName string) bool {
	if a == nil {
		return false
	}
	names := []string{signerName}
	if domain, _, ok := strings.Cut(signerName, "/"); ok {
		names = append(names, domain+"/*")
	}
	for _, name := range names {
		d, _, err := a.Authorize(ctx, authz.Attributes{User: u, Verb: verb, APIGroup: certificates.GroupName,
			APIVersion: "*", Resource: "signers", Name: name, ResourceRequest: true})
		if err == nil && d == authz.DecisionAllow {
			return true
		}
	}
	return false
}

// ctbTable is kubectl's view of ClusterTrustBundles: Name and SignerName.
var ctbTable = &TableConvertor{
	NoDefaults: true,
	Columns: []TableColumn{nameColumn,
		col("SignerName", "string", "The signer the bundle belongs to, if any.", 0)},
	Cells: func(obj meta.Object) []any {
		b := obj.(*certificates.ClusterTrustBundle)
		signer := b.Spec.SignerName
		if signer == "" {
			signer = "<none>"
		}
		return []any{b.Name, signer}
	},
}

// pcrTable is kubectl's view of PodCertificateRequests.
var pcrTable = &TableConvertor{
	NoDefaults: true,
	Columns: []TableColumn{nameColumn,
		col("PodName", "string", "The pod the certificate is for.", 0),
		col("ServiceAccountName", "string", "The pod's service account.", 0),
		col("NodeName", "string", "The node the pod runs on.", 0),
		col("SignerName", "string", "The signer asked.", 0),
		col("State", "string", "Is the request Pending, Issued, Denied, or Failed?", 0),
		col("UnverifiedUserAnnotations", "string", "Annotations passed to the signer unchecked.", 1)},
	Cells: func(obj meta.Object) []any {
		r := obj.(*certificates.PodCertificateRequest)
		state := "Pending"
		for _, c := range r.Status.Conditions {
			switch c.Type {
			case certificates.PodCertificateRequestConditionTypeIssued, certificates.PodCertificateRequestConditionTypeDenied,
				certificates.PodCertificateRequestConditionTypeFailed:
				state = c.Type
			}
		}
		return []any{r.Name, r.Spec.PodName, r.Spec.ServiceAccountName, r.Spec.NodeName, r.Spec.SignerName, state,
			labels.Set(r.Spec.UnverifiedUserAnnotations).String()}
	},
}

// ctbFields are kube-apiserver's selectable fields of a
// ClusterTrustBundle: spec.signerName.
func ctbFields(obj meta.Object) fields.Set {
	return fields.Set{"spec.signerName": obj.(*certificates.ClusterTrustBundle).Spec.SignerName}
}

// pcrFields are kube-apiserver's selectable fields of a
// PodCertificateRequest: spec.signerName, spec.podName, spec.nodeName.
func pcrFields(obj meta.Object) fields.Set {
	r := obj.(*certificates.PodCertificateRequest)
	return fields.Set{"spec.signerName": r.Spec.SignerName, "spec.podName": r.Spec.PodName, "spec.nodeName": r.Spec.NodeName}
}
