package storetest

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/store"
)

// upTo is a collect predicate: stop at the first event at or past rev.
func upTo(rev int64) func([]store.Event) bool {
	return func(evs []store.Event) bool { return len(evs) > 0 && evs[len(evs)-1].Revision >= rev }
}

func testWatch(t *testing.T, open Opener) {
	s := open(t)
	ctx := testContext(t)
	wctx, cancel := context.WithCancel(ctx)
	ch, err := s.Watch(wctx, "/w/", 0)
	require.NoError(t, err)
	all, err := s.Watch(ctx, "", 0)
	require.NoError(t, err)
	m := newModel(revision(t, s))
	randomWrites(ctx, t, s, m, rand.New(rand.NewPCG(3, 4)), "/w/", 5, 40)
	randomWrites(ctx, t, s, m, rand.New(rand.NewPCG(5, 6)), "/x/", 5, 10)

	got := collect(t, ch, upTo(m.base+40))
	require.Len(t, got, 40)
	for i, ev := range got {
		assertEvent(t, m.events[m.base+1+int64(i)], ev)
	}
	everything := collect(t, all, upTo(m.last()))
	require.Len(t, everything, 50)
	for i, ev := range everything {
		assertEvent(t, m.events[m.base+1+int64(i)], ev)
	}

	cancel()
	for ev := range ch { // must close once ctx is done; no error event
		require.NoError(t, ev.Err)
		require.Fail(t, "event after cancel", "revision %d", ev.Revision)
	}
}

// testWatchReplay starts watches at every past revision while writes keep
// coming, so each one switches from replay to live under load: each must
// see exactly the events after its start.
func testWatchReplay(t *testing.T, open Opener) {
	s := open(t)
	ctx := testContext(t)
	m := newModel(revision(t, s))
	randomWrites(ctx, t, s, m, rand.New(rand.NewPCG(7, 8)), "/r/", 8, 60)
	mid := m.last()
	type watch struct {
		from int64
		ch   <-chan store.Event
	}
	var watches []watch
	for from := max(m.base, 1); from <= mid; from += 3 { // 0 would mean "now"
		ch, err := s.Watch(ctx, "/r/", from)
		require.NoError(t, err)
		watches = append(watches, watch{from, ch})
	}
	randomWrites(ctx, t, s, m, rand.New(rand.NewPCG(9, 10)), "/r/", 8, 60)
	for _, w := range watches {
		got := collect(t, w.ch, upTo(m.last()))
		require.Len(t, got, int(m.last()-w.from), "watch from %d", w.from)
		for i, ev := range got {
			assertEvent(t, m.events[w.from+1+int64(i)], ev)
		}
	}
}

func testWatchErrors(t *testing.T, open Opener) {
	s := open(t)
	ctx := testContext(t)
	rev, err := s.Create(ctx, "/e/k", nil)
	require.NoError(t, err)
	_, err = s.Watch(ctx, "/e/", rev+1)
	assert.ErrorIs(t, err, store.ErrFutureRevision)
	ch, err := s.Watch(ctx, "/e/", rev) // the current revision is fine
	require.NoError(t, err)
	rev2, err := s.Create(ctx, "/e/k2", nil)
	require.NoError(t, err)
	assert.Equal(t, rev2, receive(t, ch).Revision)
	done, cancel := context.WithCancel(ctx)
	cancel()
	_, err = s.Watch(done, "/e/", 0)
	assert.ErrorIs(t, err, context.Canceled)
}

// orderedWatch is one watch of testWatchOrdering, drained as it goes.
type orderedWatch struct {
	prefix string
	from   int64
	got    []store.Event
	err    error
}

// testWatchOrdering runs 50 concurrent writers over 5 prefixes with
// watchers per prefix and one on everything, some of them started in the
// middle from a past revision; every watcher must see exactly the store's
// revisions for its prefix, strictly increasing, with matching keys.
func testWatchOrdering(t *testing.T, open Opener) {
	s := open(t)
	ctx := testContext(t)
	const writers, perWriter, prefixes = 50, 12, 5
	base := revision(t, s)
	endKey := func(p int) string { return key("/o%d/~end", p) }
	var (
		mu       sync.Mutex
		written  = map[int64]string{} // revision → key
		watches  []*orderedWatch
		watching sync.WaitGroup
	)
	// Each watch is drained until the end marker of its prefix (the last
	// one, /o4/~end, for the watch on everything).
	addWatch := func(prefix string, from int64, end string) {
		ch, err := s.Watch(ctx, prefix, from)
		require.NoError(t, err)
		w := &orderedWatch{prefix: prefix, from: max(from, base)} // 0 means "now" = base
		mu.Lock()
		watches = append(watches, w)
		mu.Unlock()
		watching.Go(func() { w.got, w.err = drainUntil(ch, end) })
	}
	for p := range prefixes {
		addWatch(key("/o%d/", p), base, endKey(p))
		addWatch(key("/o%d/", p), 0, endKey(p))
	}
	addWatch("", base, endKey(prefixes-1))
	storm := make(chan error, 1)
	go func() {
		storm <- writeStorm(ctx, s, writers, perWriter, prefixes, func(rev int64, k string) {
			mu.Lock()
			written[rev] = k
			mu.Unlock()
		})
	}()
	// Watches started mid-storm, from a revision already passed (never 0,
	// which would mean "now").
	deadline := time.Now().Add(waitTimeout)
	for revision(t, s) < base+20 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond) // polling for progress, with a deadline
	}
	for p := range prefixes {
		r := revision(t, s)
		addWatch(key("/o%d/", p), max(r-7, base+1), endKey(p))
	}
	require.NoError(t, <-storm)
	for p := range prefixes {
		rev, err := s.Create(ctx, endKey(p), nil)
		require.NoError(t, err)
		written[rev] = endKey(p)
	}
	watching.Wait()
	last := base + writers*perWriter + prefixes
	require.Len(t, written, int(last-base))
	require.Equal(t, last, revision(t, s))
	for _, w := range watches {
		checkOrdered(t, w, written, last)
	}
}

// drainUntil reads ch until an event for key end, an error event or close.
func drainUntil(ch <-chan store.Event, end string) ([]store.Event, error) {
	var got []store.Event
	for ev := range ch {
		if ev.Err != nil {
			return got, ev.Err
		}
		got = append(got, ev)
		if ev.KV.Key == end {
			return got, nil
		}
	}
	return got, errors.New("channel closed early")
}

// writeStorm runs writers goroutines, each creating 4 keys under
// /o<w%prefixes>/ and then updating them, perWriter writes in all, and
// reports every acknowledged write.
func writeStorm(ctx context.Context, s store.Interface, writers, perWriter, prefixes int, record func(int64, string)) error {
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Go(func() {
			for i := range perWriter {
				k := key("/o%d/w%02d/%d", w%prefixes, w, i%4)
				var rev int64
				var err error
				if i < 4 {
					rev, err = s.Create(ctx, k, []byte(k))
				} else {
					var kv store.KV
					if kv, err = s.Get(ctx, k); err == nil {
						rev, err = s.Update(ctx, k, []byte(k), kv.ModRevision)
					}
				}
				if err != nil {
					errs <- err
					return
				}
				record(rev, k)
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// checkOrdered compares what w saw with the revisions written under its
// prefix after its start.
func checkOrdered(t *testing.T, w *orderedWatch, written map[int64]string, last int64) {
	t.Helper()
	require.NoError(t, w.err, "watch %q from %d", w.prefix, w.from)
	var want []int64
	for rev := w.from + 1; rev <= last; rev++ {
		if strings.HasPrefix(written[rev], w.prefix) {
			want = append(want, rev)
		}
	}
	require.Len(t, w.got, len(want), "watch %q from %d", w.prefix, w.from)
	for i, ev := range w.got {
		require.Equal(t, want[i], ev.Revision, "watch %q from %d, event %d", w.prefix, w.from, i)
		require.Equal(t, written[ev.Revision], ev.KV.Key)
	}
}

// testSlowWatcher: a watcher that never reads is ended with
// ErrWatcherTooSlow while writers keep going and a fast watcher on the same
// prefix sees every event.
func testSlowWatcher(t *testing.T, open Opener) {
	s := open(t)
	ctx := testContext(t)
	const writers, perWriter = 32, 125
	base := revision(t, s)
	slow, err := s.Watch(ctx, "/s/", 0)
	require.NoError(t, err)
	fast, err := s.Watch(ctx, "/s/", 0)
	require.NoError(t, err)
	var fastGot []store.Event
	fastDone := make(chan struct{})
	go func() {
		defer close(fastDone)
		for ev := range fast {
			fastGot = append(fastGot, ev)
			if ev.Err != nil || ev.Revision == base+writers*perWriter {
				return
			}
		}
	}()
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Go(func() {
			for i := range perWriter {
				if _, err := s.Create(ctx, key("/s/%d/%d", w, i), []byte("0123456789abcdef")); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait() // writers finish although one watcher reads nothing
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	select {
	case <-fastDone:
	case <-ctx.Done():
		require.FailNow(t, "fast watcher did not finish")
	}
	require.Len(t, fastGot, writers*perWriter)
	for i, ev := range fastGot {
		require.NoError(t, ev.Err)
		require.Equal(t, base+1+int64(i), ev.Revision)
	}
	var slowGot []store.Event
	for ev := range slow {
		slowGot = append(slowGot, ev)
	}
	require.NotEmpty(t, slowGot)
	lastEv := slowGot[len(slowGot)-1]
	require.ErrorIs(t, lastEv.Err, store.ErrWatcherTooSlow)
	require.Less(t, len(slowGot)-1, writers*perWriter, "the slow watcher was ended early")
	for i, ev := range slowGot[:len(slowGot)-1] {
		require.NoError(t, ev.Err)
		require.Equal(t, base+1+int64(i), ev.Revision, "events before the error have no gaps")
	}
}
