package workqueue

import "errors"

// ErrShuttingDown is returned by Get once the queue is shut down and holds
// no more keys.
var ErrShuttingDown = errors.New("workqueue: shutting down")
