package scheduler

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Step(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func qpod(name string, prio int32) *core.Pod {
	return &core.Pod{ObjectMeta: meta.ObjectMeta{Name: name, Namespace: "ns", UID: meta.UID(name)},
		Spec: core.PodSpec{Priority: &prio, Containers: []core.Container{{Name: "c"}}}}
}

func popName(t *testing.T, q *Queue) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	qp, err := q.Pop(ctx)
	require.NoError(t, err)
	return qp.Pod.Name
}

func TestQueueOrderByPriorityThenAge(t *testing.T) {
	clk := &fakeClock{now: time.Unix(1000, 0)}
	q := NewQueue(QueueConfig{Now: clk.Now})
	for _, p := range []*core.Pod{qpod("low-old", 0), qpod("high", 10), qpod("low-new", 0), qpod("mid", 5)} {
		q.Add(p)
		clk.Step(time.Second)
	}
	got := []string{popName(t, q), popName(t, q), popName(t, q), popName(t, q)}
	assert.Equal(t, []string{"high", "mid", "low-old", "low-new"}, got)
}

func TestQueueBackoffDoubles(t *testing.T) {
	q := NewQueue(QueueConfig{})
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 10 * time.Second, 10 * time.Second}
	for i, w := range want {
		assert.Equal(t, w, q.Backoff(i+1), "attempt %d", i+1)
	}
	q = NewQueue(QueueConfig{InitialBackoff: 100 * time.Millisecond, MaxBackoff: 300 * time.Millisecond})
	assert.Equal(t, 300*time.Millisecond, q.Backoff(5))
}

func TestQueueUnschedulableParksUntilEvent(t *testing.T) {
	clk := &fakeClock{now: time.Unix(1000, 0)}
	q := NewQueue(QueueConfig{Now: clk.Now})
	q.Add(qpod("p", 0))
	qp, err := q.Pop(context.Background())
	require.NoError(t, err)
	cycle := q.Cycle()
	qp.UnschedulablePlugins = map[string]bool{"NodeResourcesFit": true}
	q.AddUnschedulable(qp, cycle)
	a, b, u := q.Len()
	assert.Equal(t, [3]int{0, 0, 1}, [3]int{a, b, u})

	q.MoveOnEvent(EventAssignedPodAdd) // cannot help a resource failure
	_, _, u = q.Len()
	assert.Equal(t, 1, u)

	clk.Step(2 * time.Second) // past its 1 s backoff
	q.MoveOnEvent(EventNodeAdd)
	a, _, u = q.Len()
	assert.Equal(t, [2]int{1, 0}, [2]int{a, u})
	assert.Equal(t, "p", popName(t, q))
}

func TestQueueEventDuringCycleGoesToBackoff(t *testing.T) {
	clk := &fakeClock{now: time.Unix(1000, 0)}
	q := NewQueue(QueueConfig{Now: clk.Now})
	q.Add(qpod("p", 0))
	qp, err := q.Pop(context.Background())
	require.NoError(t, err)
	cycle := q.Cycle()
	q.MoveOnEvent(EventNodeAdd) // arrives while the pod is being scheduled
	q.AddUnschedulable(qp, cycle)
	a, b, u := q.Len()
	assert.Equal(t, [3]int{0, 1, 0}, [3]int{a, b, u})
	assert.Equal(t, time.Second, q.flushBackoff(), "due in its backoff")
	clk.Step(time.Second)
	q.flushBackoff()
	a, b, _ = q.Len()
	assert.Equal(t, [2]int{1, 0}, [2]int{a, b})
}

func TestQueuePopBlocksAndStops(t *testing.T) {
	q := NewQueue(QueueConfig{})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := q.Pop(ctx)
		errc <- err
	}()
	cancel()
	select {
	case err := <-errc:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(5 * time.Second):
		t.Fatal("Pop did not return on cancel")
	}
	q.Close()
	_, err := q.Pop(context.Background())
	assert.ErrorIs(t, err, ErrQueueClosed)
}

func TestQueueUpdateAndDelete(t *testing.T) {
	q := NewQueue(QueueConfig{})
	q.Add(qpod("a", 0))
	q.Add(qpod("b", 0))
	q.Update(qpod("b", 100))
	assert.Equal(t, "b", popName(t, q), "an update re-sorts")
	q.Delete(qpod("a", 0))
	a, _, _ := q.Len()
	assert.Equal(t, 0, a)
	q.Update(qpod("b", 1)) // in flight: ignored, the cycle re-queues it
	a, _, _ = q.Len()
	assert.Equal(t, 0, a)
}

func TestQueueRunFlushesBackoff(t *testing.T) {
	q := NewQueue(QueueConfig{InitialBackoff: 10 * time.Millisecond, MaxBackoff: 10 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go q.Run(ctx)
	q.Add(qpod("p", 0))
	qp, err := q.Pop(ctx)
	require.NoError(t, err)
	q.AddBackoff(qp)
	assert.Equal(t, "p", popName(t, q), "Run moves it back once its backoff ends")
}

func TestQueueDeletedDuringCycleIsNotRequeued(t *testing.T) {
	q := NewQueue(QueueConfig{})
	q.Add(qpod("p", 0))
	qp, err := q.Pop(context.Background())
	require.NoError(t, err)
	q.Delete(qp.Pod)
	q.AddUnschedulable(qp, q.Cycle())
	a, b, u := q.Len()
	assert.Equal(t, [3]int{0, 0, 0}, [3]int{a, b, u})
	q.Add(qpod("r", 0))
	qp, err = q.Pop(context.Background())
	require.NoError(t, err)
	q.Delete(qp.Pod)
	q.AddBackoff(qp)
	a, b, u = q.Len()
	assert.Equal(t, [3]int{0, 0, 0}, [3]int{a, b, u})
}
