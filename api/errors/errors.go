package errors

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
)

func newStatus(code int32, reason meta.StatusReason, msg string, d *meta.StatusDetails) *meta.Status {
	return &meta.Status{
		TypeMeta: meta.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   meta.StatusFailure,
		Code:     code,
		Reason:   reason,
		Message:  msg,
		Details:  d,
	}
}

func qualified(gr meta.GroupResource, name string) string {
	if name == "" {
		return gr.String()
	}
	return fmt.Sprintf("%s %q", gr.String(), name)
}

// NewNotFound: `pods "web" not found` (404).
func NewNotFound(gr meta.GroupResource, name string) *meta.Status {
	return newStatus(http.StatusNotFound, meta.StatusReasonNotFound, qualified(gr, name)+" not found",
		&meta.StatusDetails{Name: name, Group: gr.Group, Kind: gr.Resource})
}

// NewAlreadyExists: `pods "web" already exists` (409).
func NewAlreadyExists(gr meta.GroupResource, name string) *meta.Status {
	return newStatus(http.StatusConflict, meta.StatusReasonAlreadyExists, qualified(gr, name)+" already exists",
		&meta.StatusDetails{Name: name, Group: gr.Group, Kind: gr.Resource})
}

// NewConflict: `Operation cannot be fulfilled on pods "web": <why>` (409).
func NewConflict(gr meta.GroupResource, name string, why error) *meta.Status {
	return newStatus(http.StatusConflict, meta.StatusReasonConflict,
		fmt.Sprintf("Operation cannot be fulfilled on %s: %v", qualified(gr, name), why),
		&meta.StatusDetails{Name: name, Group: gr.Group, Kind: gr.Resource})
}

// NewInvalid: `Deployment.apps "web" is invalid: [spec.replicas: ...]` (422).
func NewInvalid(gk meta.GroupVersionKind, name string, errs field.ErrorList) *meta.Status {
	causes := make([]meta.StatusCause, 0, len(errs))
	msgs := make([]string, 0, len(errs))
	for _, e := range errs {
		causes = append(causes, meta.StatusCause{Type: string(e.Type), Message: e.ErrorBody(), Field: e.Field})
		msgs = append(msgs, e.Error())
	}
	kind := gk.Kind
	if gk.Group != "" {
		kind += "." + gk.Group
	}
	msg := fmt.Sprintf("%s %q is invalid", kind, name)
	switch len(msgs) {
	case 0:
	case 1:
		msg += ": " + msgs[0]
	default:
		msg += ": [" + strings.Join(msgs, ", ") + "]"
	}
	return newStatus(http.StatusUnprocessableEntity, meta.StatusReasonInvalid, msg,
		&meta.StatusDetails{Name: name, Group: gk.Group, Kind: gk.Kind, Causes: causes})
}

// NewBadRequest (400).
func NewBadRequest(msg string) *meta.Status {
	return newStatus(http.StatusBadRequest, meta.StatusReasonBadRequest, msg, nil)
}

// NewUnauthorized (401).
func NewUnauthorized(msg string) *meta.Status {
	if msg == "" {
		msg = "Unauthorized"
	}
	return newStatus(http.StatusUnauthorized, meta.StatusReasonUnauthorized, msg, nil)
}

// NewForbidden (403) with a message already worded by the authorizer
// (`pods is forbidden: User "bob" cannot list ...`).
func NewForbidden(gr meta.GroupResource, name, msg string) *meta.Status {
	return newStatus(http.StatusForbidden, meta.StatusReasonForbidden, msg,
		&meta.StatusDetails{Name: name, Group: gr.Group, Kind: gr.Resource})
}

// NewResourceExpired (410, reason Expired): the requested resourceVersion
// is older than the server keeps, as kube-apiserver answers a list or watch
// from a compacted revision. The client lists again (IsResourceExpired).
func NewResourceExpired(msg string) *meta.Status {
	return newStatus(http.StatusGone, meta.StatusReasonExpired, msg, nil)
}

// NewMethodNotSupported (405).
func NewMethodNotSupported(gr meta.GroupResource, verb string) *meta.Status {
	return newStatus(http.StatusMethodNotAllowed, meta.StatusReasonMethodNotAllowed,
		fmt.Sprintf("%s is not supported on resources of kind %q", verb, gr.String()),
		&meta.StatusDetails{Group: gr.Group, Kind: gr.Resource})
}

// NewPathNotFound: `the server could not find the requested resource`
// (404), kube-apiserver's answer for a path no route serves (an unknown
// group or resource, a named object of a namespaced kind without a
// namespace, a cluster-scoped kind under a namespace).
func NewPathNotFound() *meta.Status {
	return newStatus(http.StatusNotFound, meta.StatusReasonNotFound,
		"the server could not find the requested resource", &meta.StatusDetails{})
}

// NewMethodNotAllowed: `the server does not allow this method on the
// requested resource` (405), kube-apiserver's answer for a path whose route
// does not take the method (a create or delete of a namespaced kind across
// all namespaces).
func NewMethodNotAllowed() *meta.Status {
	return newStatus(http.StatusMethodNotAllowed, meta.StatusReasonMethodNotAllowed,
		"the server does not allow this method on the requested resource", &meta.StatusDetails{})
}

// NewTooLargeResourceVersion: `Timeout: Too large resource version: 12,
// current: 10` (504, retry after one second), kube-apiserver's answer when
// a read asks for a resourceVersion the server has not reached in time.
// Its cause (ResourceVersionTooLarge) is what client-go's reflector checks.
func NewTooLargeResourceVersion(requested, current int64) *meta.Status {
	return newStatus(http.StatusGatewayTimeout, meta.StatusReasonTimeout,
		fmt.Sprintf("Timeout: Too large resource version: %d, current: %d", requested, current),
		&meta.StatusDetails{RetryAfterSeconds: 1, Causes: []meta.StatusCause{
			{Type: CauseTypeResourceVersionTooLarge, Message: "Too large resource version"},
		}})
}

// CauseTypeResourceVersionTooLarge is the cause type of
// NewTooLargeResourceVersion.
const CauseTypeResourceVersionTooLarge = "ResourceVersionTooLarge"

// NewNotAcceptable (406).
func NewNotAcceptable(msg string) *meta.Status {
	return newStatus(http.StatusNotAcceptable, meta.StatusReasonNotAcceptable, msg, nil)
}

// NewUnsupportedMediaType (415).
func NewUnsupportedMediaType(contentType string) *meta.Status {
	return newStatus(http.StatusUnsupportedMediaType, meta.StatusReasonUnsupportedMediaType,
		fmt.Sprintf("the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/merge-patch+json, application/json-patch+json, application/strategic-merge-patch+json (got %q)", contentType), nil)
}

// NewRequestEntityTooLarge (413).
func NewRequestEntityTooLarge(msg string) *meta.Status {
	return newStatus(http.StatusRequestEntityTooLarge, meta.StatusReasonRequestEntityTooLarge, msg, nil)
}

// NewTooManyRequests (429) asking the client to retry after seconds.
func NewTooManyRequests(msg string, retryAfterSeconds int32) *meta.Status {
	return newStatus(http.StatusTooManyRequests, meta.StatusReasonTooManyRequests, msg,
		&meta.StatusDetails{RetryAfterSeconds: retryAfterSeconds})
}

// NewTimeout (504).
func NewTimeout(msg string) *meta.Status {
	return newStatus(http.StatusGatewayTimeout, meta.StatusReasonTimeout, msg, nil)
}

// NewServiceUnavailable (503).
func NewServiceUnavailable(msg string) *meta.Status {
	return newStatus(http.StatusServiceUnavailable, meta.StatusReasonServiceUnavailable, msg, nil)
}

// NewInternalError (500).
func NewInternalError(err error) *meta.Status {
	return newStatus(http.StatusInternalServerError, meta.StatusReasonInternalError,
		fmt.Sprintf("Internal error occurred: %v", err), &meta.StatusDetails{Causes: []meta.StatusCause{{Message: err.Error()}}})
}

// FromError returns the *meta.Status in err's chain, or nil.
func FromError(err error) *meta.Status {
	var s *meta.Status
	if errors.As(err, &s) {
		return s
	}
	return nil
}

// ReasonForError returns the Status reason of err, or "" when err is not a Status.
func ReasonForError(err error) meta.StatusReason {
	if s := FromError(err); s != nil {
		return s.Reason
	}
	return meta.StatusReasonUnknown
}

func hasReason(err error, r meta.StatusReason) bool { return err != nil && ReasonForError(err) == r }

// IsNotFound reports whether err is a NotFound Status.
func IsNotFound(err error) bool { return hasReason(err, meta.StatusReasonNotFound) }

// IsAlreadyExists reports whether err is an AlreadyExists Status.
func IsAlreadyExists(err error) bool { return hasReason(err, meta.StatusReasonAlreadyExists) }

// IsConflict reports whether err is a Conflict Status.
func IsConflict(err error) bool { return hasReason(err, meta.StatusReasonConflict) }

// IsInvalid reports whether err is an Invalid Status.
func IsInvalid(err error) bool { return hasReason(err, meta.StatusReasonInvalid) }

// IsForbidden reports whether err is a Forbidden Status.
func IsForbidden(err error) bool { return hasReason(err, meta.StatusReasonForbidden) }

// IsUnauthorized reports whether err is an Unauthorized Status.
func IsUnauthorized(err error) bool { return hasReason(err, meta.StatusReasonUnauthorized) }

// IsResourceExpired reports whether err is a Status with reason Expired:
// the resourceVersion asked for is older than the server keeps (410 from
// kube-apiserver and orkit's API server alike).
func IsResourceExpired(err error) bool { return hasReason(err, meta.StatusReasonExpired) }

// IsGone reports whether err is a Status with reason Gone, or a 410 whose
// reason is not one the API defines (a proxy's plain 410), as client-go's
// IsGone does. A too-old resourceVersion is reason Expired, so code that
// must start over from a fresh list checks IsResourceExpired(err) ||
// IsGone(err), as client-go's reflector does.
func IsGone(err error) bool {
	s := FromError(err)
	if s == nil {
		return false
	}
	return s.Reason == meta.StatusReasonGone || s.Code == http.StatusGone && !knownReason(s.Reason)
}

// IsTooManyRequests reports whether err is a 429 Status.
func IsTooManyRequests(err error) bool { return hasReason(err, meta.StatusReasonTooManyRequests) }

// IsBadRequest reports whether err is a BadRequest Status.
func IsBadRequest(err error) bool { return hasReason(err, meta.StatusReasonBadRequest) }

// knownReason reports whether r is a reason the API defines (not empty).
func knownReason(r meta.StatusReason) bool {
	switch r {
	case meta.StatusReasonUnauthorized, meta.StatusReasonForbidden, meta.StatusReasonNotFound,
		meta.StatusReasonAlreadyExists, meta.StatusReasonConflict, meta.StatusReasonGone, meta.StatusReasonExpired,
		meta.StatusReasonInvalid, meta.StatusReasonBadRequest, meta.StatusReasonMethodNotAllowed,
		meta.StatusReasonNotAcceptable, meta.StatusReasonRequestEntityTooLarge, meta.StatusReasonUnsupportedMediaType,
		meta.StatusReasonTooManyRequests, meta.StatusReasonInternalError, meta.StatusReasonServiceUnavailable,
		meta.StatusReasonTimeout:
		return true
	}
	return false
}
