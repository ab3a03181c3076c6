package workqueue

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func newTestQueue(t *testing.T, cfg Config[string]) *Queue[string] {
	t.Helper()
	q := New(cfg)
	t.Cleanup(q.ShutDown)
	return q
}

func get(t *testing.T, q *Queue[string]) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	k, err := q.Get(ctx)
	require.NoError(t, err)
	return k
}

// eventually polls cond until it holds or the deadline passes.
func eventually(t *testing.T, cond func() bool, msg string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting: %s", msg)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestQueueDeduplicates(t *testing.T) {
	tests := []struct {
		name string
		adds []string
		want []string
	}{
		{"same key twice", []string{"a", "a"}, []string{"a"}},
		{"order of first add kept", []string{"b", "a", "b", "c", "a"}, []string{"b", "a", "c"}},
		{"nothing", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := newTestQueue(t, Config[string]{})
			for _, k := range tt.adds {
				q.Add(k)
			}
			require.Equal(t, len(tt.want), q.Len())
			var got []string
			for q.Len() > 0 {
				k := get(t, q)
				got = append(got, k)
				q.Done(k)
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestQueueRequeuesKeyAddedWhileProcessing(t *testing.T) {
	q := newTestQueue(t, Config[string]{})
	q.Add("a")
	k := get(t, q)
	q.Add("a")
	q.Add("a")
	assert.Equal(t, 0, q.Len(), "a key being processed is not handed out again before Done")
	q.Done(k)
	assert.Equal(t, 1, q.Len(), "re-queued once after Done")
	assert.Equal(t, "a", get(t, q))
	q.Done("a")
	assert.Equal(t, 0, q.Len())
}

func TestQueueExclusiveUnder16Workers(t *testing.T) {
	q := newTestQueue(t, Config[string]{})
	const workers, keys, adds = 16, 50, 20000
	var holders [keys]atomic.Int32
	var violations, processed atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k, err := q.Get(ctx)
				if err != nil {
					return
				}
				var i int
				fmt.Sscanf(k, "k%d", &i)
				if holders[i].Add(1) != 1 {
					violations.Add(1)
				}
				for range rand.IntN(200) { // some work, giving others a chance to collide
				}
				holders[i].Add(-1)
				processed.Add(1)
				q.Done(k)
			}
		}()
	}
	var pwg sync.WaitGroup
	for p := range 4 {
		pwg.Add(1)
		go func() {
			defer pwg.Done()
			r := rand.New(rand.NewPCG(uint64(p), 1))
			for range adds / 4 {
				q.Add(fmt.Sprintf("k%d", r.IntN(keys)))
			}
		}()
	}
	pwg.Wait()
	require.NoError(t, q.ShutDownWithDrain(ctx))
	cancel()
	wg.Wait()
	assert.Zero(t, violations.Load(), "two workers held one key")
	assert.Positive(t, processed.Load())
	assert.LessOrEqual(t, processed.Load(), int64(adds))
}

func TestQueueBackoffGrowsAndForget(t *testing.T) {
	clock := NewFakeClock(time.Unix(0, 0))
	rl := NewItemExponential[string](5*time.Millisecond, time.Second)
	q := newTestQueue(t, Config[string]{Clock: clock, RateLimiter: rl})
	want := []time.Duration{5, 10, 20, 40, 80, 160, 320, 640, 1000, 1000}
	for i, w := range want {
		assert.Equal(t, w*time.Millisecond, rl.When("x"), "failure %d", i)
	}
	assert.Equal(t, len(want), q.NumRequeues("x"))
	q.Forget("x")
	assert.Equal(t, 0, q.NumRequeues("x"))
	assert.Equal(t, 5*time.Millisecond, rl.When("x"), "backoff starts over after Forget")
	assert.Equal(t, 5*time.Millisecond, rl.When("y"), "keys back off independently")
}

func TestQueueAddRateLimitedWaitsForBackoff(t *testing.T) {
	clock := NewFakeClock(time.Unix(0, 0))
	q := newTestQueue(t, Config[string]{Clock: clock, RateLimiter: NewItemExponential[string](time.Second, time.Minute)})
	q.AddRateLimited("a") // 1s
	q.AddRateLimited("a") // 2s: the earlier deadline wins
	assert.Equal(t, 2, q.NumRequeues("a"))
	eventually(t, func() bool { return clock.Waiters() == 1 }, "delay timer armed")
	assert.Equal(t, 0, q.Len())
	clock.Step(999 * time.Millisecond)
	assert.Equal(t, 0, q.Len())
	clock.Step(time.Millisecond)
	eventually(t, func() bool { return q.Len() == 1 }, "key due after 1s")
	assert.Equal(t, "a", get(t, q))
}

func TestQueueAddAfterWithFakeClock(t *testing.T) {
	clock := NewFakeClock(time.Unix(0, 0))
	q := newTestQueue(t, Config[string]{Clock: clock})
	q.AddAfter("late", 3*time.Second)
	q.AddAfter("early", time.Second)
	q.AddAfter("now", 0)
	q.AddAfter("late", 5*time.Second) // later deadline is ignored
	assert.Equal(t, 1, q.Len())
	assert.Equal(t, "now", get(t, q))
	eventually(t, func() bool { return clock.Waiters() == 1 }, "delay timer armed")
	clock.Step(time.Second)
	eventually(t, func() bool { return q.Len() == 1 }, "early due")
	assert.Equal(t, "early", get(t, q))
	eventually(t, func() bool { return clock.Waiters() == 1 }, "timer re-armed")
	clock.Step(time.Second)
	assert.Equal(t, 0, q.Len())
	eventually(t, func() bool { return clock.Waiters() == 1 }, "timer re-armed")
	clock.Step(time.Second)
	eventually(t, func() bool { return q.Len() == 1 }, "late due at 3s")
	assert.Equal(t, "late", get(t, q))
}

func TestQueueShutDownWithDrain(t *testing.T) {
	q := New(Config[string]{})
	q.Add("a")
	q.Add("b")
	k := get(t, q)
	drained := make(chan error, 1)
	go func() { drained <- q.ShutDownWithDrain(context.Background()) }()
	eventually(t, q.ShuttingDown, "shutting down")
	q.Add("c") // ignored after shutdown
	select {
	case <-drained:
		t.Fatal("drain returned while a key was being processed")
	default:
	}
	k2 := get(t, q) // queued keys are still handed out
	assert.Equal(t, "b", k2)
	q.Done(k)
	q.Done(k2)
	select {
	case err := <-drained:
		require.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("drain did not return after Done")
	}
	_, err := q.Get(context.Background())
	assert.ErrorIs(t, err, ErrShuttingDown)
}

func TestQueueShutDownWithDrainHonoursContext(t *testing.T) {
	q := New(Config[string]{})
	q.Add("a")
	get(t, q)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, q.ShutDownWithDrain(ctx), context.Canceled)
}

func TestQueueGetHonoursContext(t *testing.T) {
	q := newTestQueue(t, Config[string]{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	_, err := q.Get(ctx)
	assert.True(t, errors.Is(err, context.DeadlineExceeded))
}

func TestQueueShutDownWakesGet(t *testing.T) {
	q := New(Config[string]{})
	errc := make(chan error, 1)
	go func() {
		_, err := q.Get(context.Background())
		errc <- err
	}()
	q.ShutDown()
	select {
	case err := <-errc:
		assert.ErrorIs(t, err, ErrShuttingDown)
	case <-time.After(5 * time.Second):
		t.Fatal("Get not woken by ShutDown")
	}
}

func TestBucketRateLimiter(t *testing.T) {
	clock := NewFakeClock(time.Unix(0, 0))
	b := NewBucketRateLimiter[string](clock, 10, 3)
	for range 3 {
		assert.Zero(t, b.When("k"), "burst")
	}
	assert.Equal(t, 100*time.Millisecond, b.When("k"))
	assert.Equal(t, 200*time.Millisecond, b.When("k"))
	clock.Step(time.Second)
	assert.Zero(t, b.When("k"), "refilled")
	assert.Zero(t, b.NumRequeues("k"))
}

func TestDefaultRateLimiterTakesLongerDelay(t *testing.T) {
	clock := NewFakeClock(time.Unix(0, 0))
	rl := DefaultRateLimiter[int](clock)
	assert.Equal(t, 5*time.Millisecond, rl.When(1))
	for i := range 200 { // exhaust the bucket
		rl.When(1000 + i)
	}
	assert.Greater(t, rl.When(2), 5*time.Millisecond, "bucket delay dominates once empty")
	assert.Equal(t, 1, rl.NumRequeues(1))
	rl.Forget(1)
	assert.Equal(t, 0, rl.NumRequeues(1))
}

func TestQueueMetrics(t *testing.T) {
	clock := NewFakeClock(time.Unix(0, 0))
	m := NewMetrics("test")
	reg := prometheus.NewRegistry()
	require.NoError(t, reg.Register(m))
	q := newTestQueue(t, Config[string]{Clock: clock, Metrics: m})
	q.Add("a")
	q.Add("b")
	q.Add("a")
	assert.Equal(t, 2.0, value(t, m.adds))
	assert.Equal(t, 2.0, value(t, m.depth))
	clock.Step(time.Second)
	k := get(t, q)
	clock.Step(2 * time.Second)
	q.Done(k)
	q.AddRateLimited("c")
	assert.Equal(t, 1.0, value(t, m.retries))
	assert.Equal(t, 1.0, value(t, m.depth))
	families, err := reg.Gather()
	require.NoError(t, err)
	assert.Len(t, families, 5)
	for _, f := range families {
		if f.GetName() == "workqueue_queue_duration_seconds" {
			assert.Equal(t, 1.0, f.GetMetric()[0].GetHistogram().GetSampleSum(), "queued for 1s")
		}
		if f.GetName() == "workqueue_work_duration_seconds" {
			assert.Equal(t, 2.0, f.GetMetric()[0].GetHistogram().GetSampleSum(), "worked for 2s")
		}
	}
}

func TestFakeClockTimerStop(t *testing.T) {
	c := NewFakeClock(time.Unix(0, 0))
	tm := c.NewTimer(time.Second)
	assert.Equal(t, 1, c.Waiters())
	assert.True(t, tm.Stop())
	assert.False(t, tm.Stop())
	assert.Equal(t, 0, c.Waiters())
	tm2 := c.NewTimer(0)
	<-tm2.C()
	assert.False(t, tm2.Stop())
}

func value(t *testing.T, c prometheus.Metric) float64 {
	t.Helper()
	var m dto.Metric
	require.NoError(t, c.Write(&m))
	if m.Gauge != nil {
		return m.Gauge.GetValue()
	}
	return m.Counter.GetValue()
}

func ExampleQueue() {
	q := New(Config[string]{})
	defer q.ShutDown()
	q.Add("default/web")
	q.Add("default/web") // de-duplicated
	q.Add("default/db")
	ctx := context.Background()
	for q.Len() > 0 {
		key, _ := q.Get(ctx)
		fmt.Println("reconcile", key)
		q.Forget(key) // success: clear its backoff
		q.Done(key)
	}
	// Output:
	// reconcile default/web
	// reconcile default/db
}

func BenchmarkQueue16Workers(b *testing.B) {
	q := New(Config[int]{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	var done atomic.Int64
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k, err := q.Get(ctx)
				if err != nil {
					return
				}
				done.Add(1)
				q.Done(k)
			}
		}()
	}
	b.ResetTimer()
	for i := range b.N {
		q.Add(i)
	}
	_ = q.ShutDownWithDrain(ctx)
	b.StopTimer()
	cancel()
	wg.Wait()
	b.ReportMetric(float64(done.Load())/b.Elapsed().Seconds(), "items/s")
}
