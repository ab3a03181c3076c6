package controller

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/orkit/orkit/api/coordination"
	"github.com/orkit/orkit/client"
)

// Defaults of LeaderElectionConfig, those of kube-controller-manager.
const (
	DefaultLeaseDuration = 15 * time.Second
	DefaultRenewDeadline = 10 * time.Second
	DefaultRetryPeriod   = 2 * time.Second
)

// LeaseClient is the part of a typed client a LeaderElector uses:
// client.For[coordination.Lease](c, namespace) is one. Update must be
// conditional on the object's resourceVersion (409 Conflict otherwise).
type LeaseClient interface {
	Get(ctx context.Context, name string) (*coordination.Lease, error)
	Create(ctx context.Context, lease *coordination.Lease) (*coordination.Lease, error)
	Update(ctx context.Context, lease *coordination.Lease) (*coordination.Lease, error)
}

var _ LeaseClient = (*client.Resource[coordination.Lease, *coordination.Lease])(nil)

// LeaderElectionConfig configures a LeaderElector. Namespace, Name and
// Identity are required, and Client or Leases.
type LeaderElectionConfig struct {
	// Client reaches the API server; the elector uses its Leases in
	// Namespace. Ignored when Leases is set.
	Client *client.Client
	// Leases overrides Client (tests, or a client with other settings).
	Leases LeaseClient
	// Namespace and Name name the coordination.k8s.io/v1 Lease.
	Namespace, Name string
	// Identity names this candidate; unique among candidates (host name
	// plus a random suffix is usual).
	Identity string
	// LeaseDuration is how long candidates wait, after they last saw the
	// lease change, before taking it over from a leader that stopped
	// renewing; default DefaultLeaseDuration. Written to the lease in
	// whole seconds (rounded up).
	LeaseDuration time.Duration
	// RenewDeadline is how long a leader keeps trying to renew before it
	// gives up leading; default DefaultRenewDeadline. Must be less than
	// LeaseDuration, so that a leader stops before others may take over.
	RenewDeadline time.Duration
	// RetryPeriod is the wait between attempts to acquire or renew;
	// default DefaultRetryPeriod. Must be less than RenewDeadline.
	RetryPeriod time.Duration
	// OnStartedLeading runs, on its own goroutine, once the lease is
	// acquired; its ctx is cancelled when leadership ends, and the elector
	// waits for it to return before it releases the lease. Required.
	OnStartedLeading func(ctx context.Context)
	// OnStoppedLeading, if set, is called after leading ended and
	// OnStartedLeading returned.
	OnStoppedLeading func()
	// OnNewLeader, if set, is called with each new holder the elector
	// observes (its own identity included), on the elector's goroutine:
	// it must not block.
	OnNewLeader func(identity string)
	// SkipRelease keeps the lease when Run's ctx ends, as a crash would
	// (others wait LeaseDuration). By default the lease is released, so
	// that another candidate takes over at once.
	SkipRelease bool
	// Logger; default slog.Default().
	Logger *slog.Logger
}

// fill applies defaults and checks the config.
func (c *LeaderElectionConfig) fill() error {
	if c.Namespace == "" || c.Name == "" || c.Identity == "" {
		return fmt.Errorf("%w: leader election needs a lease namespace, name and an identity", ErrInvalidConfig)
	}
	if c.Leases == nil {
		if c.Client == nil {
			return fmt.Errorf("%w: leader election needs a Client or Leases", ErrInvalidConfig)
		}
		c.Leases = client.For[coordination.Lease](c.Client, c.Namespace)
	}
	if c.OnStartedLeading == nil {
		return fmt.Errorf("%w: leader election needs OnStartedLeading", ErrInvalidConfig)
	}
	setDefault(&c.LeaseDuration, DefaultLeaseDuration)
	setDefault(&c.RenewDeadline, DefaultRenewDeadline)
	setDefault(&c.RetryPeriod, DefaultRetryPeriod)
	if c.LeaseDuration <= c.RenewDeadline {
		return fmt.Errorf("%w: LeaseDuration %v must be greater than RenewDeadline %v", ErrInvalidConfig, c.LeaseDuration, c.RenewDeadline)
	}
	if c.RenewDeadline <= c.RetryPeriod {
		return fmt.Errorf("%w: RenewDeadline %v must be greater than RetryPeriod %v", ErrInvalidConfig, c.RenewDeadline, c.RetryPeriod)
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	c.Logger = c.Logger.With("lease", c.Namespace+"/"+c.Name, "identity", c.Identity)
	return nil
}

func setDefault(d *time.Duration, def time.Duration) {
	if *d <= 0 {
		*d = def
	}
}
