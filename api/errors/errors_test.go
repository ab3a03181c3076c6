package errors

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
)

func TestMessagesAndPredicates(t *testing.T) {
	pods := meta.GroupResource{Resource: "pods"}
	deploys := meta.GroupResource{Group: "apps", Resource: "deployments"}
	tests := []struct {
		name string
		err  *meta.Status
		code int32
		msg  string
		is   func(error) bool
	}{
		{"not found", NewNotFound(pods, "web"), http.StatusNotFound, `pods "web" not found`, IsNotFound},
		{"exists", NewAlreadyExists(deploys, "web"), http.StatusConflict, `deployments.apps "web" already exists`, IsAlreadyExists},
		{"conflict", NewConflict(pods, "web", fmt.Errorf("the object has been modified; please apply your changes to the latest version and try again")),
			http.StatusConflict, `Operation cannot be fulfilled on pods "web": the object has been modified; please apply your changes to the latest version and try again`, IsConflict},
		{"invalid", NewInvalid(meta.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, "web",
			field.ErrorList{field.Invalid(field.NewPath("spec", "replicas"), -1, "must be greater than or equal to 0")}),
			http.StatusUnprocessableEntity, `Deployment.apps "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0`, IsInvalid},
		{"expired", NewResourceExpired("too old resource version: 1 (5)"), http.StatusGone, "too old resource version: 1 (5)", IsResourceExpired},
		{"429", NewTooManyRequests("too many requests", 1), http.StatusTooManyRequests, "too many requests", IsTooManyRequests},
		{"no route", NewPathNotFound(), http.StatusNotFound, "the server could not find the requested resource", IsNotFound},
		{"method", NewMethodNotAllowed(), http.StatusMethodNotAllowed, "the server does not allow this method on the requested resource",
			func(err error) bool { return ReasonForError(err) == meta.StatusReasonMethodNotAllowed }},
		{"too large rv", NewTooLargeResourceVersion(12, 10), http.StatusGatewayTimeout, "Timeout: Too large resource version: 12, current: 10",
			func(err error) bool {
				st := FromError(err)
				return st != nil && st.Reason == meta.StatusReasonTimeout && st.Details.RetryAfterSeconds == 1 &&
					len(st.Details.Causes) == 1 && st.Details.Causes[0].Type == CauseTypeResourceVersionTooLarge
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.code, tt.err.Code)
			assert.Equal(t, tt.msg, tt.err.Message)
			assert.Equal(t, "Status", tt.err.Kind)
			assert.True(t, tt.is(fmt.Errorf("wrapped: %w", tt.err)))
			assert.False(t, tt.is(fmt.Errorf("plain")))
		})
	}
}

// TestExpiredAndGone: kube-apiserver answers a too-old resourceVersion with
// 410 reason Expired; a 410 reason Gone, or a 410 with no reason the API
// defines, is Gone. Code that relists checks both, as client-go does.
func TestExpiredAndGone(t *testing.T) {
	status := func(code int32, reason meta.StatusReason) error {
		return fmt.Errorf("watch: %w", &meta.Status{Code: code, Reason: reason})
	}
	tests := []struct {
		name          string
		err           error
		expired, gone bool
	}{
		{"kube-apiserver too old", NewResourceExpired("too old resource version: 1 (5)"), true, false},
		{"reason Gone", status(http.StatusGone, meta.StatusReasonGone), false, true},
		{"410 without a reason", status(http.StatusGone, ""), false, true},
		{"410 with an unknown reason", status(http.StatusGone, "Vanished"), false, true},
		{"Expired with another code", status(http.StatusInternalServerError, meta.StatusReasonExpired), true, false},
		{"409 conflict", status(http.StatusConflict, meta.StatusReasonConflict), false, false},
		{"not a Status", fmt.Errorf("410 gone"), false, false},
		{"nil", nil, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.expired, IsResourceExpired(tt.err), "IsResourceExpired")
			assert.Equal(t, tt.gone, IsGone(tt.err), "IsGone")
		})
	}
}
