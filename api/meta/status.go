package meta

import "fmt"

// Status values of a Status object.
const (
	StatusSuccess = "Success"
	StatusFailure = "Failure"
)

// StatusReason is the machine-readable reason of a failed request, with the
// values Kubernetes uses.
type StatusReason string

// The reasons Kubernetes uses, with the HTTP code each goes with.
const (
	StatusReasonUnknown               StatusReason = ""                      // 500
	StatusReasonUnauthorized          StatusReason = "Unauthorized"          // 401
	StatusReasonForbidden             StatusReason = "Forbidden"             // 403
	StatusReasonNotFound              StatusReason = "NotFound"              // 404
	StatusReasonAlreadyExists         StatusReason = "AlreadyExists"         // 409
	StatusReasonConflict              StatusReason = "Conflict"              // 409
	StatusReasonGone                  StatusReason = "Gone"                  // 410
	StatusReasonExpired               StatusReason = "Expired"               // 410
	StatusReasonInvalid               StatusReason = "Invalid"               // 422
	StatusReasonBadRequest            StatusReason = "BadRequest"            // 400
	StatusReasonMethodNotAllowed      StatusReason = "MethodNotAllowed"      // 405
	StatusReasonNotAcceptable         StatusReason = "NotAcceptable"         // 406
	StatusReasonRequestEntityTooLarge StatusReason = "RequestEntityTooLarge" // 413
	StatusReasonUnsupportedMediaType  StatusReason = "UnsupportedMediaType"  // 415
	StatusReasonTooManyRequests       StatusReason = "TooManyRequests"       // 429
	StatusReasonInternalError         StatusReason = "InternalError"         // 500
	StatusReasonServiceUnavailable    StatusReason = "ServiceUnavailable"    // 503
	StatusReasonTimeout               StatusReason = "Timeout"               // 504
)

// Status is the object the API returns for every error (and for some
// successful deletes). It implements error so it can travel as one.
type Status struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata"`
	Status   string         `json:"status,omitempty"`
	Message  string         `json:"message,omitempty"`
	Reason   StatusReason   `json:"reason,omitempty"`
	Details  *StatusDetails `json:"details,omitempty"`
	Code     int32          `json:"code,omitempty"`
}

// Error returns the message, so a *Status is an error.
func (s *Status) Error() string {
	if s.Message != "" {
		return s.Message
	}
	return fmt.Sprintf("%s (%d)", s.Reason, s.Code)
}

// StatusDetails names the object a Status is about and, for Invalid, the
// field errors.
type StatusDetails struct {
	Name              string        `json:"name,omitempty"`
	Group             string        `json:"group,omitempty"`
	Kind              string        `json:"kind,omitempty"`
	UID               UID           `json:"uid,omitempty"`
	Causes            []StatusCause `json:"causes,omitempty"`
	RetryAfterSeconds int32         `json:"retryAfterSeconds,omitempty"`
}

// StatusCause is one reason for a failure, usually one invalid field.
type StatusCause struct {
	Type    string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
	Field   string `json:"field,omitempty"`
}
