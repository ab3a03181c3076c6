package informer

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
)

// TestChurn is the acceptance test: 10,000 random creates, updates and
// deletes of ConfigMaps from several goroutines while the informer's
// connections are cut again and again and the store is compacted (with a
// watch history of 50, resumes hit 410 and relist). At the end the cache
// equals a fresh list exactly, and so does a handler's view.
func TestChurn(t *testing.T) {
	const (
		writers   = 8
		keysEach  = 60
		totalOps  = 10000
		namespace = "default"
	)
	s := startServer(t, 50)
	opts := fastOptions()
	opts.PageSize = 100
	inf := New[*core.ConfigMap](s.lw(namespace), opts)
	rec := newRecorder[*core.ConfigMap]()
	reg := inf.AddEventHandler(rec)
	runInformer(t, inf)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var chaos sync.WaitGroup
	var cuts, compactions atomic.Int64
	chaos.Add(2)
	go func() { defer chaos.Done(); cutLoop(ctx, s, &cuts) }()
	go func() { defer chaos.Done(); compactLoop(ctx, s, &compactions) }()

	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := churnWriter(ctx, s, namespace, w, keysEach, totalOps/writers); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	writeTime := time.Since(start)
	cancel()
	chaos.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	s.cut.Block(false)

	want, _ := s.freshList(t, namespace)
	waitFor(t, 30*time.Second, func() bool { return assert.ObjectsAreEqual(want, cacheView(inf)) },
		"cache equals a fresh list (%d keys)", len(want))
	waitFor(t, 30*time.Second, func() bool { return assert.ObjectsAreEqual(want, rec.snapshot()) },
		"handler view equals a fresh list")
	rec.mu.Lock()
	defer rec.mu.Unlock()
	assert.Zero(t, rec.duplicateAdds, "adds of keys the handler already had")
	assert.Zero(t, rec.sameRVUpdates, "updates of unchanged objects")
	assert.Zero(t, rec.unknownDeletes, "deletes of keys the handler did not have")
	st := inf.Stats()
	assert.Greater(t, st.GoneErrors, int64(0), "the test must force 410s: %+v", st)
	t.Logf("%d ops in %v (%.0f/s); %d keys at the end; cuts %d, compactions %d; reflector %+v; handler adds %d updates %d deletes %d (tombstones %d), max backlog %d",
		totalOps, writeTime.Round(time.Millisecond), float64(totalOps)/writeTime.Seconds(), len(want), cuts.Load(), compactions.Load(),
		st, rec.adds, rec.updates, rec.deletes, rec.tombstones, reg.MaxPending())
}

// churnWriter does ops random writes on its own keys, so writers never conflict.
func churnWriter(ctx context.Context, s *testServer, ns string, w, keys, ops int) error {
	r := rand.New(rand.NewPCG(uint64(w), 42))
	exists := make([]bool, keys)
	for i := range ops {
		k := r.IntN(keys)
		name := fmt.Sprintf("w%d-%d", w, k)
		var err error
		switch {
		case !exists[k]:
			_, err = s.create(ctx, newCM(ns, name, fmt.Sprint(i)))
			exists[k] = true
		case r.IntN(10) < 6:
			_, err = s.update(ctx, newCM(ns, name, fmt.Sprint(i)))
		default:
			_, err = s.remove(ctx, ns, name)
			exists[k] = false
		}
		if err != nil {
			return fmt.Errorf("writer %d op %d on %s: %w", w, i, name, err)
		}
	}
	return nil
}

// cutLoop cuts the informer's connections every few tens of milliseconds,
// now and then keeping it disconnected long enough to fall out of the
// server's watch history.
func cutLoop(ctx context.Context, s *testServer, cuts *atomic.Int64) {
	r := rand.New(rand.NewPCG(7, 7))
	for ctx.Err() == nil {
		pause(ctx, time.Duration(50+r.IntN(150))*time.Millisecond)
		if r.IntN(3) == 0 {
			s.cut.Block(true)
			s.cut.CutAll()
			pause(ctx, time.Duration(50+r.IntN(100))*time.Millisecond)
			s.cut.Block(false)
		} else {
			s.cut.CutAll()
		}
		cuts.Add(1)
	}
}

// compactLoop compacts the store at its current revision, so continue
// tokens of a paginated relist expire (410) on the store side.
func compactLoop(ctx context.Context, s *testServer, n *atomic.Int64) {
	for ctx.Err() == nil {
		pause(ctx, 100*time.Millisecond)
		rev, err := s.cp.Store.Revision(ctx)
		if err == nil && s.cp.Store.Compact(ctx, rev) == nil {
			n.Add(1)
		}
	}
}

// pause waits d or until ctx is done (chaos pacing, not synchronisation).
func pause(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
