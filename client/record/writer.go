package record

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"reflect"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
)

// Writer is the Recorder that writes core/v1 Events to the API server
// through a client.Client. Recording is cheap and never blocks: the Event
// is built, rate limited and correlated in the caller's goroutine, then
// queued in a bounded buffer (dropped and counted when full); Run's
// workers write the queue.
//
// Lifetime: make one with New per client, share it (WithSource gives
// other components their own source), and run it with Run, which owns
// every goroutine of the Writer. Events recorded before Run wait in the
// buffer; when Run's context ends the Writer writes what it holds within
// FlushTimeout and records nothing more (ErrStopped). A Writer runs once.
// All methods are safe for concurrent use.
//
// Metrics: the Writer is a prometheus.Collector (see Describe); Stats
// returns the same counts.
type Writer struct {
	c       *client.Client
	opts    Config
	kinds   sync.Map // reflect.Type of an object -> meta.GroupVersionKind
	shards  []chan item
	metrics *metrics
	started atomic.Bool

	// mu guards the correlator, the name clock and stopped, and is held
	// while an Event is queued, so that what the correlator remembers is
	// what was queued.
	mu       sync.Mutex
	corr     *correlator
	lastName int64
	stopped  bool

	created, patched, failed, dropped atomic.Int64
}

// item is one queued write: a new Event, or a repeat to patch.
type item struct {
	ev    *core.Event
	patch bool
}

var _ Recorder = (*Writer)(nil)

// New returns a stopped Writer that writes through c. It fails with
// ErrInvalidEvent when opts has no Source.Component, and with
// ErrInvalidObject when c is nil.
func New(c *client.Client, opts Config) (*Writer, error) {
	if c == nil {
		return nil, fmt.Errorf("%w: a client is required", ErrInvalidObject)
	}
	if opts.Source.Component == "" {
		return nil, fmt.Errorf("%w: Config.Source.Component is required", ErrInvalidEvent)
	}
	opts.fill()
	w := &Writer{c: c, opts: opts, metrics: newMetrics(opts.Source.Component),
		corr: newCorrelator(opts.Window, opts.CacheSize, opts.QPS, opts.Burst)}
	per := opts.Buffer / opts.Workers
	for range opts.Workers {
		w.shards = append(w.shards, make(chan item, per))
	}
	return w, nil
}

// Event implements Recorder for the Writer's own source.
func (w *Writer) Event(obj meta.Object, eventType, reason, message string) {
	_ = w.record(w.opts.Source, obj, eventType, reason, message)
}

// Eventf implements Recorder for the Writer's own source.
func (w *Writer) Eventf(obj meta.Object, eventType, reason, format string, args ...any) {
	_ = w.record(w.opts.Source, obj, eventType, reason, fmt.Sprintf(format, args...))
}

// Record is Event that says what became of the Event: nil when it was
// queued, else an error wrapping ErrInvalidObject, ErrInvalidEvent,
// ErrRateLimited, ErrBufferFull or ErrStopped (the Event is dropped and
// counted). It never blocks.
func (w *Writer) Record(obj meta.Object, eventType, reason, message string) error {
	return w.record(w.opts.Source, obj, eventType, reason, message)
}

// WithSource returns a Recorder that records through w as source (another
// component of the same process: source.component and reportingComponent
// are source.Component, source.host and reportingInstance source.Host).
// An empty Component means w's.
func (w *Writer) WithSource(source core.EventSource) Recorder {
	if source.Component == "" {
		source.Component = w.opts.Source.Component
	}
	return sourced{w: w, src: source}
}

// sourced is a Writer's Recorder for another source.
type sourced struct {
	w   *Writer
	src core.EventSource
}

func (s sourced) Event(obj meta.Object, eventType, reason, message string) {
	_ = s.w.record(s.src, obj, eventType, reason, message)
}

func (s sourced) Eventf(obj meta.Object, eventType, reason, format string, args ...any) {
	_ = s.w.record(s.src, obj, eventType, reason, fmt.Sprintf(format, args...))
}

// Stats are a Writer's counts so far: Events created and repeats patched
// on the server, writes that failed after their retries, and Events
// dropped (invalid, rate limited, buffer full, stopped, or left at the
// end of the flush).
type Stats struct {
	Created, Patched, Failed, Dropped int64
}

// Stats returns the Writer's counts.
func (w *Writer) Stats() Stats {
	return Stats{Created: w.created.Load(), Patched: w.patched.Load(), Failed: w.failed.Load(), Dropped: w.dropped.Load()}
}

// record builds, admits and queues one Event.
func (w *Writer) record(src core.EventSource, obj meta.Object, eventType, reason, message string) error {
	ev, err := w.makeEvent(src, obj, eventType, reason, message)
	if err != nil {
		w.drop(dropInvalid)
		w.opts.Logger.Debug("event not recorded", "reason", reason, "err", err)
		return err
	}
	shard := w.shards[shardOf(&ev.InvolvedObject, len(w.shards))]
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		w.drop(dropStopped)
		return fmt.Errorf("%w: %s %s", ErrStopped, reason, ev.InvolvedObject.Name)
	}
	now := w.opts.Now()
	d, err := w.corr.admit(ev, now)
	if err != nil {
		w.drop(dropRateLimited)
		return fmt.Errorf("%w: %s for %s %s", err, reason, ev.InvolvedObject.Kind, ev.InvolvedObject.Name)
	}
	if !d.patch {
		ev.Name = ev.InvolvedObject.Name + "." + w.uniqueSuffix(now)
	}
	select {
	case shard <- item{ev: ev, patch: d.patch}:
	default:
		w.drop(dropBufferFull)
		return fmt.Errorf("%w: %s for %s %s", ErrBufferFull, reason, ev.InvolvedObject.Kind, ev.InvolvedObject.Name)
	}
	w.corr.commit(d, ev)
	return nil
}

// uniqueSuffix returns the hex of now in nanoseconds, bumped past the
// last one given so that names never repeat and sort in recording order,
// as Kubernetes names Events; w.mu is held.
func (w *Writer) uniqueSuffix(now time.Time) string {
	n := max(now.UnixNano(), w.lastName+1)
	w.lastName = n
	return fmt.Sprintf("%x", n)
}

// makeEvent checks the input and builds a new Event (count 1).
func (w *Writer) makeEvent(src core.EventSource, obj meta.Object, eventType, reason, message string) (*core.Event, error) {
	ref, err := w.reference(obj)
	if err != nil {
		return nil, err
	}
	switch {
	case eventType != core.EventTypeNormal && eventType != core.EventTypeWarning:
		return nil, fmt.Errorf("%w: type %q (want Normal or Warning)", ErrInvalidEvent, eventType)
	case reason == "":
		return nil, fmt.Errorf("%w: empty reason", ErrInvalidEvent)
	case len(reason) > MaxReasonLength:
		return nil, fmt.Errorf("%w: reason is %d bytes (at most %d)", ErrInvalidEvent, len(reason), MaxReasonLength)
	}
	ns := ref.Namespace
	if ns == "" {
		ns = core.NamespaceDefault // Events about cluster-scoped objects
	}
	now := meta.NewTime(w.opts.Now())
	return &core.Event{
		ObjectMeta:     meta.ObjectMeta{Namespace: ns},
		InvolvedObject: ref, Type: eventType, Reason: reason, Message: truncateMessage(message),
		Source: src, FirstTimestamp: now, LastTimestamp: now, Count: 1,
		ReportingController: src.Component, ReportingInstance: src.Host,
	}, nil
}

// reference returns the involvedObject of an Event about obj. Objects
// without kind and apiVersion (as informers hand them out) get them from
// the client's scheme.
func (w *Writer) reference(obj meta.Object) (core.ObjectReference, error) {
	o, fieldPath := unwrap(obj)
	if o == nil || reflect.ValueOf(o).Kind() == reflect.Pointer && reflect.ValueOf(o).IsNil() {
		return core.ObjectReference{}, fmt.Errorf("%w: nil object", ErrInvalidObject)
	}
	tm, om := o.GetTypeMeta(), o.GetObjectMeta()
	kind, apiVersion := tm.Kind, tm.APIVersion
	if kind == "" || apiVersion == "" {
		gvk, ok := w.kindOf(o)
		if !ok {
			return core.ObjectReference{}, fmt.Errorf("%w: %T has no kind and is not in the client's scheme", ErrInvalidObject, o)
		}
		kind, apiVersion = gvk.Kind, gvk.GroupVersion().String()
	}
	if om.Name == "" {
		return core.ObjectReference{}, fmt.Errorf("%w: %s has no name", ErrInvalidObject, kind)
	}
	return core.ObjectReference{Kind: kind, APIVersion: apiVersion, Namespace: om.Namespace, Name: om.Name,
		UID: om.UID, ResourceVersion: om.ResourceVersion, FieldPath: fieldPath}, nil
}

// kindOf finds the kind of o's Go type in the client's scheme.
func (w *Writer) kindOf(o meta.Object) (meta.GroupVersionKind, bool) {
	rt := reflect.TypeOf(o)
	if v, ok := w.kinds.Load(rt); ok {
		return v.(meta.GroupVersionKind), true
	}
	for _, t := range w.c.Scheme().Types() {
		if reflect.TypeOf(t.New()) == rt {
			w.kinds.Store(rt, t.Kind)
			return t.Kind, true
		}
	}
	return meta.GroupVersionKind{}, false
}

// truncateMessage cuts a message longer than MaxMessageLength at a rune
// boundary and marks the cut with "...".
func truncateMessage(m string) string {
	if len(m) <= MaxMessageLength {
		return m
	}
	cut := MaxMessageLength - 3
	for cut > 0 && !utf8.RuneStart(m[cut]) {
		cut--
	}
	return m[:cut] + "..."
}

// shardOf picks the worker of an involved object, so an object's Events
// are written in the order they were recorded.
func shardOf(ref *core.ObjectReference, n int) int {
	h := fnv.New32a()
	_, _ = h.Write([]byte(ref.Namespace))
	_, _ = h.Write([]byte{0})
	_, _ = h.Write([]byte(ref.Name))
	return int(h.Sum32() % uint32(n))
}

// Run writes queued Events on Config.Workers goroutines until ctx ends,
// then flushes what is queued within FlushTimeout and returns nil. A
// second Run returns ErrStopped at once.
func (w *Writer) Run(ctx context.Context) error {
	if !w.started.CompareAndSwap(false, true) {
		return fmt.Errorf("%w: a Writer runs once", ErrStopped)
	}
	// Writes outlive ctx by at most FlushTimeout, so that the flush
	// finishes what is in flight.
	wctx, cancelWrites := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelWrites()
	var wg sync.WaitGroup
	for _, ch := range w.shards {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.work(ctx, wctx, ch)
		}()
	}
	<-ctx.Done()
	w.mu.Lock()
	w.stopped = true
	w.mu.Unlock()
	t := time.AfterFunc(w.opts.FlushTimeout, cancelWrites)
	defer t.Stop()
	wg.Wait()
	for _, ch := range w.shards { // what was queued while the workers drained
		w.drain(wctx, ch)
	}
	return nil
}

// work writes one shard's Events until ctx ends, then drains the shard.
func (w *Writer) work(ctx, wctx context.Context, ch chan item) {
	for {
		select {
		case it := <-ch:
			w.write(wctx, it)
		case <-ctx.Done():
			w.drain(wctx, ch)
			return
		}
	}
}

// drain writes what ch holds until it is empty; once wctx has ended (the
// flush deadline) the rest is dropped.
func (w *Writer) drain(wctx context.Context, ch chan item) {
	for {
		select {
		case it := <-ch:
			if wctx.Err() != nil {
				w.drop(dropShutdown)
				continue
			}
			w.write(wctx, it)
		default:
			return
		}
	}
}

// write sends one item, retrying errors that may pass, and counts the
// outcome.
func (w *Writer) write(ctx context.Context, it item) {
	delay := 100 * time.Millisecond
	var err error
	for attempt := 1; ; attempt++ {
		var patched bool
		if patched, err = w.send(ctx, it); err == nil {
			if patched {
				w.patched.Add(1)
				w.metrics.sent.WithLabelValues("patch").Inc()
			} else {
				w.created.Add(1)
				w.metrics.sent.WithLabelValues("create").Inc()
			}
			return
		}
		if attempt >= w.opts.Retries || !retryable(err) || ctx.Err() != nil {
			break
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
		case <-t.C:
		}
		delay *= 2
	}
	w.failed.Add(1)
	w.metrics.failed.Inc()
	w.opts.Logger.Debug("event not written", "event", it.ev.Namespace+"/"+it.ev.Name, "reason", it.ev.Reason, "err", err)
}

// send creates the Event, or patches the repeat of one (creating it when
// the server no longer has it). It reports whether it patched.
func (w *Writer) send(ctx context.Context, it item) (bool, error) {
	events := client.For[core.Event](w.c, it.ev.Namespace)
	if it.patch {
		body, err := json.Marshal(map[string]any{"count": it.ev.Count, "lastTimestamp": it.ev.LastTimestamp, "message": it.ev.Message})
		if err != nil {
			return true, err
		}
		_, err = events.Patch(ctx, it.ev.Name, client.MergePatchType, body)
		if !apierrors.IsNotFound(err) {
			return true, err
		}
		// Gone (expired, deleted, or its create failed): create it.
	}
	_, err := events.Create(ctx, it.ev)
	if apierrors.IsAlreadyExists(err) {
		err = nil // a retried create that had reached the server
	}
	return false, err
}

// retryable reports whether a failed write may succeed if tried again.
func retryable(err error) bool {
	switch {
	case apierrors.IsInvalid(err), apierrors.IsForbidden(err), apierrors.IsNotFound(err), apierrors.IsUnauthorized(err), apierrors.IsBadRequest(err),
		errors.Is(err, client.ErrRequest), errors.Is(err, client.ErrNotRegistered), errors.Is(err, context.Canceled):
		return false
	}
	return true
}
