package namespace

import (
	"context"
	"fmt"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/client"
)

// Finalizer writes a namespace's spec.finalizers through the finalize
// subresource. The controller's default writes through the manager's
// client (client.FinalizeNamespace); tests or other transports pass their
// own in Config.Finalizer. Implementations are safe for concurrent use.
type Finalizer interface {
	Finalize(ctx context.Context, ns *core.Namespace) error
}

// clientFinalizer is the default Finalizer, over a client.
type clientFinalizer struct{ c *client.Client }

var _ Finalizer = clientFinalizer{}

// Finalize writes ns's spec.finalizers; a namespace already gone is not
// an error. Other errors wrap ErrFinalize and the server's Status.
func (f clientFinalizer) Finalize(ctx context.Context, ns *core.Namespace) error {
	_, err := f.c.FinalizeNamespace(ctx, ns)
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		return fmt.Errorf("%w: namespace %s: %w", ErrFinalize, ns.Name, err)
	}
	return nil
}
