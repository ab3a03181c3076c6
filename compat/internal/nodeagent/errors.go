package nodeagent

import "errors"

// ErrNoNodes is returned by Lease when the agent has no such Node.
var ErrNoNodes = errors.New("nodeagent: no such node")
