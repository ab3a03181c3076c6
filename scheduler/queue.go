package scheduler

import (
	"container/heap"
	"context"
	"sync"
	"time"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/scheduler/framework"
	"github.com/orkit/orkit/scheduler/plugins"
)

// QueuedPod is a pod waiting to be scheduled, with its history: when it
// was first queued, how many attempts failed, and which plugins rejected
// it last (which decides what cluster events can help it).
type QueuedPod struct {
	*framework.PodInfo
	// Timestamp orders pods of equal priority (older first); reset when
	// the pod is re-queued.
	Timestamp time.Time
	// InitialAttempt is when the pod was first popped.
	InitialAttempt time.Time
	// Attempts counts scheduling attempts.
	Attempts int
	// UnschedulablePlugins named the plugins that rejected the pod last.
	UnschedulablePlugins map[string]bool
	backoffUntil         time.Time
	index                int
	where                place
}

// place is the part of the queue a pod is in.
type place uint8

const (
	nowhere place = iota
	inActive
	inBackoff
	inUnschedulable
)

// Event is a cluster change that may make parked pods schedulable.
type Event string

// The events the scheduler moves parked pods on.
const (
	EventNodeAdd         Event = "NodeAdd"
	EventNodeUpdate      Event = "NodeUpdate"
	EventPodDelete       Event = "PodDelete"
	EventAssignedPodAdd  Event = "AssignedPodAdd"
	EventAssignedPodDone Event = "AssignedPodDone"
	EventBindingFailed   Event = "BindingFailed"
	// EventVolumeChange: a claim, volume or StorageClass changed.
	EventVolumeChange Event = "VolumeChange"
	// EventDRAChange: a DeviceClass, ResourceSlice or ResourceClaim
	// changed.
	EventDRAChange Event = "DRAChange"
)

// eventPlugins says which plugins' rejections an event can undo; nil
// (an event not listed) means any.
func eventPlugins(ev Event) []string {
	switch ev {
	case EventAssignedPodAdd:
		return []string{"InterPodAffinity", "PodTopologySpread"}
	case EventPodDelete:
		return []string{"NodeResourcesFit", "NodePorts", "InterPodAffinity", "PodTopologySpread", PreemptionName}
	case EventAssignedPodDone:
		return []string{"NodeResourcesFit", "NodePorts", "InterPodAffinity", "PodTopologySpread"}
	case EventVolumeChange:
		return []string{plugins.NameVolumeBinding}
	case EventDRAChange:
		return []string{plugins.NameDynamicResources}
	}
	return nil
}

// QueueConfig tunes a Queue; zero values mean the defaults.
type QueueConfig struct {
	// InitialBackoff (1 s) doubles with every failed attempt up to
	// MaxBackoff (10 s).
	InitialBackoff, MaxBackoff time.Duration
	// MaxUnschedulable (5 min) is the longest a pod stays parked without
	// an event moving it.
	MaxUnschedulable time.Duration
	// Less orders the active queue; nil means higher priority first, then
	// older Timestamp.
	Less func(a, b *QueuedPod) bool
	// Now is the clock (tests); nil means time.Now.
	Now func() time.Time
}

// Queue is the scheduling queue, in three parts: the active heap (pods to
// try now, by priority then age), the backoff heap (pods that failed,
// waiting 1 s doubling to 10 s) and the unschedulable set (pods no node
// fits, parked until an event that could help them, or MaxUnschedulable).
// Pop blocks while the active heap is empty, so an idle scheduler spins
// nothing. Run moves pods whose backoff is over, sleeping until the next
// one is due. All methods are safe for concurrent use.
type Queue struct {
	cfg  QueueConfig
	mu   sync.Mutex
	cond *sync.Cond

	active        podHeap
	backoff       podHeap
	unschedulable map[string]*QueuedPod
	all           map[string]*QueuedPod // every pod in any part, by key
	inFlight      map[string]bool       // popped, cycle not finished; false once deleted meanwhile

	cycle     int64 // scheduling cycles started (Pop count)
	moveCycle int64 // cycle of the last move request
	closed    bool
	wake      chan struct{}
}

// NewQueue returns an empty queue.
func NewQueue(cfg QueueConfig) *Queue {
	if cfg.InitialBackoff <= 0 {
		cfg.InitialBackoff = time.Second
	}
	if cfg.MaxBackoff < cfg.InitialBackoff {
		cfg.MaxBackoff = max(cfg.InitialBackoff, 10*time.Second)
	}
	if cfg.MaxUnschedulable <= 0 {
		cfg.MaxUnschedulable = 5 * time.Minute
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Less == nil {
		cfg.Less = byPriorityThenAge
	}
	q := &Queue{cfg: cfg, unschedulable: map[string]*QueuedPod{}, all: map[string]*QueuedPod{},
		inFlight: map[string]bool{}, wake: make(chan struct{}, 1)}
	q.active.less = cfg.Less
	q.backoff.less = func(a, b *QueuedPod) bool { return a.backoffUntil.Before(b.backoffUntil) }
	q.cond = sync.NewCond(&q.mu)
	return q
}

func byPriorityThenAge(a, b *QueuedPod) bool {
	pa, pb := framework.PodPriority(a.Pod), framework.PodPriority(b.Pod)
	if pa != pb {
		return pa > pb
	}
	return a.Timestamp.Before(b.Timestamp)
}

// Add queues a new pending pod (or replaces the queued copy).
func (q *Queue) Add(pod *core.Pod) {
	q.mu.Lock()
	defer q.mu.Unlock()
	key := podKey(pod)
	if old, ok := q.all[key]; ok {
		q.updateLocked(old, pod)
		return
	}
	qp := &QueuedPod{PodInfo: framework.NewPodInfo(pod), Timestamp: q.cfg.Now()}
	q.pushActiveLocked(key, qp)
}

func (q *Queue) pushActiveLocked(key string, qp *QueuedPod) {
	q.all[key] = qp
	qp.where = inActive
	heap.Push(&q.active, qp)
	q.cond.Signal()
}

// Update replaces a queued pod's object. A parked pod whose spec changed
// is moved to the active queue, as the change may make it fit.
func (q *Queue) Update(pod *core.Pod) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if old, ok := q.all[podKey(pod)]; ok {
		q.updateLocked(old, pod)
		return
	}
	if _, ok := q.inFlight[podKey(pod)]; ok {
		return // the cycle in flight re-queues it
	}
	qp := &QueuedPod{PodInfo: framework.NewPodInfo(pod), Timestamp: q.cfg.Now()}
	q.pushActiveLocked(podKey(pod), qp)
}

func (q *Queue) updateLocked(qp *QueuedPod, pod *core.Pod) {
	qp.PodInfo = framework.NewPodInfo(pod)
	key := podKey(pod)
	switch qp.where {
	case inActive:
		heap.Fix(&q.active, qp.index)
	case inUnschedulable:
		delete(q.unschedulable, key)
		q.pushActiveLocked(key, qp)
	case inBackoff:
		heap.Fix(&q.backoff, qp.index)
	}
}

// Delete removes a pod from every part of the queue.
func (q *Queue) Delete(pod *core.Pod) {
	q.mu.Lock()
	defer q.mu.Unlock()
	key := podKey(pod)
	if _, ok := q.inFlight[key]; ok {
		q.inFlight[key] = false // the cycle must not re-queue it
	}
	qp, ok := q.all[key]
	if !ok {
		return
	}
	delete(q.all, key)
	switch qp.where {
	case inUnschedulable:
		delete(q.unschedulable, key)
	case inActive:
		heap.Remove(&q.active, qp.index)
	case inBackoff:
		heap.Remove(&q.backoff, qp.index)
	}
	qp.where = nowhere
}

// Pop returns the first active pod, blocking until there is one, ctx
// ends or the queue is closed (ErrQueueClosed). The caller owns the pod
// until it calls Done (after requeueing it, or when it is bound).
func (q *Queue) Pop(ctx context.Context) (*QueuedPod, error) {
	stop := context.AfterFunc(ctx, func() {
		q.mu.Lock()
		q.cond.Broadcast()
		q.mu.Unlock()
	})
	defer stop()
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.active.items) == 0 {
		if q.closed {
			return nil, ErrQueueClosed
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		q.cond.Wait()
	}
	qp := heap.Pop(&q.active).(*QueuedPod)
	qp.where = nowhere
	key := podKey(qp.Pod)
	delete(q.all, key)
	q.inFlight[key] = true
	q.cycle++
	qp.Attempts++
	if qp.InitialAttempt.IsZero() {
		qp.InitialAttempt = q.cfg.Now()
	}
	return qp, nil
}

// Cycle returns the number of pods popped so far; pass the value read
// right after Pop to AddUnschedulable.
func (q *Queue) Cycle() int64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.cycle
}

// Done ends the cycle of a popped pod that is not re-queued (bound, or
// deleted).
func (q *Queue) Done(pod *core.Pod) {
	q.mu.Lock()
	delete(q.inFlight, podKey(pod))
	q.mu.Unlock()
}

// AddUnschedulable re-queues a popped pod that did not fit: into backoff
// when an event arrived since its cycle started (it may fit now), else
// parked until an event. cycle is the value of Cycle when it was popped.
func (q *Queue) AddUnschedulable(qp *QueuedPod, cycle int64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.endCycleLocked(qp) {
		return
	}
	key := podKey(qp.Pod)
	qp.Timestamp = q.cfg.Now()
	q.all[key] = qp
	if q.moveCycle >= cycle {
		q.pushBackoffLocked(qp)
		return
	}
	qp.where = inUnschedulable
	q.unschedulable[key] = qp
}

// AddBackoff re-queues a popped pod that failed for another reason
// (an error, a failed binding): it waits out its backoff.
func (q *Queue) AddBackoff(qp *QueuedPod) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.endCycleLocked(qp) {
		return
	}
	qp.Timestamp = q.cfg.Now()
	q.all[podKey(qp.Pod)] = qp
	q.pushBackoffLocked(qp)
}

// endCycleLocked ends qp's cycle and reports whether it may be re-queued:
// not when it was deleted during the cycle, nor when an update re-added it.
func (q *Queue) endCycleLocked(qp *QueuedPod) bool {
	key := podKey(qp.Pod)
	alive, inFlight := q.inFlight[key]
	delete(q.inFlight, key)
	if inFlight && !alive {
		return false
	}
	_, queued := q.all[key]
	return !queued
}

// Backoff returns how long a pod waits after attempts failed attempts.
func (q *Queue) Backoff(attempts int) time.Duration {
	d := q.cfg.InitialBackoff
	for i := 1; i < attempts && d < q.cfg.MaxBackoff; i++ {
		d *= 2
	}
	return min(d, q.cfg.MaxBackoff)
}

func (q *Queue) pushBackoffLocked(qp *QueuedPod) {
	qp.backoffUntil = qp.Timestamp.Add(q.Backoff(qp.Attempts))
	qp.where = inBackoff
	heap.Push(&q.backoff, qp)
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// MoveOnEvent moves parked pods that ev could help (by the plugins that
// rejected them) to backoff, or active when their backoff is over, and
// records the event so pods whose cycle is in flight go to backoff too.
func (q *Queue) MoveOnEvent(ev Event) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.moveCycle = q.cycle
	interested := eventPlugins(ev)
	for key, qp := range q.unschedulable {
		if !helps(qp, interested) {
			continue
		}
		delete(q.unschedulable, key)
		q.moveLocked(qp)
	}
}

func (q *Queue) moveLocked(qp *QueuedPod) {
	if q.cfg.Now().Before(qp.Timestamp.Add(q.Backoff(qp.Attempts))) {
		q.pushBackoffLocked(qp)
		return
	}
	qp.where = inActive
	heap.Push(&q.active, qp)
	q.cond.Signal()
}

func helps(qp *QueuedPod, interested []string) bool {
	if interested == nil || len(qp.UnschedulablePlugins) == 0 {
		return true
	}
	for _, p := range interested {
		if qp.UnschedulablePlugins[p] {
			return true
		}
	}
	return false
}

// Len returns the pods in the active, backoff and unschedulable parts.
func (q *Queue) Len() (active, backoff, unschedulable int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.active.items), len(q.backoff.items), len(q.unschedulable)
}

// Run moves pods from backoff to active when their backoff ends, and
// parked pods to active after MaxUnschedulable, until ctx ends; then it
// closes the queue. It sleeps until the next pod is due.
func (q *Queue) Run(ctx context.Context) {
	defer q.Close()
	flushEvery := time.NewTicker(min(q.cfg.MaxUnschedulable/2, 30*time.Second))
	defer flushEvery.Stop()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		next := q.flushBackoff()
		timer.Reset(next)
		select {
		case <-ctx.Done():
			return
		case <-q.wake:
		case <-timer.C:
		case <-flushEvery.C:
			q.flushUnschedulable()
		}
	}
}

// flushBackoff moves due pods and returns how long until the next is due.
func (q *Queue) flushBackoff() time.Duration {
	q.mu.Lock()
	defer q.mu.Unlock()
	now := q.cfg.Now()
	for len(q.backoff.items) > 0 {
		qp := q.backoff.items[0]
		if qp.backoffUntil.After(now) {
			return qp.backoffUntil.Sub(now)
		}
		heap.Pop(&q.backoff)
		qp.where = inActive
		heap.Push(&q.active, qp)
		q.cond.Signal()
	}
	return time.Hour
}

func (q *Queue) flushUnschedulable() {
	q.mu.Lock()
	defer q.mu.Unlock()
	now := q.cfg.Now()
	for key, qp := range q.unschedulable {
		if now.Sub(qp.Timestamp) >= q.cfg.MaxUnschedulable {
			delete(q.unschedulable, key)
			q.moveLocked(qp)
		}
	}
}

// Close wakes every Pop with ErrQueueClosed once the active heap is empty.
func (q *Queue) Close() {
	q.mu.Lock()
	q.closed = true
	q.cond.Broadcast()
	q.mu.Unlock()
}

// podHeap is a binary heap of QueuedPods ordered by less.
type podHeap struct {
	items []*QueuedPod
	less  func(a, b *QueuedPod) bool
}

// Len, Less, Swap, Push and Pop implement heap.Interface.
func (h *podHeap) Len() int { return len(h.items) }

// Less implements heap.Interface.
func (h *podHeap) Less(i, j int) bool { return h.less(h.items[i], h.items[j]) }

// Swap implements heap.Interface.
func (h *podHeap) Swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	h.items[i].index, h.items[j].index = i, j
}

// Push implements heap.Interface.
func (h *podHeap) Push(x any) {
	qp := x.(*QueuedPod)
	qp.index = len(h.items)
	h.items = append(h.items, qp)
}

// Pop implements heap.Interface.
func (h *podHeap) Pop() any {
	n := len(h.items) - 1
	qp := h.items[n]
	h.items[n] = nil
	h.items = h.items[:n]
	qp.index = -1
	return qp
}
