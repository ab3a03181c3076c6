package workqueue

import (
	"container/heap"
	"context"
	"sync"
	"time"
)

// Config configures a Queue. The zero value is usable: RealClock, the
// DefaultRateLimiter and no metrics.
type Config[K comparable] struct {
	// Clock is the source of time for delays, backoff and metrics.
	Clock Clock
	// RateLimiter paces AddRateLimited; nil means DefaultRateLimiter(Clock).
	RateLimiter RateLimiter[K]
	// Metrics records depth, adds, latency, work duration and retries; nil
	// records nothing.
	Metrics *Metrics
}

// Queue is a de-duplicating, rate-limited, delaying work queue of keys.
//
// Keys move through three sets: queued (ready, waiting for a worker),
// processing (handed out by Get, not yet Done) and dirty (needs processing:
// queued, or added again while processing). A key is queued at most once,
// and a key being processed is queued again only when its worker calls
// Done, so no two workers ever hold the same key.
//
// The Queue owns one goroutine that moves delayed keys (AddAfter,
// AddRateLimited) into the queue when they come due; ShutDown stops it, so
// every Queue must be shut down. All methods are safe for concurrent use.
type Queue[K comparable] struct {
	clock   Clock
	limiter RateLimiter[K]
	metrics *Metrics

	mu           sync.Mutex
	queue        []K
	dirty        map[K]struct{}
	processing   map[K]struct{}
	addedAt      map[K]time.Time
	startedAt    map[K]time.Time
	waiters      int
	wake         chan struct{} // closed when a key becomes ready or on shutdown
	idle         chan struct{} // closed when processing becomes empty (drain)
	shuttingDown bool
	delayed      delayHeap[K]
	delayIndex   map[K]*delayEntry[K]

	kick     chan struct{}
	stop     chan struct{}
	stopOnce sync.Once
	loopDone chan struct{}
}

// New returns a running Queue; call ShutDown (or ShutDownWithDrain) to
// stop its goroutine.
func New[K comparable](cfg Config[K]) *Queue[K] {
	if cfg.Clock == nil {
		cfg.Clock = RealClock{}
	}
	if cfg.RateLimiter == nil {
		cfg.RateLimiter = DefaultRateLimiter[K](cfg.Clock)
	}
	q := &Queue[K]{
		clock: cfg.Clock, limiter: cfg.RateLimiter, metrics: cfg.Metrics,
		dirty: map[K]struct{}{}, processing: map[K]struct{}{},
		addedAt: map[K]time.Time{}, startedAt: map[K]time.Time{},
		wake: make(chan struct{}), delayIndex: map[K]*delayEntry[K]{},
		kick: make(chan struct{}, 1), stop: make(chan struct{}), loopDone: make(chan struct{}),
	}
	go q.delayLoop()
	return q
}

// Add marks k as needing processing. It does nothing if k is already
// queued, or after ShutDown. If k is being processed it is queued again
// when its worker calls Done.
func (q *Queue[K]) Add(k K) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.addLocked(k)
}

func (q *Queue[K]) addLocked(k K) {
	if q.shuttingDown {
		return
	}
	if _, ok := q.dirty[k]; ok {
		return
	}
	q.dirty[k] = struct{}{}
	q.addedAt[k] = q.clock.Now()
	q.metrics.add(len(q.queue) + 1)
	if _, ok := q.processing[k]; ok {
		return
	}
	q.queue = append(q.queue, k)
	q.broadcastLocked()
}

func (q *Queue[K]) broadcastLocked() {
	if q.waiters > 0 {
		close(q.wake)
		q.wake = make(chan struct{})
	}
}

// Get blocks until a key is ready and hands it to the caller, who must call
// Done(k) when finished with it. Once the queue is shut down, Get still
// hands out the keys already queued, then returns ErrShuttingDown. It
// returns ctx.Err() if ctx ends first.
func (q *Queue[K]) Get(ctx context.Context) (K, error) {
	var zero K
	for {
		q.mu.Lock()
		if len(q.queue) > 0 {
			k := q.queue[0]
			q.queue[0] = zero
			q.queue = q.queue[1:]
			q.processing[k] = struct{}{}
			delete(q.dirty, k)
			now := q.clock.Now()
			q.metrics.get(len(q.queue), now.Sub(q.addedAt[k]))
			delete(q.addedAt, k)
			q.startedAt[k] = now
			q.mu.Unlock()
			return k, nil
		}
		if q.shuttingDown {
			q.mu.Unlock()
			return zero, ErrShuttingDown
		}
		wake := q.wake
		q.waiters++
		q.mu.Unlock()
		select {
		case <-wake:
			q.mu.Lock()
			q.waiters--
			q.mu.Unlock()
		case <-ctx.Done():
			q.mu.Lock()
			q.waiters--
			q.mu.Unlock()
			return zero, ctx.Err()
		}
	}
}

// Done tells the queue that processing k is finished. If k was added
// again meanwhile it is queued now.
func (q *Queue[K]) Done(k K) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if _, ok := q.processing[k]; !ok {
		return
	}
	delete(q.processing, k)
	q.metrics.done(q.clock.Now().Sub(q.startedAt[k]))
	delete(q.startedAt, k)
	if _, ok := q.dirty[k]; ok {
		q.queue = append(q.queue, k)
		q.broadcastLocked()
	}
	if len(q.processing) == 0 && q.idle != nil {
		close(q.idle)
		q.idle = nil
	}
}

// Len returns the number of queued keys (not counting ones being
// processed or waiting for a delay).
func (q *Queue[K]) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.queue)
}

// AddRateLimited adds k after the delay its RateLimiter gives, counting a
// retry.
func (q *Queue[K]) AddRateLimited(k K) {
	q.metrics.retry()
	q.AddAfter(k, q.limiter.When(k))
}

// Forget clears k's backoff history; call it once k was processed
// successfully. It does not remove k from the queue.
func (q *Queue[K]) Forget(k K) { q.limiter.Forget(k) }

// NumRequeues returns how many times k was rate-limited since its last
// Forget.
func (q *Queue[K]) NumRequeues(k K) int { return q.limiter.NumRequeues(k) }

// ShutDown stops accepting keys, wakes every Get (which return the queued
// keys, then ErrShuttingDown) and stops the delay goroutine. Keys waiting
// for a delay are dropped. It does not wait for workers.
func (q *Queue[K]) ShutDown() {
	q.mu.Lock()
	q.shuttingDown = true
	q.broadcastLocked()
	q.mu.Unlock()
	q.stopOnce.Do(func() { close(q.stop) })
	<-q.loopDone
}

// ShutDownWithDrain shuts the queue down, then waits until workers have
// taken every queued key and called Done for every key they hold (a key
// added again while processing is handed out once more). Keep workers
// running while it waits. It returns ctx.Err() if ctx ends first; the
// queue is shut down either way.
func (q *Queue[K]) ShutDownWithDrain(ctx context.Context) error {
	q.ShutDown()
	for {
		q.mu.Lock()
		if len(q.processing) == 0 && len(q.queue) == 0 {
			q.mu.Unlock()
			return nil
		}
		if q.idle == nil {
			q.idle = make(chan struct{})
		}
		idle, wake := q.idle, q.wake
		q.waiters++
		q.mu.Unlock()
		select {
		case <-idle:
		case <-wake:
		case <-ctx.Done():
		}
		q.mu.Lock()
		q.waiters--
		q.mu.Unlock()
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

// ShuttingDown reports whether ShutDown was called.
func (q *Queue[K]) ShuttingDown() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.shuttingDown
}

// AddAfter adds k once d has passed (at once if d <= 0). A key already
// waiting keeps the earlier of its two deadlines.
func (q *Queue[K]) AddAfter(k K, d time.Duration) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.shuttingDown {
		return
	}
	if d <= 0 {
		q.addLocked(k)
		return
	}
	at := q.clock.Now().Add(d)
	if e, ok := q.delayIndex[k]; ok {
		if at.Before(e.at) {
			e.at = at
			heap.Fix(&q.delayed, e.index)
			q.kickLoop()
		}
		return
	}
	e := &delayEntry[K]{key: k, at: at}
	heap.Push(&q.delayed, e)
	q.delayIndex[k] = e
	q.kickLoop()
}

func (q *Queue[K]) kickLoop() {
	select {
	case q.kick <- struct{}{}:
	default:
	}
}

// delayLoop moves due keys into the queue; it sleeps on one timer set to
// the earliest deadline and is woken early when a new earliest arrives.
func (q *Queue[K]) delayLoop() {
	defer close(q.loopDone)
	for {
		next, ok := q.moveDue()
		var timerC <-chan time.Time
		var t Timer
		if ok {
			t = q.clock.NewTimer(next)
			timerC = t.C()
		}
		select {
		case <-q.stop:
			if t != nil {
				t.Stop()
			}
			return
		case <-q.kick:
		case <-timerC:
		}
		if t != nil {
			t.Stop()
		}
	}
}

// moveDue queues every key whose deadline has passed and returns how long
// until the next one (ok false when none waits).
func (q *Queue[K]) moveDue() (time.Duration, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	now := q.clock.Now()
	for q.delayed.Len() > 0 {
		e := q.delayed[0]
		if e.at.After(now) {
			return e.at.Sub(now), true
		}
		heap.Pop(&q.delayed)
		delete(q.delayIndex, e.key)
		q.addLocked(e.key)
	}
	return 0, false
}

type delayEntry[K comparable] struct {
	key   K
	at    time.Time
	index int
}

// delayHeap orders waiting keys by deadline (container/heap).
type delayHeap[K comparable] []*delayEntry[K]

func (h delayHeap[K]) Len() int           { return len(h) }
func (h delayHeap[K]) Less(i, j int) bool { return h[i].at.Before(h[j].at) }
func (h delayHeap[K]) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *delayHeap[K]) Push(x any) {
	e := x.(*delayEntry[K])
	e.index = len(*h)
	*h = append(*h, e)
}
func (h *delayHeap[K]) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return e
}
