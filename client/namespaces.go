package client

import (
	"context"

	"github.com/orkit/orkit/api/core"
)

// FinalizeNamespace writes ns.Spec.Finalizers through the namespace's
// finalize subresource (PUT /api/v1/namespaces/<name>/finalize), the only
// way to change them: the namespace controller empties them once a
// terminating namespace holds nothing more, and the server then removes
// it. It returns the namespace as stored. With ns.ResourceVersion set the
// write is conditional (409 Conflict otherwise) and may be retried.
func (c *Client) FinalizeNamespace(ctx context.Context, ns *core.Namespace) (*core.Namespace, error) {
	return For[core.Namespace](c, "").update(ctx, ns, "finalize")
}
