package controller

import (
	"sync"
	"time"

	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/informer/workqueue"
)

// DefaultExpectationsTimeout is how long expectations wait for their
// observations before they count as satisfied anyway.
const DefaultExpectationsTimeout = 5 * time.Minute

// Expectations remember, per controller key, how many creations and
// deletions a controller has asked the API server for and not yet seen
// in its cache. A controller that creates N objects and reconciles again
// before its informer shows them would count too few and create them
// again; with expectations it waits:
//
//	if !exp.Satisfied(req) { return Result{}, nil } // the informer events will requeue
//	exp.ExpectCreations(req, n)
//	for each create: if it fails, exp.CreationObserved(req) (no event will come)
//
// and the dependents' informer handlers call CreationObserved and
// DeletionObserved for the owner's key. Expectations that are not
// fulfilled within the timeout (a lost event, a create that failed
// silently) count as satisfied, so a controller never waits forever.
//
// This is client-go's ControllerExpectations. An Expectations is safe for
// concurrent use; the zero value is not usable, use NewExpectations.
type Expectations struct {
	clock   workqueue.Clock
	timeout time.Duration

	mu sync.Mutex
	m  map[Request]*expectation
}

type expectation struct {
	adds, dels int64
	at         time.Time
	// deleting holds the UIDs ExpectDeletionsOf waits for, so that each
	// deletion is counted once however many events report it.
	deleting map[meta.UID]bool
}

// NewExpectations returns empty expectations that expire after timeout
// (DefaultExpectationsTimeout when <= 0), read from clock (the real clock
// when nil).
func NewExpectations(clock workqueue.Clock, timeout time.Duration) *Expectations {
	if clock == nil {
		clock = workqueue.RealClock{}
	}
	if timeout <= 0 {
		timeout = DefaultExpectationsTimeout
	}
	return &Expectations{clock: clock, timeout: timeout, m: map[Request]*expectation{}}
}

// ExpectCreations records that n creations for key are on their way,
// replacing any creations still expected, and restarts key's timeout.
// Expected deletions are kept.
func (e *Expectations) ExpectCreations(key Request, n int) {
	e.set(key, func(x *expectation) { x.adds = int64(max(n, 0)) })
}

// ExpectDeletions records that n deletions for key are on their way,
// replacing any deletions still expected, and restarts key's timeout.
// Expected creations are kept.
func (e *Expectations) ExpectDeletions(key Request, n int) {
	e.set(key, func(x *expectation) { x.dels, x.deleting = int64(max(n, 0)), nil })
}

// ExpectDeletionsOf records that the dependents of key with these UIDs are
// being deleted, replacing any deletions still expected, and restarts
// key's timeout. Each counts once, through DeletionObservedOf, however
// many events (a deletionTimestamp, then the delete) report it.
func (e *Expectations) ExpectDeletionsOf(key Request, uids []meta.UID) {
	e.set(key, func(x *expectation) {
		x.dels, x.deleting = int64(len(uids)), make(map[meta.UID]bool, len(uids))
		for _, u := range uids {
			x.deleting[u] = true
		}
	})
}

// DeletionObservedOf counts the deletion of dependent uid of key as seen,
// once, if ExpectDeletionsOf waits for it. Call it from the dependents'
// handlers and when a delete fails (no event will come).
func (e *Expectations) DeletionObservedOf(key Request, uid meta.UID) {
	e.lower(key, func(x *expectation) {
		if x.deleting[uid] {
			delete(x.deleting, uid)
			x.dels = max(x.dels-1, 0)
		}
	})
}

func (e *Expectations) set(key Request, f func(*expectation)) {
	e.mu.Lock()
	defer e.mu.Unlock()
	x, ok := e.m[key]
	if !ok {
		x = &expectation{}
		e.m[key] = x
	}
	f(x)
	x.at = e.clock.Now()
}

// CreationObserved counts one expected creation for key as seen. Call it
// from the dependents' add handler, and when a create the controller
// expected fails. Extra observations are ignored.
func (e *Expectations) CreationObserved(key Request) {
	e.lower(key, func(x *expectation) { x.adds = max(x.adds-1, 0) })
}

// DeletionObserved counts one expected deletion for key as seen. Call it
// from the dependents' delete handler, and when a delete the controller
// expected fails. Extra observations are ignored.
func (e *Expectations) DeletionObserved(key Request) {
	e.lower(key, func(x *expectation) { x.dels = max(x.dels-1, 0) })
}

func (e *Expectations) lower(key Request, f func(*expectation)) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if x, ok := e.m[key]; ok {
		f(x)
	}
}

// Satisfied reports whether the controller may act on key: nothing is
// expected for it, everything expected has been observed, or the
// expectations are older than the timeout.
func (e *Expectations) Satisfied(key Request) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	x, ok := e.m[key]
	if !ok || (x.adds <= 0 && x.dels <= 0) {
		return true
	}
	return e.clock.Now().Sub(x.at) > e.timeout
}

// Pending returns the creations and deletions still expected for key
// (zero when none, whether or not they expired).
func (e *Expectations) Pending(key Request) (creations, deletions int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if x, ok := e.m[key]; ok {
		return int(x.adds), int(x.dels)
	}
	return 0, 0
}

// Forget drops everything recorded for key; call it when the controller
// object itself is gone, so that the map does not grow without bound.
func (e *Expectations) Forget(key Request) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.m, key)
}

// Len returns how many keys have expectations on record.
func (e *Expectations) Len() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.m)
}
