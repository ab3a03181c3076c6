package etcd_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/internal/etcdtest"
	"github.com/orkit/orkit/store"
	"github.com/orkit/orkit/store/etcd"
)

// writeLog records the outcome of concurrent creates: acknowledged keys
// with their revisions, and keys whose create failed (outcome unknown).
type writeLog struct {
	mu      sync.Mutex
	acked   map[string]int64
	unknown map[string]error
	count   atomic.Int64
}

// writers runs n goroutines creating keys under prefix until stop is
// closed, each create bounded by 5 s, and waits for them.
func (l *writeLog) writers(ctx context.Context, s store.Interface, prefix string, n int, stop <-chan struct{}) {
	var wg sync.WaitGroup
	for w := range n {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				k := fmt.Sprintf("%sw%02d/%06d", prefix, w, i)
				wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
				rev, err := s.Create(wctx, k, []byte(k))
				cancel()
				l.mu.Lock()
				if err == nil {
					l.acked[k] = rev
					l.count.Add(1)
				} else {
					l.unknown[k] = err
				}
				l.mu.Unlock()
			}
		})
	}
	wg.Wait()
}

// waitAcked waits until at least n writes are acknowledged.
func (l *writeLog) waitAcked(t *testing.T, n int64) {
	t.Helper()
	require.Eventually(t, func() bool { return l.count.Load() >= n }, 2*time.Minute, 10*time.Millisecond,
		"acknowledged writes stuck at %d, want %d", l.count.Load(), n)
}

// TestMemberKilledDuringWrites SIGKILLs one member of three (the leader or
// a follower) while 32 writers create keys: every acknowledged write is
// there afterwards at its revision, writes go on while the member is down,
// and the restarted member catches up and serves the same data.
func TestMemberKilledDuringWrites(t *testing.T) {
	for _, victim := range []string{"leader", "follower"} {
		t.Run(victim, func(t *testing.T) {
			c := etcdtest.Start(t, 3)
			s := connect(t, c.Endpoints(), etcd.Config{})
			ctx := testCtx(t, 4*time.Minute)
			l := &writeLog{acked: map[string]int64{}, unknown: map[string]error{}}
			stop := make(chan struct{})
			done := make(chan struct{})
			go func() { defer close(done); l.writers(ctx, s, "/kill/", 32, stop) }()
			stopWriters := sync.OnceFunc(func() { close(stop); <-done })
			defer stopWriters()

			l.waitAcked(t, 300)
			leader, err := c.Leader(ctx)
			require.NoError(t, err)
			i := leader
			if victim == "follower" {
				i = (leader + 1) % 3
			}
			m := c.Members()[i]
			require.NoError(t, m.Kill())
			l.waitAcked(t, l.count.Load()+500) // writes continue on two members
			require.NoError(t, m.Restart(ctx))
			l.waitAcked(t, l.count.Load()+300)
			stopWriters()

			t.Logf("%d writes acknowledged, %d failed (outcome unknown) around the kill", len(l.acked), len(l.unknown))
			checkAcked(t, ctx, s, l)
			_, err = c.WaitInSync(ctx)
			require.NoError(t, err)
			only := connect(t, []string{m.ClientURL}, etcd.Config{})
			rev, err := s.Revision(ctx)
			require.NoError(t, err)
			fromAll, err := s.List(ctx, "/kill/", store.ListOptions{Revision: rev})
			require.NoError(t, err)
			fromRestarted, err := only.List(ctx, "/kill/", store.ListOptions{Revision: rev})
			require.NoError(t, err)
			require.Equal(t, fromAll.KVs, fromRestarted.KVs, "the restarted member caught up")
		})
	}
}

// checkAcked checks that every acknowledged key is stored at its revision
// and that no two keys share a revision.
func checkAcked(t *testing.T, ctx context.Context, s store.Interface, l *writeLog) {
	t.Helper()
	res, err := s.List(ctx, "/kill/", store.ListOptions{})
	require.NoError(t, err)
	stored := map[string]store.KV{}
	revs := map[int64]string{}
	for _, kv := range res.KVs {
		stored[kv.Key] = kv
		require.NotContains(t, revs, kv.ModRevision, "two keys at one revision")
		revs[kv.ModRevision] = kv.Key
	}
	for k, rev := range l.acked {
		kv, ok := stored[k]
		require.True(t, ok, "acknowledged write %s@%d lost", k, rev)
		require.Equal(t, rev, kv.ModRevision, "key %s", k)
		require.Equal(t, k, string(kv.Value))
	}
	for k := range stored {
		_, acked := l.acked[k]
		_, tried := l.unknown[k]
		require.True(t, acked || tried, "key %s was never written", k)
	}
}

// TestWatchSurvivesMemberKills kills and restarts each member in turn
// while a watch is open and keys are written: the watch delivers every
// write exactly once, in order, whichever member it was streaming from.
func TestWatchSurvivesMemberKills(t *testing.T) {
	c := etcdtest.Start(t, 3)
	s := connect(t, c.Endpoints(), etcd.Config{})
	ctx := testCtx(t, 4*time.Minute)
	ch, err := s.Watch(ctx, "/w/", 0)
	require.NoError(t, err)
	n := 0
	for _, m := range c.Members() {
		require.NoError(t, m.Kill())
		for range 20 {
			createRetrying(t, ctx, s, fmt.Sprintf("/w/%04d", n))
			n++
		}
		require.NoError(t, m.Restart(ctx))
		for range 5 {
			createRetrying(t, ctx, s, fmt.Sprintf("/w/%04d", n))
			n++
		}
	}
	res, err := s.List(ctx, "/w/", store.ListOptions{})
	require.NoError(t, err)
	require.Len(t, res.KVs, n)
	var want []int64
	for _, kv := range res.KVs {
		want = append(want, kv.ModRevision)
	}
	slices.Sort(want)
	for i, rev := range want {
		ev := next(t, ch)
		require.Equal(t, rev, ev.Revision, "event %d", i)
		require.Equal(t, store.EventPut, ev.Type)
		require.Nil(t, ev.Prev)
	}
}

// createRetrying creates key, retrying while the cluster elects a leader;
// a retry that finds its own earlier attempt applied counts as done.
func createRetrying(t *testing.T, ctx context.Context, s store.Interface, key string) {
	t.Helper()
	require.Eventually(t, func() bool {
		wctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		_, err := s.Create(wctx, key, []byte(key))
		return err == nil || errors.Is(err, store.ErrAlreadyExists)
	}, time.Minute, 20*time.Millisecond, "create %s", key)
}

// next returns the next non-progress event, failing on an error event or
// after a minute.
func next(t *testing.T, ch <-chan store.Event) store.Event {
	t.Helper()
	deadline := time.After(time.Minute)
	for {
		select {
		case ev, ok := <-ch:
			require.True(t, ok, "watch closed")
			require.NoError(t, ev.Err)
			if ev.Type != store.EventProgress {
				return ev
			}
		case <-deadline:
			require.FailNow(t, "no event within a minute")
		}
	}
}

// TestWatchResumesAcrossCut cuts the only connection of a watching Store
// to its member while writes go on elsewhere: once the connection is back
// the watch delivers the missed events, with no gap and no duplicate.
func TestWatchResumesAcrossCut(t *testing.T) {
	c := etcdtest.Start(t, 3)
	p := etcdtest.NewProxy(t, c.Members()[0].ClientURL)
	s := connect(t, c.Endpoints(), etcd.Config{})
	w := connect(t, []string{p.URL()}, etcd.Config{})
	ctx := testCtx(t, 2*time.Minute)
	ch, err := w.Watch(ctx, "/r/", 0)
	require.NoError(t, err)
	var revs []int64
	write := func(i int) {
		rev, err := s.Create(ctx, fmt.Sprintf("/r/%03d", i), []byte("v"))
		require.NoError(t, err)
		revs = append(revs, rev)
	}
	write(0)
	require.Equal(t, revs[0], next(t, ch).Revision)
	p.Cut()
	for i := 1; i <= 30; i++ {
		write(i)
	}
	p.Restore()
	for i := 31; i <= 40; i++ {
		write(i)
	}
	for _, rev := range revs[1:] {
		require.Equal(t, rev, next(t, ch).Revision)
	}
}

// TestWatchResumeCompacted: a watch cut off from the cluster while its
// next revisions are compacted ends with ErrTooOld when it comes back,
// after the events it had; it never skips events silently.
func TestWatchResumeCompacted(t *testing.T) {
	c := etcdtest.Start(t, 3)
	p := etcdtest.NewProxy(t, c.Members()[0].ClientURL)
	s := connect(t, c.Endpoints(), etcd.Config{})
	w := connect(t, []string{p.URL()}, etcd.Config{})
	ctx := testCtx(t, 2*time.Minute)
	ch, err := w.Watch(ctx, "/c/", 0)
	require.NoError(t, err)
	first, err := s.Create(ctx, "/c/a", nil)
	require.NoError(t, err)
	require.Equal(t, first, next(t, ch).Revision)
	p.Cut()
	_, err = s.Create(ctx, "/c/b", nil)
	require.NoError(t, err)
	last, err := s.Create(ctx, "/c/c", nil)
	require.NoError(t, err)
	require.NoError(t, s.Compact(ctx, last))
	_, err = c.WaitInSync(ctx) // member 0 knows of the compaction
	require.NoError(t, err)
	p.Restore()
	for {
		select {
		case ev, ok := <-ch:
			require.True(t, ok, "watch closed without an error event")
			if ev.Type == store.EventProgress {
				continue
			}
			require.ErrorIs(t, ev.Err, store.ErrTooOld, "event at %d", ev.Revision)
			_, open := <-ch
			require.False(t, open, "the error event is the last")
			return
		case <-ctx.Done():
			require.FailNow(t, "watch did not end")
		}
	}
}

// TestCompactedRevisions: after a compaction, a watch from before it and a
// continue token from before it fail with ErrTooOld; at the compacted
// revision both still work.
func TestCompactedRevisions(t *testing.T) {
	c := etcdtest.Start(t, 3)
	s := connect(t, c.Endpoints(), etcd.Config{})
	ctx := testCtx(t, time.Minute)
	for i := range 10 {
		_, err := s.Create(ctx, fmt.Sprintf("/t/%02d", i), nil)
		require.NoError(t, err)
	}
	old, err := s.List(ctx, "/t/", store.ListOptions{Limit: 3})
	require.NoError(t, err)
	require.NotEmpty(t, old.Continue)
	at := old.Revision
	_, err = s.Create(ctx, "/t/later", nil)
	require.NoError(t, err)
	page, err := s.List(ctx, "/t/", store.ListOptions{Limit: 3})
	require.NoError(t, err)
	require.NoError(t, s.Compact(ctx, page.Revision))

	_, err = s.Watch(ctx, "/t/", at)
	require.ErrorIs(t, err, store.ErrTooOld)
	_, err = s.List(ctx, "/t/", store.ListOptions{Continue: old.Continue})
	require.ErrorIs(t, err, store.ErrTooOld)
	_, err = s.List(ctx, "/t/", store.ListOptions{Revision: at})
	require.ErrorIs(t, err, store.ErrTooOld)

	rest, err := s.List(ctx, "/t/", store.ListOptions{Continue: page.Continue})
	require.NoError(t, err)
	assert.Len(t, rest.KVs, 8)
	ch, err := s.Watch(ctx, "/t/", page.Revision)
	require.NoError(t, err)
	rev, err := s.Create(ctx, "/t/after", nil)
	require.NoError(t, err)
	assert.Equal(t, rev, next(t, ch).Revision)
}

// TestContextCanceledMidCall cancels calls stuck on a cluster without
// quorum: each returns the context's error promptly, and once quorum is
// back the store works and holds exactly what it held, plus at most the
// canceled create (whose outcome a canceled write leaves unknown).
func TestContextCanceledMidCall(t *testing.T) {
	c := etcdtest.Start(t, 3)
	s := connect(t, c.Endpoints(), etcd.Config{})
	ctx := testCtx(t, 3*time.Minute)
	_, err := s.Create(ctx, "/q/kept", []byte("v"))
	require.NoError(t, err)
	ms := c.Members()
	require.NoError(t, ms[1].Kill())
	require.NoError(t, ms[2].Kill())

	calls := map[string]func(context.Context) error{
		"get":    func(ctx context.Context) error { _, err := s.Get(ctx, "/q/kept"); return err },
		"list":   func(ctx context.Context) error { _, err := s.List(ctx, "/q/", store.ListOptions{}); return err },
		"create": func(ctx context.Context) error { _, err := s.Create(ctx, "/q/maybe", nil); return err },
		"watch":  func(ctx context.Context) error { _, err := s.Watch(ctx, "/q/", 0); return err },
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			cctx, cancel := context.WithCancel(ctx)
			timer := time.AfterFunc(200*time.Millisecond, cancel) // cancels the call in flight
			defer timer.Stop()
			err := call(cctx)
			require.ErrorIs(t, err, context.Canceled)
		})
	}
	require.NoError(t, ms[1].Restart(ctx))
	require.NoError(t, ms[2].Restart(ctx))
	createRetrying(t, ctx, s, "/q/after")
	res, err := s.List(ctx, "/q/", store.ListOptions{})
	require.NoError(t, err)
	var keys []string
	for _, kv := range res.KVs {
		keys = append(keys, kv.Key)
	}
	if len(keys) == 3 {
		assert.Equal(t, []string{"/q/after", "/q/kept", "/q/maybe"}, keys)
	} else {
		assert.Equal(t, []string{"/q/after", "/q/kept"}, keys)
	}
}

// TestRequestProgress: a watch whose prefix sees no writes learns the
// cluster's revision from a progress event.
func TestRequestProgress(t *testing.T) {
	c := etcdtest.Start(t, 1)
	s := connect(t, c.Endpoints(), etcd.Config{})
	ctx := testCtx(t, time.Minute)
	ch, err := s.Watch(ctx, "/mine/", 0)
	require.NoError(t, err)
	rev, err := s.Create(ctx, "/other/k", nil)
	require.NoError(t, err)
	for { // etcd answers once the watch is caught up: ask until it does
		require.NoError(t, s.RequestProgress(ctx))
		select {
		case ev := <-ch:
			require.Equal(t, store.EventProgress, ev.Type)
			require.Equal(t, rev, ev.Revision)
			return
		case <-time.After(100 * time.Millisecond):
		case <-ctx.Done():
			require.FailNow(t, "no progress event")
		}
	}
}

// TestPeriodicProgress: with the default Config.ProgressInterval a watch
// whose prefix sees no writes is told of the cluster's revision without
// anyone asking; with progress disabled it is not (within a few
// intervals).
func TestPeriodicProgress(t *testing.T) {
	c := etcdtest.Start(t, 3)
	s := connect(t, c.Endpoints(), etcd.Config{})
	quiet := connect(t, c.Endpoints(), etcd.Config{ProgressInterval: -1})
	ctx := testCtx(t, time.Minute)
	ch, err := s.Watch(ctx, "/mine/", 0)
	require.NoError(t, err)
	qch, err := quiet.Watch(ctx, "/mine/", 0)
	require.NoError(t, err)
	rev, err := s.Create(ctx, "/other/k", nil)
	require.NoError(t, err)
	select {
	case ev := <-ch:
		require.Equal(t, store.EventProgress, ev.Type)
		require.Equal(t, rev, ev.Revision)
	case <-ctx.Done():
		require.FailNow(t, "no progress event")
	}
	select {
	case ev := <-qch:
		require.FailNow(t, "progress without ProgressInterval", "event %+v", ev)
	case <-time.After(500 * time.Millisecond): // five default intervals
	}
}
