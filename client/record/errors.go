package record

import "errors"

// Sentinel errors of the package; Writer.Record wraps one of them (check
// with errors.Is). Event and Eventf never return errors: they count and
// log what Record would have returned.
var (
	// ErrInvalidObject: the Event's subject cannot be referenced (nil, no
	// name, a kind the client's scheme does not know).
	ErrInvalidObject = errors.New("invalid event object")
	// ErrInvalidEvent: an Event type other than Normal or Warning, an empty
	// or oversized reason.
	ErrInvalidEvent = errors.New("invalid event")
	// ErrBufferFull: the Event was dropped because the buffer was full.
	ErrBufferFull = errors.New("event buffer full")
	// ErrRateLimited: the Event was dropped because its source spent its
	// tokens for that object.
	ErrRateLimited = errors.New("event rate limited")
	// ErrStopped: the Event was dropped because the Writer has stopped.
	ErrStopped = errors.New("event writer stopped")
)
