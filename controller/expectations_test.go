package controller

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/orkit/orkit/informer/workqueue"
)

func TestExpectations(t *testing.T) {
	key := Request{"ns", "rs"}
	type step struct {
		do        func(e *Expectations, c *workqueue.FakeClock)
		satisfied bool
	}
	create := func(n int) func(*Expectations, *workqueue.FakeClock) {
		return func(e *Expectations, _ *workqueue.FakeClock) { e.ExpectCreations(key, n) }
	}
	del := func(n int) func(*Expectations, *workqueue.FakeClock) {
		return func(e *Expectations, _ *workqueue.FakeClock) { e.ExpectDeletions(key, n) }
	}
	created := func(e *Expectations, _ *workqueue.FakeClock) { e.CreationObserved(key) }
	deleted := func(e *Expectations, _ *workqueue.FakeClock) { e.DeletionObserved(key) }
	after := func(d time.Duration) func(*Expectations, *workqueue.FakeClock) {
		return func(_ *Expectations, c *workqueue.FakeClock) { c.Step(d) }
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"nothing expected", []step{{func(*Expectations, *workqueue.FakeClock) {}, true}}},
		{"creations observed", []step{{create(2), false}, {created, false}, {created, true}}},
		{"extra observations ignored", []step{{create(1), false}, {created, true}, {created, true}, {create(1), false}}},
		{"deletions observed", []step{{del(1), false}, {deleted, true}}},
		{"both kinds", []step{{create(1), false}, {del(1), false}, {created, false}, {deleted, true}}},
		{"zero expected", []step{{create(0), true}, {del(-3), true}}},
		{"expire after the timeout", []step{{create(3), false}, {after(5 * time.Minute), false}, {after(time.Nanosecond), true}}},
		{"a new expectation restarts the timeout", []step{{create(1), false}, {after(4 * time.Minute), false},
			{del(1), false}, {after(2 * time.Minute), false}, {after(4 * time.Minute), true}}},
		{"observations of other keys do not count", []step{{create(1), false},
			{func(e *Expectations, _ *workqueue.FakeClock) { e.CreationObserved(Request{"ns", "other"}) }, false}}},
		{"forget", []step{{create(1), false}, {func(e *Expectations, _ *workqueue.FakeClock) { e.Forget(key) }, true}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := workqueue.NewFakeClock(time.Unix(0, 0))
			e := NewExpectations(clock, 0)
			for i, s := range tc.steps {
				s.do(e, clock)
				assert.Equal(t, s.satisfied, e.Satisfied(key), "after step %d", i)
			}
		})
	}
}

func TestExpectationsPendingAndLen(t *testing.T) {
	e := NewExpectations(nil, time.Second)
	k := Request{"ns", "a"}
	e.ExpectCreations(k, 3)
	e.ExpectDeletions(k, 2)
	e.CreationObserved(k)
	c, d := e.Pending(k)
	assert.Equal(t, []int{2, 2}, []int{c, d})
	assert.Equal(t, 1, e.Len())
	e.Forget(k)
	assert.Equal(t, 0, e.Len())
	c, d = e.Pending(k)
	assert.Equal(t, []int{0, 0}, []int{c, d})
}

func TestExpectationsConcurrentObservations(t *testing.T) {
	e := NewExpectations(nil, 0)
	k := Request{"ns", "a"}
	const n = 200
	e.ExpectCreations(k, n)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e.CreationObserved(k)
			_ = e.Satisfied(k)
		}()
	}
	wg.Wait()
	assert.True(t, e.Satisfied(k))
}
