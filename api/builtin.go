package api

import (
	"github.com/orkit/orkit/api/admissionregistration"
	"github.com/orkit/orkit/api/apiextensions"
	"github.com/orkit/orkit/api/apiregistration"
	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/authentication"
	"github.com/orkit/orkit/api/authorization"
	"github.com/orkit/orkit/api/autoscaling"
	"github.com/orkit/orkit/api/batch"
	"github.com/orkit/orkit/api/certificates"
	"github.com/orkit/orkit/api/coordination"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/discovery"
	"github.com/orkit/orkit/api/dra"
	"github.com/orkit/orkit/api/flowcontrol"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/networking"
	"github.com/orkit/orkit/api/node"
	"github.com/orkit/orkit/api/policy"
	"github.com/orkit/orkit/api/rbac"
	"github.com/orkit/orkit/api/scheduling"
	"github.com/orkit/orkit/api/scheme"
	"github.com/orkit/orkit/api/storage"
	"github.com/orkit/orkit/api/storagemigration"
)

// NewScheme returns a new scheme holding every built-in kind. Each call
// builds an independent scheme, so a caller may register its own kinds on
// top without affecting others. autoscaling/v1 Scale is not registered: it
// is the body of the scale subresource, not a resource of its own; nor is
// the autoscaling/v1 view of HorizontalPodAutoscalers, which the API
// server serves by converting the stored autoscaling/v2 objects.
func NewScheme() *scheme.Scheme {
	s := scheme.New()
	core.Register(s)
	apps.Register(s)
	batch.Register(s)
	autoscaling.Register(s)
	policy.Register(s)
	rbac.Register(s)
	coordination.Register(s)
	discovery.Register(s)
	networking.Register(s)
	scheduling.Register(s)
	node.Register(s)
	storage.Register(s)
	admissionregistration.Register(s)
	authorization.Register(s)
	authentication.Register(s)
	certificates.Register(s)
	apiextensions.Register(s)
	apiregistration.Register(s)
	flowcontrol.Register(s)
	storagemigration.Register(s)
	dra.Register(s)
	return s
}

// IsCreateOnly reports whether gr is a built-in resource that only accepts
// POST and is never stored: the access and token reviews, whose response is
// the request with its status filled in, and core bindings, which the API
// server turns into an update of the pod. The API server serves these
// specially; every other registered resource is an ordinary stored one.
func IsCreateOnly(gr meta.GroupResource) bool {
	switch gr.Group {
	case "":
		return gr.Resource == "bindings"
	case authorization.GroupName:
		switch gr.Resource {
		case "subjectaccessreviews", "selfsubjectaccessreviews", "localsubjectaccessreviews", "selfsubjectrulesreviews":
			return true
		}
	case authentication.GroupName:
		return gr.Resource == "tokenreviews" || gr.Resource == "selfsubjectreviews"
	}
	return false
}
