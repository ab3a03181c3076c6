package deployment

import "errors"

var (
	// ErrInvalidOptions: New was given options it cannot use.
	ErrInvalidOptions = errors.New("deployment: invalid options")
	// ErrHashCollision: a ReplicaSet of the new template's name exists
	// with another template; collisionCount was raised and the
	// reconcile is retried with a new name.
	ErrHashCollision = errors.New("deployment: pod template hash collision")
)
