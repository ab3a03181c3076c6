package informer

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Handler receives an informer's events. Each handler runs on its own
// goroutine, one call at a time, in the order the cache changed. The
// objects are the cache's own: treat them as read-only.
type Handler[T any] interface {
	// OnAdd: obj appeared. isInitialList is true for objects delivered as
	// part of the first list (or to a handler added after it).
	OnAdd(obj T, isInitialList bool)
	// OnUpdate: obj changed from oldObj to newObj. A periodic resync
	// delivers OnUpdate with oldObj == newObj.
	OnUpdate(oldObj, newObj T)
	// OnDelete: obj is gone. obj is a T, or a DeletedFinalStateUnknown[T]
	// when the deletion was found by a relist and the final state is not
	// known; ObjectOf unwraps both.
	OnDelete(obj any)
}

// DeletedFinalStateUnknown is handed to OnDelete for an object that was
// deleted while the watch was disconnected: Obj is the last state the
// cache knew, Key its cache key.
type DeletedFinalStateUnknown[T any] struct {
	Key string
	Obj T
}

// ObjectOf returns the object OnDelete was given, unwrapping a tombstone.
func ObjectOf[T any](obj any) (T, bool) {
	switch o := obj.(type) {
	case T:
		return o, true
	case DeletedFinalStateUnknown[T]:
		return o.Obj, true
	}
	var zero T
	return zero, false
}

// HandlerFuncs adapts functions to a Handler; nil functions are skipped.
type HandlerFuncs[T any] struct {
	AddFunc    func(obj T, isInitialList bool)
	UpdateFunc func(oldObj, newObj T)
	DeleteFunc func(obj any)
}

var _ Handler[int] = HandlerFuncs[int]{}

// OnAdd calls AddFunc.
func (f HandlerFuncs[T]) OnAdd(obj T, initial bool) {
	if f.AddFunc != nil {
		f.AddFunc(obj, initial)
	}
}

// OnUpdate calls UpdateFunc.
func (f HandlerFuncs[T]) OnUpdate(o, n T) {
	if f.UpdateFunc != nil {
		f.UpdateFunc(o, n)
	}
}

// OnDelete calls DeleteFunc.
func (f HandlerFuncs[T]) OnDelete(obj any) {
	if f.DeleteFunc != nil {
		f.DeleteFunc(obj)
	}
}

type notificationKind uint8

const (
	notifyAdd notificationKind = iota
	notifyUpdate
	notifyDelete
)

type notification[T any] struct {
	kind     notificationKind
	initial  bool
	old, new T
	deleted  any
}

// listener is one handler's goroutine and unbounded buffer. The informer
// pushes under its lock without blocking; run delivers in order.
type listener[T any] struct {
	h      Handler[T]
	resync time.Duration

	mu         sync.Mutex
	buf        []notification[T]
	head       int
	wake       chan struct{}
	nextResync time.Time // guarded by the informer's lock

	initialPending atomic.Int64
	delivered      atomic.Int64
	maxPending     atomic.Int64
	removed        atomic.Bool
}

func newListener[T any](h Handler[T], resync time.Duration) *listener[T] {
	return &listener[T]{h: h, resync: resync, wake: make(chan struct{}, 1)}
}

// push appends n; it never blocks.
func (l *listener[T]) push(n notification[T]) {
	if n.kind == notifyAdd && n.initial {
		l.initialPending.Add(1)
	}
	l.mu.Lock()
	l.buf = append(l.buf, n)
	if p := int64(len(l.buf) - l.head); p > l.maxPending.Load() {
		l.maxPending.Store(p)
	}
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// pending returns the number of undelivered notifications.
func (l *listener[T]) pending() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buf) - l.head
}

// drop discards undelivered notifications (the informer stopped).
func (l *listener[T]) drop() {
	l.mu.Lock()
	l.buf, l.head = nil, 0
	l.mu.Unlock()
	l.initialPending.Store(0)
}

func (l *listener[T]) pop() (notification[T], bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var zero notification[T]
	if l.head == len(l.buf) {
		l.buf, l.head = l.buf[:0], 0
		return zero, false
	}
	n := l.buf[l.head]
	l.buf[l.head] = zero
	l.head++
	if l.head > 1024 && l.head*2 > len(l.buf) { // reclaim the delivered prefix
		l.buf = append([]notification[T](nil), l.buf[l.head:]...)
		l.head = 0
	}
	return n, true
}

// run delivers notifications until ctx is done or the listener is removed.
func (l *listener[T]) run(ctx context.Context) {
	for {
		for {
			if ctx.Err() != nil || l.removed.Load() {
				return
			}
			n, ok := l.pop()
			if !ok {
				break
			}
			l.deliver(n)
		}
		select {
		case <-ctx.Done():
			return
		case <-l.wake:
		}
	}
}

func (l *listener[T]) deliver(n notification[T]) {
	switch n.kind {
	case notifyAdd:
		l.h.OnAdd(n.new, n.initial)
		if n.initial {
			l.initialPending.Add(-1)
		}
	case notifyUpdate:
		l.h.OnUpdate(n.old, n.new)
	case notifyDelete:
		l.h.OnDelete(n.deleted)
	}
	l.delivered.Add(1)
}

// Registration is the handle AddEventHandler returns: it reports the
// handler's progress and removes it. Safe for concurrent use.
type Registration struct {
	hasSynced  func() bool
	pending    func() int
	maxPending func() int64
	delivered  func() int64
	remove     func()
}

// HasSynced reports whether the informer has synced and this handler has
// been handed every object of the initial list.
func (r *Registration) HasSynced() bool { return r.hasSynced() }

// Pending returns how many events wait in this handler's buffer.
func (r *Registration) Pending() int { return r.pending() }

// MaxPending returns the largest backlog this handler's buffer has had.
func (r *Registration) MaxPending() int64 { return r.maxPending() }

// Delivered returns how many events this handler has been handed.
func (r *Registration) Delivered() int64 { return r.delivered() }

// Remove stops delivering to the handler and frees its buffer.
func (r *Registration) Remove() { r.remove() }
