package deployment

import "errors"

var (
	// ErrInvalidConfig: New was given no manager or a Config it cannot use.
	ErrInvalidConfig = errors.New("deployment: invalid config")
	// ErrHashCollision: a ReplicaSet of the new template's name exists
	// with another template; collisionCount was raised and the
	// reconcile is retried with a new name.
	ErrHashCollision = errors.New("deployment: pod template hash collision")
)
