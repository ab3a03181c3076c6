package controller

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/coordination"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
)

var leasesGR = meta.GroupResource{Group: coordination.GroupName, Resource: "leases"}

// fakeLeases is an in-memory LeaseClient with resourceVersions and
// conditional updates, and a switch that makes every call fail.
type fakeLeases struct {
	mu     sync.Mutex
	rv     int
	leases map[string]*coordination.Lease
	down   atomic.Bool
	writes atomic.Int64
	// conflicts makes that many next updates fail with 409 Conflict.
	conflicts atomic.Int32
}

func newFakeLeases() *fakeLeases { return &fakeLeases{leases: map[string]*coordination.Lease{}} }

var errDown = errors.New("connection refused")

func (f *fakeLeases) Get(_ context.Context, name string) (*coordination.Lease, error) {
	if f.down.Load() {
		return nil, errDown
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	l, ok := f.leases[name]
	if !ok {
		return nil, apierrors.NewNotFound(leasesGR, name)
	}
	return meta.DeepCopy(l), nil
}

func (f *fakeLeases) Create(_ context.Context, l *coordination.Lease) (*coordination.Lease, error) {
	if f.down.Load() {
		return nil, errDown
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.leases[l.Name]; ok {
		return nil, apierrors.NewAlreadyExists(leasesGR, l.Name)
	}
	return f.store(l), nil
}

func (f *fakeLeases) Update(_ context.Context, l *coordination.Lease) (*coordination.Lease, error) {
	if f.down.Load() {
		return nil, errDown
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	cur, ok := f.leases[l.Name]
	if !ok {
		return nil, apierrors.NewNotFound(leasesGR, l.Name)
	}
	if f.conflicts.Add(-1) >= 0 || l.ResourceVersion != cur.ResourceVersion {
		return nil, apierrors.NewConflict(leasesGR, l.Name, errors.New("the object has been modified"))
	}
	return f.store(l), nil
}

func (f *fakeLeases) store(l *coordination.Lease) *coordination.Lease {
	f.rv++
	l = meta.DeepCopy(l)
	l.ResourceVersion = strconv.Itoa(f.rv)
	f.leases[l.Name] = l
	f.writes.Add(1)
	return meta.DeepCopy(l)
}

func (f *fakeLeases) holder(name string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if l, ok := f.leases[name]; ok {
		return holderOf(l)
	}
	return ""
}

// candidate is a running LeaderElector and what its callbacks saw.
type candidate struct {
	el      *LeaderElector
	cancel  context.CancelFunc
	done    chan error
	started atomic.Int32
	stopped atomic.Int32

	once     sync.Once
	err      error
	returned bool
}

func standFor(t *testing.T, leases LeaseClient, id string, tune func(*LeaderElectionConfig)) *candidate {
	t.Helper()
	c := &candidate{done: make(chan error, 1)}
	cfg := LeaderElectionConfig{
		Leases: leases, Namespace: "kube-system", Name: "test-lock", Identity: id,
		LeaseDuration: time.Second, RenewDeadline: 700 * time.Millisecond, RetryPeriod: 100 * time.Millisecond,
		OnStartedLeading: func(ctx context.Context) { c.started.Add(1); <-ctx.Done() },
		OnStoppedLeading: func() { c.stopped.Add(1) },
		Logger:           quietLogger(),
	}
	if tune != nil {
		tune(&cfg)
	}
	el, err := NewLeaderElector(cfg)
	require.NoError(t, err)
	c.el = el
	ctx, cancel := context.WithCancel(context.Background())
	c.cancel = cancel
	go func() { c.done <- el.Run(ctx) }()
	t.Cleanup(func() { c.stop() })
	return c
}

// stop cancels the candidate and returns Run's error.
func (c *candidate) stop() error {
	c.cancel()
	return c.result(forever)
}

const forever = time.Duration(1<<63 - 1)

// result waits at most d for Run to return and returns its error; it
// may be called any number of times.
func (c *candidate) result(d time.Duration) error {
	c.once.Do(func() {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case c.err = <-c.done:
			c.returned = true
		case <-t.C:
		}
	})
	if !c.returned {
		return errors.New("Run did not return")
	}
	return c.err
}

// exactlyOneLeads polls until one of cs leads, failing if two ever lead
// at once, and returns the leader.
func exactlyOneLeads(t *testing.T, cs ...*candidate) *candidate {
	t.Helper()
	var leader *candidate
	eventually(t, wait, func() bool {
		n := 0
		for _, c := range cs {
			if c.el.IsLeader() {
				leader = c
				n++
			}
		}
		require.LessOrEqual(t, n, 1, "two leaders at once")
		return n == 1
	}, "a leader is elected")
	return leader
}

func TestLeaderElectionConfigChecks(t *testing.T) {
	leases := newFakeLeases()
	ok := func(c *LeaderElectionConfig) {}
	for _, tc := range []struct {
		name string
		edit func(*LeaderElectionConfig)
		ok   bool
	}{
		{"valid with defaults", ok, true},
		{"no client", func(c *LeaderElectionConfig) { c.Leases = nil }, false},
		{"no name", func(c *LeaderElectionConfig) { c.Name = "" }, false},
		{"no namespace", func(c *LeaderElectionConfig) { c.Namespace = "" }, false},
		{"no identity", func(c *LeaderElectionConfig) { c.Identity = "" }, false},
		{"no callback", func(c *LeaderElectionConfig) { c.OnStartedLeading = nil }, false},
		{"renew deadline not below lease duration", func(c *LeaderElectionConfig) {
			c.LeaseDuration, c.RenewDeadline = time.Second, time.Second
		}, false},
		{"retry period not below renew deadline", func(c *LeaderElectionConfig) {
			c.RenewDeadline, c.RetryPeriod = 3*time.Second, 3*time.Second
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := LeaderElectionConfig{Leases: leases, Namespace: "ns", Name: "l", Identity: "me",
				OnStartedLeading: func(context.Context) {}}
			tc.edit(&cfg)
			el, err := NewLeaderElector(cfg)
			if !tc.ok {
				assert.ErrorIs(t, err, ErrInvalidConfig)
				return
			}
			require.NoError(t, err)
			got := el.Config()
			assert.Equal(t, []time.Duration{DefaultLeaseDuration, DefaultRenewDeadline, DefaultRetryPeriod},
				[]time.Duration{got.LeaseDuration, got.RenewDeadline, got.RetryPeriod})
		})
	}
}

func lease(holder string, durSecs int32) *coordination.Lease {
	l := &coordination.Lease{ObjectMeta: meta.ObjectMeta{Namespace: "ns", Name: "l", ResourceVersion: "7"}}
	if holder != "-" {
		l.Spec.HolderIdentity = &holder
	}
	if durSecs > 0 {
		l.Spec.LeaseDurationSeconds = &durSecs
	}
	return l
}

func TestMayTake(t *testing.T) {
	t0 := time.Unix(1000, 0)
	for _, tc := range []struct {
		name string
		cur  *coordination.Lease
		now  time.Time
		want bool
	}{
		{"no holder field", lease("-", 0), t0, true},
		{"released", lease("", 15), t0, true},
		{"ours", lease("me", 15), t0, true},
		{"other, fresh", lease("other", 15), t0.Add(14 * time.Second), false},
		{"other, expired", lease("other", 15), t0.Add(15 * time.Second), true},
		{"other, lease's own duration wins", lease("other", 2), t0.Add(3 * time.Second), true},
		{"other, default duration when unset", lease("other", 0), t0.Add(9 * time.Second), false},
		{"other, default duration expired", lease("other", 0), t0.Add(10 * time.Second), true},
		{"clock went back", lease("other", 15), t0.Add(-time.Hour), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, mayTake(tc.cur, "me", t0, 10*time.Second, tc.now))
		})
	}
}

func TestNextLease(t *testing.T) {
	now := time.Unix(2000, 123456789)
	t.Run("new lease", func(t *testing.T) {
		l := nextLease(lease("-", 0), "me", now, 1500*time.Millisecond)
		assert.Equal(t, "me", holderOf(l))
		assert.Equal(t, int32(2), *l.Spec.LeaseDurationSeconds, "rounded up to whole seconds")
		assert.Equal(t, int32(0), *l.Spec.LeaseTransitions)
		assert.Equal(t, now.Truncate(time.Microsecond), l.Spec.AcquireTime.Time)
		assert.Equal(t, "7", l.ResourceVersion, "conditional on what was read")
	})
	t.Run("renew keeps acquire time and transitions", func(t *testing.T) {
		cur := nextLease(lease("-", 0), "me", now, time.Second)
		l := nextLease(cur, "me", now.Add(time.Second), time.Second)
		assert.Equal(t, cur.Spec.AcquireTime, l.Spec.AcquireTime)
		assert.Equal(t, int32(0), *l.Spec.LeaseTransitions)
		assert.Equal(t, now.Add(time.Second).Truncate(time.Microsecond), l.Spec.RenewTime.Time)
	})
	t.Run("takeover counts a transition", func(t *testing.T) {
		cur := nextLease(lease("-", 0), "other", now, time.Second)
		l := nextLease(cur, "me", now.Add(time.Minute), time.Second)
		assert.Equal(t, int32(1), *l.Spec.LeaseTransitions)
		assert.Equal(t, now.Add(time.Minute).Truncate(time.Microsecond), l.Spec.AcquireTime.Time)
		assert.Equal(t, "other", holderOf(cur), "input not modified")
	})
	t.Run("acquiring a released lease counts a transition", func(t *testing.T) {
		cur := releasedLease(nextLease(lease("-", 0), "other", now, time.Second), now)
		assert.Equal(t, "", holderOf(cur))
		assert.Equal(t, int32(1), *cur.Spec.LeaseDurationSeconds)
		l := nextLease(cur, "me", now, time.Second)
		assert.Equal(t, int32(1), *l.Spec.LeaseTransitions)
	})
}

func TestOneLeaderAndTakeoverAfterCrash(t *testing.T) {
	leases := newFakeLeases()
	skip := func(c *LeaderElectionConfig) { c.SkipRelease = true }
	a := standFor(t, leases, "a", skip)
	b := standFor(t, leases, "b", skip)
	leader := exactlyOneLeads(t, a, b)
	other := map[*candidate]*candidate{a: b, b: a}[leader]
	assert.Equal(t, leader.el.Config().Identity, leases.holder("test-lock"))
	eventually(t, wait, func() bool { return leader.started.Load() == 1 }, "OnStartedLeading called")
	eventually(t, wait, func() bool { return other.el.Leader() == leader.el.Config().Identity }, "the standby sees the leader")

	require.NoError(t, leader.stop()) // a crash: the lease is not released
	assert.Equal(t, leader.el.Config().Identity, leases.holder("test-lock"))
	assert.Equal(t, int32(1), leader.stopped.Load())
	eventually(t, wait, other.el.IsLeader, "the standby takes over once the lease expires")
	assert.Equal(t, other.el.Config().Identity, leases.holder("test-lock"))
}

func TestReleaseOnCleanStopHandsOverAtOnce(t *testing.T) {
	leases := newFakeLeases()
	long := func(c *LeaderElectionConfig) { // far longer than the wait below
		c.LeaseDuration, c.RenewDeadline = time.Hour, 30*time.Minute
	}
	a := standFor(t, leases, "a", long)
	eventually(t, wait, a.el.IsLeader, "a leads")
	b := standFor(t, leases, "b", long)
	require.NoError(t, a.stop())
	assert.False(t, a.el.IsLeader())
	eventually(t, wait, b.el.IsLeader, "b takes over without waiting for the hour")
}

func TestLeadershipLostWhenRenewalFails(t *testing.T) {
	leases := newFakeLeases()
	var leadCtxDone atomic.Bool
	a := standFor(t, leases, "a", func(c *LeaderElectionConfig) {
		c.OnStartedLeading = func(ctx context.Context) { <-ctx.Done(); leadCtxDone.Store(true) }
	})
	eventually(t, wait, a.el.IsLeader, "a leads")
	leases.down.Store(true)
	err := a.result(wait)
	assert.ErrorIs(t, err, ErrLeaderElectionLost)
	assert.True(t, leadCtxDone.Load(), "OnStartedLeading's ctx was cancelled and waited for")
	assert.Equal(t, int32(1), a.stopped.Load())
	assert.False(t, a.el.IsLeader())
}

func TestLeadershipLostWhenLeaseIsTaken(t *testing.T) {
	leases := newFakeLeases()
	a := standFor(t, leases, "a", nil)
	eventually(t, wait, a.el.IsLeader, "a leads")
	cur, err := leases.Get(context.Background(), "test-lock")
	require.NoError(t, err)
	_, err = leases.Update(context.Background(), nextLease(cur, "intruder", time.Now(), time.Hour))
	require.NoError(t, err)
	err = a.result(wait)
	assert.ErrorIs(t, err, ErrLeaderElectionLost)
	assert.ErrorIs(t, err, ErrLeaseHeld)
	assert.Equal(t, "intruder", leases.holder("test-lock"), "the lease is not released to anyone")
}

func TestLeaderElectorRunsOnce(t *testing.T) {
	a := standFor(t, newFakeLeases(), "a", nil)
	eventually(t, wait, a.el.IsLeader, "a leads")
	assert.ErrorIs(t, a.el.Run(context.Background()), ErrAlreadyRunning)
}

func FuzzLeaseDecision(f *testing.F) {
	f.Add("a", "b", int32(15), int64(0), int64(14), int32(3))
	f.Add("", "b", int32(0), int64(5), int64(-5), int32(-1))
	f.Add("b", "b", int32(-4), int64(1<<40), int64(1<<41), int32(2147483647))
	f.Fuzz(func(t *testing.T, holder, identity string, durSecs int32, observed, nowSecs int64, transitions int32) {
		cur := &coordination.Lease{ObjectMeta: meta.ObjectMeta{Name: "l", ResourceVersion: "9"}}
		cur.Spec.HolderIdentity = &holder
		cur.Spec.LeaseDurationSeconds = &durSecs
		if transitions >= 0 {
			cur.Spec.LeaseTransitions = &transitions
		}
		observedAt, now := time.Unix(observed, 0), time.Unix(nowSecs, 0)
		def := 15 * time.Second
		took := mayTake(cur, identity, observedAt, def, now)
		d := def
		if durSecs > 0 {
			d = time.Duration(durSecs) * time.Second
		}
		if holder != "" && holder != identity && now.Before(observedAt.Add(d)) && took {
			t.Fatalf("took a lease held by %q until %v at %v", holder, observedAt.Add(d), now)
		}
		next := nextLease(cur, identity, now, def)
		if holderOf(next) != identity || next.ResourceVersion != "9" || *next.Spec.LeaseDurationSeconds <= 0 {
			t.Fatalf("bad next lease %+v", next.Spec)
		}
		if next.Spec.LeaseTransitions == nil || *next.Spec.LeaseTransitions < 0 {
			t.Fatalf("transitions %v", next.Spec.LeaseTransitions)
		}
		if transitions >= 0 && *next.Spec.LeaseTransitions < transitions {
			t.Fatalf("transitions went down: %d -> %d", transitions, *next.Spec.LeaseTransitions)
		}
		if holderOf(cur) != holder {
			t.Fatal("input modified")
		}
	})
}

func TestManyCandidatesNeverTwoLeaders(t *testing.T) {
	leases := newFakeLeases()
	var cs []*candidate
	for i := range 5 {
		cs = append(cs, standFor(t, leases, "c"+strconv.Itoa(i), func(c *LeaderElectionConfig) { c.SkipRelease = true }))
	}
	leader := exactlyOneLeads(t, cs...)
	// Watch through twenty more lease writes (renewals and failed
	// contenders' reads do not write): never two leaders.
	target := leases.writes.Load() + 20
	eventually(t, wait, func() bool {
		exactlyOneLeads(t, cs...)
		return leases.writes.Load() >= target
	}, "twenty renewals")
	assert.True(t, leader.el.IsLeader(), "a renewing leader keeps the lease")
	require.NoError(t, leader.stop())
	rest := slices.DeleteFunc(slices.Clone(cs), func(c *candidate) bool { return c == leader })
	exactlyOneLeads(t, rest...)
}

func TestLeaderSurvivesTransientConflicts(t *testing.T) {
	leases := newFakeLeases()
	a := standFor(t, leases, "a", nil)
	eventually(t, wait, a.el.IsLeader, "a leads")
	leases.conflicts.Store(3) // fewer retries than fit in the renew deadline (700 ms / 100 ms)
	eventually(t, wait, func() bool { return leases.conflicts.Load() < 0 }, "the conflicts were consumed")
	target := leases.writes.Load() + 3
	eventually(t, wait, func() bool { return leases.writes.Load() >= target }, "renewals resume")
	assert.True(t, a.el.IsLeader())
	assert.Equal(t, "a", leases.holder("test-lock"))
}

func TestStandbyTakesLeaseWithMissingFields(t *testing.T) {
	leases := newFakeLeases()
	_, err := leases.Create(context.Background(), &coordination.Lease{ // holder only: no times, no duration
		ObjectMeta: meta.ObjectMeta{Namespace: "kube-system", Name: "test-lock"},
		Spec:       coordination.LeaseSpec{HolderIdentity: ptr("ghost")},
	})
	require.NoError(t, err)
	a := standFor(t, leases, "a", nil)
	eventually(t, wait, a.el.IsLeader, "a takes the lease after its own lease duration")
	l, err := leases.Get(context.Background(), "test-lock")
	require.NoError(t, err)
	assert.Equal(t, int32(1), *l.Spec.LeaseTransitions)
	assert.NotNil(t, l.Spec.RenewTime)
}
