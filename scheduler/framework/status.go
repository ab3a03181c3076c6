package framework

import (
	"errors"
	"strings"
)

// Code is the outcome class of a plugin call.
type Code int

// The codes a Status carries. A nil *Status means Success.
const (
	// Success: the pod may go on (a nil *Status says the same).
	Success Code = iota
	// Error: the plugin failed for a reason unrelated to the pod's fit
	// (a bug, a broken dependency); the pod is retried with backoff.
	Error
	// Unschedulable: the pod does not fit the node now; preemption may
	// help, and a later cluster change may too.
	Unschedulable
	// UnschedulableAndUnresolvable: the pod can never fit the node, not
	// even by preempting pods (wrong node name, missing label, taint).
	UnschedulableAndUnresolvable
	// Wait: a Permit plugin holds the pod before binding.
	Wait
	// Skip: a PreScore or Bind plugin has nothing to do for this pod; the
	// framework skips its later calls (or asks the next binder).
	Skip
)

var codeNames = [...]string{"Success", "Error", "Unschedulable", "UnschedulableAndUnresolvable", "Wait", "Skip"}

// String returns the code's name.
func (c Code) String() string {
	if c >= 0 && int(c) < len(codeNames) {
		return codeNames[c]
	}
	return "Unknown"
}

// Status is the result of a plugin call: a Code, the reasons a user reads
// (for a failed filter, the words counted in the "0/N nodes are available"
// summary), the plugin that produced it and, for Error, the cause. A nil
// *Status is Success; every method works on nil. A Status is immutable
// once returned and may be shared between nodes.
type Status struct {
	code    Code
	reasons []string
	err     error
	plugin  string
}

// NewStatus returns a Status with code and reasons.
func NewStatus(code Code, reasons ...string) *Status {
	return &Status{code: code, reasons: reasons}
}

// AsStatus wraps err as an Error status; nil gives nil.
func AsStatus(err error) *Status {
	if err == nil {
		return nil
	}
	return &Status{code: Error, reasons: []string{err.Error()}, err: err}
}

// Code returns the code; Success for nil.
func (s *Status) Code() Code {
	if s == nil {
		return Success
	}
	return s.code
}

// Reasons returns the reasons; the slice is shared and must not be changed.
func (s *Status) Reasons() []string {
	if s == nil {
		return nil
	}
	return s.reasons
}

// Message joins the reasons with ", ".
func (s *Status) Message() string {
	if s == nil {
		return ""
	}
	return strings.Join(s.reasons, ", ")
}

// Plugin returns the name of the plugin that returned the status ("" when
// the framework has not recorded it).
func (s *Status) Plugin() string {
	if s == nil {
		return ""
	}
	return s.plugin
}

// WithPlugin returns a copy of s naming plugin; nil stays nil.
func (s *Status) WithPlugin(plugin string) *Status {
	if s == nil || s.plugin == plugin {
		return s
	}
	c := *s
	c.plugin = plugin
	return &c
}

// Err returns the cause of an Error status, or an error built from the
// reasons for any other failure; nil on Success.
func (s *Status) Err() error {
	if s.IsSuccess() {
		return nil
	}
	if s.err != nil {
		return s.err
	}
	return errors.New(s.Message())
}

// IsSuccess reports whether s is nil or Success.
func (s *Status) IsSuccess() bool { return s.Code() == Success }

// IsSkip reports whether s is Skip.
func (s *Status) IsSkip() bool { return s.Code() == Skip }

// IsRejected reports whether s says the pod does not fit
// (Unschedulable or UnschedulableAndUnresolvable).
func (s *Status) IsRejected() bool {
	c := s.Code()
	return c == Unschedulable || c == UnschedulableAndUnresolvable
}

// String is the code and message, for logs.
func (s *Status) String() string {
	if s == nil {
		return "Success"
	}
	if len(s.reasons) == 0 {
		return s.code.String()
	}
	return s.code.String() + ": " + s.Message()
}
