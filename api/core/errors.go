package core

import (
	"errors"
	"fmt"
)

// ErrWrongType is reported (inside a field.InternalError) when a scheme
// hook registered for one kind is handed an object of another.
var ErrWrongType = errors.New("object of the wrong type")

// ErrInvalidOptions is matched (errors.Is) by every error that
// ParsePodLogOptions, ParsePodExecOptions and ParseKubeletExecQuery
// return; the error's own text is the message for the caller (the API
// server and the kubelet answer 400 with it).
var ErrInvalidOptions = errors.New("invalid options")

// optionsError is an ErrInvalidOptions whose text is exactly its message,
// so the Status a client gets reads as Kubernetes'.
type optionsError struct{ msg string }

func optionsErrorf(format string, args ...any) error {
	return &optionsError{msg: fmt.Sprintf(format, args...)}
}

func (e *optionsError) Error() string { return e.msg }

// Is makes every optionsError match ErrInvalidOptions.
func (e *optionsError) Is(target error) bool { return target == ErrInvalidOptions }
