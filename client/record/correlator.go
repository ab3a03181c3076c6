package record

import (
	"strings"
	"time"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

// correlator decides what happens to a new Event, as Kubernetes' event
// correlator does: its source may have spent its tokens for the involved
// object (dropped), or the same Event was written within the window (the
// written one is patched: count+1, lastTimestamp), else it is created.
// It is not safe for concurrent use: the Writer holds its lock.
type correlator struct {
	window time.Duration
	qps    float64
	burst  float64
	seen   *lru[*seenEvent]
	spam   *lru[*bucket]
}

// seenEvent is what the correlator remembers of a written Event.
type seenEvent struct {
	name  string
	count int32
	first meta.Time
	last  time.Time
}

// bucket is a token bucket: burst tokens, refilled at qps.
type bucket struct {
	tokens float64
	last   time.Time
}

func newCorrelator(window time.Duration, cacheSize int, qps float64, burst int) *correlator {
	return &correlator{window: window, qps: qps, burst: float64(burst),
		seen: newLRU[*seenEvent](cacheSize), spam: newLRU[*bucket](cacheSize)}
}

// decision is the correlator's verdict on one Event: patch an existing
// Event (the Event's name, count and firstTimestamp were set from it) or
// create a new one. commit records the verdict once the Event is queued.
type decision struct {
	patch  bool
	key    string
	bucket *bucket
	now    time.Time
}

// admit takes a token for ev's source and object and correlates ev with
// what was written before, updating ev in place for a patch. It returns
// ErrRateLimited when the bucket is empty; nothing is remembered until
// commit.
func (c *correlator) admit(ev *core.Event, now time.Time) (decision, error) {
	sk := spamKey(ev)
	b, ok := c.spam.get(sk)
	if !ok {
		b = &bucket{tokens: c.burst, last: now}
	}
	if c.qps > 0 && now.After(b.last) {
		b.tokens = min(c.burst, b.tokens+now.Sub(b.last).Seconds()*c.qps)
	}
	b.last = now
	if c.qps >= 0 && b.tokens < 1 {
		c.spam.put(sk, b)
		return decision{}, ErrRateLimited
	}
	d := decision{key: eventKey(ev), bucket: b, now: now}
	if prev, ok := c.seen.get(d.key); ok && now.Sub(prev.last) < c.window {
		d.patch = true
		ev.Name, ev.Count, ev.FirstTimestamp = prev.name, prev.count+1, prev.first
	}
	c.spam.put(sk, b)
	return d, nil
}

// commit spends the token and remembers ev as written.
func (c *correlator) commit(d decision, ev *core.Event) {
	if c.qps >= 0 {
		d.bucket.tokens--
	}
	c.seen.put(d.key, &seenEvent{name: ev.Name, count: ev.Count, first: ev.FirstTimestamp, last: d.now})
}

// eventKey identifies an Event for de-duplication: its source, involved
// object (with field path), type, reason and message.
func eventKey(ev *core.Event) string {
	o := &ev.InvolvedObject
	return strings.Join([]string{ev.Source.Component, ev.Source.Host, o.Kind, o.APIVersion, o.Namespace, o.Name,
		string(o.UID), o.FieldPath, ev.Type, ev.Reason, ev.Message, ev.ReportingController, ev.ReportingInstance}, "\x00")
}

// spamKey identifies the token bucket of an Event: its source and its
// involved object (without the field path), as Kubernetes' spam filter.
func spamKey(ev *core.Event) string {
	o := &ev.InvolvedObject
	return strings.Join([]string{ev.Source.Component, ev.Source.Host, o.Kind, o.APIVersion, o.Namespace, o.Name,
		string(o.UID)}, "\x00")
}
