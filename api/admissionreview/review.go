package admissionreview

import (
	"encoding/json"

	"github.com/orkit/orkit/api/meta"
)

// GroupName and Version of AdmissionReview.
const (
	GroupName = "admission.k8s.io"
	Version   = "v1"
	// APIVersion is the apiVersion field of a v1 AdmissionReview.
	APIVersion = GroupName + "/" + Version
	// Kind is the kind field of an AdmissionReview.
	Kind = "AdmissionReview"
)

// PatchTypeJSONPatch is the one patch type a mutating webhook may return
// (RFC 6902).
const PatchTypeJSONPatch = "JSONPatch"

// AdmissionReview carries a request to a webhook and its response back.
type AdmissionReview struct {
	meta.TypeMeta `json:",inline"`
	Request       *AdmissionRequest  `json:"request,omitempty"`
	Response      *AdmissionResponse `json:"response,omitempty"`
}

// GroupVersionKind is a group, version and kind as the review spells it.
type GroupVersionKind struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

// GroupVersionResource is a group, version and resource as the review
// spells it.
type GroupVersionResource struct {
	Group    string `json:"group"`
	Version  string `json:"version"`
	Resource string `json:"resource"`
}

// UserInfo is the requesting user.
type UserInfo struct {
	Username string              `json:"username,omitempty"`
	UID      string              `json:"uid,omitempty"`
	Groups   []string            `json:"groups,omitempty"`
	Extra    map[string][]string `json:"extra,omitempty"`
}

// AdmissionRequest describes one admission request: the object (for
// create and update), the old object (for update and delete) and the
// request's options, all as raw JSON.
type AdmissionRequest struct {
	UID                string                `json:"uid"`
	Kind               GroupVersionKind      `json:"kind"`
	Resource           GroupVersionResource  `json:"resource"`
	SubResource        string                `json:"subResource,omitempty"`
	RequestKind        *GroupVersionKind     `json:"requestKind,omitempty"`
	RequestResource    *GroupVersionResource `json:"requestResource,omitempty"`
	RequestSubResource string                `json:"requestSubResource,omitempty"`
	Name               string                `json:"name,omitempty"`
	Namespace          string                `json:"namespace,omitempty"`
	Operation          string                `json:"operation"`
	UserInfo           UserInfo              `json:"userInfo"`
	Object             json.RawMessage       `json:"object,omitempty"`
	OldObject          json.RawMessage       `json:"oldObject,omitempty"`
	DryRun             *bool                 `json:"dryRun,omitempty"`
	Options            json.RawMessage       `json:"options,omitempty"`
}

// AdmissionResponse is a webhook's answer: UID must repeat the request's;
// Result explains a denial; Patch (base64 in JSON, as []byte marshals)
// with PatchType "JSONPatch" mutates the object.
type AdmissionResponse struct {
	UID              string            `json:"uid"`
	Allowed          bool              `json:"allowed"`
	Result           *meta.Status      `json:"status,omitempty"`
	Patch            []byte            `json:"patch,omitempty"`
	PatchType        *string           `json:"patchType,omitempty"`
	AuditAnnotations map[string]string `json:"auditAnnotations,omitempty"`
	Warnings         []string          `json:"warnings,omitempty"`
}
