package kubelet

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"log/slog"
	"reflect"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
)

// statusManager writes pod statuses to pods/status asynchronously: set
// records the newest status of a pod and marks it dirty; one goroutine
// writes dirty pods, so several sets between writes coalesce into one.
// A phase never goes backwards (a terminal phase stays), and conflicts are
// retried against the server's current pod. Safe for concurrent use.
type statusManager struct {
	client *client.Client
	log    *slog.Logger

	mu      sync.Mutex
	entries map[meta.UID]*statusEntry
	dirty   map[meta.UID]bool
	wake    chan struct{}
	writes  int64 // successful writes, for tests and benchmarks
}

type statusEntry struct {
	ns, name string
	uid      meta.UID
	status   core.PodStatus
	sent     *core.PodStatus // last status the server accepted, as sent
	// writtenPhase and writtenSum are the phase and the statusSum of the
	// status the server stored for the kubelet's last accepted write
	// (before any, of the pod's status when first seen): a sum rather than
	// the status, which would be one more copy of every pod's status.
	writtenPhase core.PodPhase
	writtenSum   uint64
	// writtenRV is the resourceVersion of the kubelet's last accepted
	// write; a pod seen at it or later shows the server's current status.
	writtenRV string
}

func newStatusManager(c *client.Client, log *slog.Logger) *statusManager {
	return &statusManager{client: c, log: log, entries: map[meta.UID]*statusEntry{}, dirty: map[meta.UID]bool{},
		wake: make(chan struct{}, 1)}
}

// latest returns the newest status recorded for the pod uid.
func (m *statusManager) latest(uid meta.UID) (core.PodStatus, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.entries[uid]
	if e == nil {
		return core.PodStatus{}, false
	}
	return *meta.DeepCopy(&e.status), true
}

// view calls f with the newest status recorded for the pod uid, if there
// is one, under the manager's lock. f must not modify it; what f keeps of
// it (slices) stays valid, as a recorded status is replaced, never
// changed in place. It spares readers such as Summary latest's deep copy.
func (m *statusManager) view(uid meta.UID, f func(*core.PodStatus)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if e := m.entries[uid]; e != nil {
		f(&e.status)
	}
}

// set records pod's newest status; it is written soon unless equal to the
// last one written.
func (m *statusManager) set(pod *core.Pod, st core.PodStatus) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.entries[pod.UID]
	if e == nil {
		e = &statusEntry{ns: pod.Namespace, name: pod.Name, uid: pod.UID}
		m.entries[pod.UID] = e
		e.writtenPhase, e.writtenSum = pod.Status.Phase, statusSum(pod.Status)
	}
	st = keepPhase(e.writtenPhase, st)
	e.status = st
	unchanged := e.sent != nil && statusEqual(*e.sent, st) || e.sent == nil && statusSum(st) == e.writtenSum
	// Another writer may have changed the status since the kubelet's last
	// write (the node lifecycle controller marks a pod not Ready while its
	// node is not reporting): the kubelet's status is then written back, as
	// the kubelet's status manager reconciles with the API server. Only a
	// pod newer than that write can show it, and only a difference from
	// what the server stored for the write counts (not from st, which the
	// server may normalise), so that no write ever calls for another.
	overwritten := e.writtenRV != "" && !rvAtLeast(e.writtenRV, pod.ResourceVersion) && statusSum(pod.Status) != e.writtenSum
	if unchanged && !overwritten {
		return
	}
	m.dirty[pod.UID] = true
	select {
	case m.wake <- struct{}{}:
	default:
	}
}

// rvAtLeast reports whether resourceVersion a is b or later (orkit's are
// decimal revisions; others compare only equal).
func rvAtLeast(a, b string) bool {
	x, err1 := strconv.ParseInt(a, 10, 64)
	y, err2 := strconv.ParseInt(b, 10, 64)
	if err1 != nil || err2 != nil {
		return a == b
	}
	return x >= y
}

// keepPhase never lets a terminal phase go back.
func keepPhase(old core.PodPhase, st core.PodStatus) core.PodStatus {
	if (old == core.PodSucceeded || old == core.PodFailed) && st.Phase != old {
		st.Phase = old
	}
	return st
}

// statusEqual compares statuses ignoring condition probe/transition times.
func statusEqual(a, b core.PodStatus) bool {
	return reflect.DeepEqual(withoutConditionTimes(a), withoutConditionTimes(b))
}

// statusSum fingerprints a status as it reads on the wire, ignoring
// condition probe/transition times: equal sums are equal statuses (up to
// a 64-bit FNV collision), and nil and empty lists, which the wire does
// not tell apart, sum the same.
func statusSum(st core.PodStatus) uint64 {
	b, err := json.Marshal(withoutConditionTimes(st))
	if err != nil { // not for a status decoded from or made for the wire
		return 0
	}
	h := fnv.New64a()
	_, _ = h.Write(b)
	return h.Sum64()
}

func withoutConditionTimes(s core.PodStatus) core.PodStatus {
	c := s
	c.Conditions = make([]core.PodCondition, len(s.Conditions))
	for i, cond := range s.Conditions {
		cond.LastTransitionTime, cond.LastProbeTime = meta.Time{}, meta.Time{}
		c.Conditions[i] = cond
	}
	return c
}

// isDirty reports whether uid has a status waiting to be written.
func (m *statusManager) isDirty(uid meta.UID) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.dirty[uid]
}

// forget drops a pod's entry (after it is deleted).
func (m *statusManager) forget(uid meta.UID) {
	m.mu.Lock()
	delete(m.entries, uid)
	delete(m.dirty, uid)
	m.mu.Unlock()
}

// maxStatusAttempts bounds the conflict retries of one flush; a flush that
// still conflicts stays dirty and is retried by the run loop.
const maxStatusAttempts = 10

// statusWriters bounds the status writes in flight, so one slow write does
// not hold up the others.
const statusWriters = 8

// run writes dirty statuses until ctx ends; the writes of one batch run in
// parallel (at most statusWriters), each pod's at most once per batch.
func (m *statusManager) run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-m.wake:
		}
		m.mu.Lock()
		uids := make([]meta.UID, 0, len(m.dirty))
		for uid := range m.dirty {
			uids = append(uids, uid)
		}
		m.mu.Unlock()
		var failed atomic.Bool
		var wg sync.WaitGroup
		sem := make(chan struct{}, statusWriters)
		for _, uid := range uids {
			sem <- struct{}{}
			wg.Add(1)
			go func() {
				defer func() { <-sem; wg.Done() }()
				if err := m.flush(ctx, uid); err != nil && ctx.Err() == nil {
					m.log.Info("write pod status", "uid", uid, "err", err)
					if !apierrors.IsNotFound(err) {
						failed.Store(true)
					}
				}
			}()
		}
		wg.Wait()
		if failed.Load() {
			t := time.NewTimer(500 * time.Millisecond)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			m.kick()
		}
	}
}

func (m *statusManager) kick() {
	select {
	case m.wake <- struct{}{}:
	default:
	}
}

// flush writes uid's status now if it is dirty, retrying conflicts.
func (m *statusManager) flush(ctx context.Context, uid meta.UID) error {
	m.mu.Lock()
	e := m.entries[uid]
	if e == nil || !m.dirty[uid] {
		m.mu.Unlock()
		return nil
	}
	delete(m.dirty, uid)
	st, ns, name := e.status, e.ns, e.name
	m.mu.Unlock()
	pods := client.For[core.Pod](m.client, ns)
	var written *core.Pod
	var err error
	for attempt := 0; attempt < maxStatusAttempts; attempt++ {
		var cur *core.Pod
		if cur, err = pods.Get(ctx, name); err != nil {
			break
		}
		if cur.UID != uid {
			err = apierrors.NewNotFound(meta.GroupResource{Resource: "pods"}, name)
			break
		}
		cur.Status = keepPhase(cur.Status.Phase, st)
		written, err = pods.UpdateStatus(ctx, cur)
		if err == nil || !apierrors.IsConflict(err) {
			break
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err != nil {
		if e2 := m.entries[uid]; e2 != nil && !apierrors.IsNotFound(err) {
			m.dirty[uid] = true
		}
		return fmt.Errorf("pod %s/%s status: %w", ns, name, err)
	}
	m.writes++
	if e2 := m.entries[uid]; e2 != nil {
		e2.writtenPhase, e2.writtenSum, e2.writtenRV = written.Status.Phase, statusSum(written.Status), written.ResourceVersion
		sent := st
		e2.sent = &sent
	}
	return nil
}
