package scheduler

import "errors"

// Sentinel errors of the scheduler; match them with errors.Is.
var (
	// ErrInvalidConfig: a Config is malformed (no client, duplicate
	// scheduler names, a bad profile).
	ErrInvalidConfig = errors.New("invalid scheduler config")
	// ErrAlreadyAssumed: AssumePod for a pod the cache already holds.
	ErrAlreadyAssumed = errors.New("pod already in the cache")
	// ErrNotAssumed: FinishBinding or ForgetPod for a pod not assumed.
	ErrNotAssumed = errors.New("pod not assumed")
	// ErrNoNodes: there is no node to schedule on.
	ErrNoNodes = errors.New("no nodes available to schedule pods")
	// ErrQueueClosed: Pop on a closed queue.
	ErrQueueClosed = errors.New("scheduling queue closed")
	// ErrExtender: an HTTP extender failed (unreachable, bad status,
	// malformed answer, or an error it reported).
	ErrExtender = errors.New("extender failed")
	// ErrUnknownProfile: a pod names a scheduler no profile serves.
	ErrUnknownProfile = errors.New("no profile for scheduler name")
)
