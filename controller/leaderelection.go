package controller

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/orkit/orkit/api/coordination"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
)

// LeaderElector elects one leader among candidates through a
// coordination.k8s.io/v1 Lease, as client-go's leaderelection does:
//
//   - A candidate takes the lease when it does not exist, when its holder
//     is empty (released), or when the candidate has seen the lease
//     unchanged for the lease's duration (the holder stopped renewing).
//     Time is measured on the candidate's own clock from when it observed
//     the lease change, so clock skew between hosts does not matter.
//   - Every write is conditional on the resourceVersion read just before
//     (optimistic concurrency): of two candidates racing, one gets a 409
//     Conflict and loses.
//   - The leader renews every RetryPeriod; if it cannot renew for
//     RenewDeadline (< LeaseDuration) or finds another holder, it stops
//     leading before anyone else may take over.
//   - On a clean stop (Run's ctx ends) the leader first waits for
//     OnStartedLeading to return, then releases the lease (empty holder),
//     so another candidate takes over at its next attempt.
//
// A LeaderElector runs once: make a new one to stand again. Its methods
// are safe for concurrent use.
type LeaderElector struct {
	cfg LeaderElectionConfig

	leading   atomic.Bool
	lastRenew atomic.Int64 // unix nanoseconds of the last successful acquire or renew

	mu         sync.Mutex
	ran        bool
	observed   *coordination.Lease // the lease as last read or written
	observedAt time.Time           // when the holder or renew time last changed, on our clock
	leader     string
}

// NewLeaderElector checks cfg, fills its defaults and returns a stopped
// elector. It fails with ErrInvalidConfig when cfg is incomplete or its
// durations are out of order.
func NewLeaderElector(cfg LeaderElectionConfig) (*LeaderElector, error) {
	if err := cfg.fill(); err != nil {
		return nil, err
	}
	return &LeaderElector{cfg: cfg}, nil
}

// IsLeader reports whether this elector currently holds the lease.
func (le *LeaderElector) IsLeader() bool { return le.leading.Load() }

// Leader returns the holder this elector last observed ("" if none).
func (le *LeaderElector) Leader() string {
	le.mu.Lock()
	defer le.mu.Unlock()
	return le.leader
}

// LastRenew returns when this elector last acquired or renewed the lease
// (zero if never).
func (le *LeaderElector) LastRenew() time.Time {
	n := le.lastRenew.Load()
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n)
}

// Config returns the elector's configuration with defaults filled in.
func (le *LeaderElector) Config() LeaderElectionConfig { return le.cfg }

// Run stands for election until ctx ends: it tries to acquire the lease
// every RetryPeriod (with jitter), then leads (OnStartedLeading) while it
// renews. It returns nil when ctx ends, ErrLeaderElectionLost when the
// lease could not be renewed in time or was taken by another identity,
// and ErrAlreadyRunning when called twice.
func (le *LeaderElector) Run(ctx context.Context) error {
	le.mu.Lock()
	ran := le.ran
	le.ran = true
	le.mu.Unlock()
	if ran {
		return fmt.Errorf("%w: leader elector %q", ErrAlreadyRunning, le.cfg.Identity)
	}
	if !le.acquire(ctx) {
		return nil
	}
	le.cfg.Logger.Info("became leader")
	leadCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		le.cfg.OnStartedLeading(leadCtx)
	}()
	err := le.renewLoop(ctx)
	cancel()
	<-done
	le.leading.Store(false)
	if err != nil {
		le.cfg.Logger.Error("stopped leading", "err", err)
	} else if !le.cfg.SkipRelease {
		le.release()
	}
	if le.cfg.OnStoppedLeading != nil {
		le.cfg.OnStoppedLeading()
	}
	return err
}

// acquire tries until it holds the lease (true) or ctx ends (false).
func (le *LeaderElector) acquire(ctx context.Context) bool {
	for {
		ok, err := le.tryAcquireOrRenew(ctx)
		if ok {
			le.leading.Store(true)
			return true
		}
		switch {
		case err == nil || ctx.Err() != nil:
		case errors.Is(err, ErrLeaseHeld) || apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err):
			le.cfg.Logger.Debug("lease not acquired", "err", err) // another candidate won this round
		default:
			le.cfg.Logger.Warn("could not acquire lease", "err", err)
		}
		if !sleep(ctx, jitter(le.cfg.RetryPeriod)) {
			return false
		}
	}
}

// renewLoop renews every RetryPeriod until ctx ends (nil) or a renewal
// fails for RenewDeadline or finds another holder (ErrLeaderElectionLost).
func (le *LeaderElector) renewLoop(ctx context.Context) error {
	for {
		if !sleep(ctx, le.cfg.RetryPeriod) {
			return nil
		}
		if err := le.renew(ctx); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
	}
}

// renew retries one renewal every RetryPeriod for at most RenewDeadline.
func (le *LeaderElector) renew(ctx context.Context) error {
	rctx, cancel := context.WithTimeout(ctx, le.cfg.RenewDeadline)
	defer cancel()
	for {
		ok, err := le.tryAcquireOrRenew(rctx)
		switch {
		case ok:
			return nil
		case errors.Is(err, ErrLeaseHeld):
			return fmt.Errorf("%w: %w", ErrLeaderElectionLost, err)
		}
		if !sleep(rctx, le.cfg.RetryPeriod) {
			return fmt.Errorf("%w: no renewal within %v: %w", ErrLeaderElectionLost, le.cfg.RenewDeadline, err)
		}
	}
}

// tryAcquireOrRenew makes one attempt: read the lease, decide, write.
func (le *LeaderElector) tryAcquireOrRenew(ctx context.Context) (bool, error) {
	actx, cancel := context.WithTimeout(ctx, le.cfg.RenewDeadline)
	defer cancel()
	now := time.Now()
	cur, err := le.cfg.Leases.Get(actx, le.cfg.Name)
	switch {
	case apierrors.IsNotFound(err):
		l := nextLease(&coordination.Lease{ObjectMeta: meta.ObjectMeta{Namespace: le.cfg.Namespace, Name: le.cfg.Name}},
			le.cfg.Identity, now, le.cfg.LeaseDuration)
		created, err := le.cfg.Leases.Create(actx, l)
		if err != nil {
			return false, fmt.Errorf("create lease: %w", err)
		}
		le.observe(created, now)
		le.lastRenew.Store(now.UnixNano())
		return true, nil
	case err != nil:
		return false, fmt.Errorf("get lease: %w", err)
	}
	observedAt := le.observe(cur, now)
	if !mayTake(cur, le.cfg.Identity, observedAt, le.cfg.LeaseDuration, now) {
		return false, fmt.Errorf("%w: %q", ErrLeaseHeld, holderOf(cur))
	}
	updated, err := le.cfg.Leases.Update(actx, nextLease(cur, le.cfg.Identity, now, le.cfg.LeaseDuration))
	if err != nil {
		return false, fmt.Errorf("update lease: %w", err)
	}
	le.observe(updated, now)
	le.lastRenew.Store(now.UnixNano())
	return true, nil
}

// observe records l as the last lease seen and returns when its holder or
// renew time last changed (now, if they differ from the previous one).
func (le *LeaderElector) observe(l *coordination.Lease, now time.Time) time.Time {
	le.mu.Lock()
	prev := le.observed
	changed := prev == nil || holderOf(prev) != holderOf(l) || !renewTimeOf(prev).Equal(renewTimeOf(l))
	le.observed = l
	if changed {
		le.observedAt = now
	}
	at := le.observedAt
	newLeader := holderOf(l) != le.leader
	le.leader = holderOf(l)
	le.mu.Unlock()
	if newLeader && holderOf(l) != "" && le.cfg.OnNewLeader != nil {
		le.cfg.OnNewLeader(holderOf(l))
	}
	return at
}

// release empties the holder of the lease this elector last wrote, on a
// fresh context (Run's has ended). A conflict means someone else wrote
// the lease since: there is nothing left to release.
func (le *LeaderElector) release() {
	le.mu.Lock()
	cur := le.observed
	le.mu.Unlock()
	if cur == nil || holderOf(cur) != le.cfg.Identity {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), le.cfg.RenewDeadline)
	defer cancel()
	if _, err := le.cfg.Leases.Update(ctx, releasedLease(cur, time.Now())); err != nil {
		le.cfg.Logger.Warn("could not release lease", "err", err)
		return
	}
	le.cfg.Logger.Info("released lease")
}

// mayTake decides whether identity may write itself as the holder of
// cur at now, having seen cur's holder and renew time unchanged since
// observedAt: the lease is free, already ours, or its term (the holder's
// declared duration, else def) has run out.
func mayTake(cur *coordination.Lease, identity string, observedAt time.Time, def time.Duration, now time.Time) bool {
	h := holderOf(cur)
	if h == "" || h == identity {
		return true
	}
	d := def
	if s := cur.Spec.LeaseDurationSeconds; s != nil && *s > 0 {
		d = time.Duration(*s) * time.Second
	}
	return !now.Before(observedAt.Add(d))
}

// nextLease returns cur with identity as the holder, renewed at now; a
// change of holder sets the acquire time and counts a transition. cur is
// not modified; its resourceVersion is kept for the conditional update.
func nextLease(cur *coordination.Lease, identity string, now time.Time, d time.Duration) *coordination.Lease {
	l := meta.DeepCopy(cur)
	t := meta.MicroTime{Time: now.Truncate(time.Microsecond)}
	if holderOf(cur) != identity {
		l.Spec.AcquireTime = &t
		if holderOf(cur) != "" || l.Spec.LeaseTransitions != nil { // not a brand new lease
			n := int32(0)
			if l.Spec.LeaseTransitions != nil {
				n = *l.Spec.LeaseTransitions
			}
			n = max(n, 0)
			if n < math.MaxInt32 { // saturate rather than wrap
				n++
			}
			l.Spec.LeaseTransitions = &n
		}
	}
	if l.Spec.AcquireTime == nil {
		l.Spec.AcquireTime = &t
	}
	if l.Spec.LeaseTransitions == nil {
		l.Spec.LeaseTransitions = new(int32)
	}
	secs := int32(max(1, math.Ceil(d.Seconds())))
	l.Spec.HolderIdentity, l.Spec.LeaseDurationSeconds, l.Spec.RenewTime = &identity, &secs, &t
	return l
}

// releasedLease returns cur with no holder, as client-go releases.
func releasedLease(cur *coordination.Lease, now time.Time) *coordination.Lease {
	l := meta.DeepCopy(cur)
	t := meta.MicroTime{Time: now.Truncate(time.Microsecond)}
	empty, one := "", int32(1)
	l.Spec.HolderIdentity, l.Spec.LeaseDurationSeconds, l.Spec.RenewTime, l.Spec.AcquireTime = &empty, &one, &t, &t
	return l
}

func holderOf(l *coordination.Lease) string {
	if l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

func renewTimeOf(l *coordination.Lease) time.Time {
	if l.Spec.RenewTime == nil {
		return time.Time{}
	}
	return l.Spec.RenewTime.Time
}

// jitter returns d plus up to 20%, so that candidates spread out.
func jitter(d time.Duration) time.Duration {
	return d + time.Duration(rand.Int64N(int64(d)/5+1))
}

// sleep waits d and reports true, or false once ctx is done.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
