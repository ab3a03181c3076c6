package record_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/client/record"
)

// fakeClock is a settable clock for Config.Now.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func testPod(name string) *core.Pod {
	return &core.Pod{ObjectMeta: meta.ObjectMeta{Name: name, Namespace: "default", UID: meta.UID("uid-" + name), ResourceVersion: "7"}}
}

// run starts w and returns a function that stops it and waits for Run.
func run(t *testing.T, w *record.Writer) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			require.NoError(t, <-done)
		})
	}
	t.Cleanup(stop)
	return stop
}

// waitOps polls until the fake API has n writes.
func waitOps(t *testing.T, f *fakeAPI, n int) []string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if ops := f.written(); len(ops) >= n {
			return ops
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("want %d writes, have %v", n, f.written())
	return nil
}

// waitStats polls until w's Stats equal want (the fake server records a
// write before the Writer counts its answer), then asserts them.
func waitStats(t *testing.T, w *record.Writer, want record.Stats, msgAndArgs ...any) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); w.Stats() != want && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	assert.Equal(t, want, w.Stats(), msgAndArgs...)
}

func TestCorrelation(t *testing.T) {
	type rec struct {
		advance time.Duration
		src     string // host of the source; "" is the Writer's own
		pod     string
		field   string
		typ     string
		reason  string
		msg     string
	}
	web := func(msg string) rec { return rec{pod: "web", typ: core.EventTypeNormal, reason: "Pulled", msg: msg} }
	for _, tc := range []struct {
		name string
		recs []rec
		want []string // create/patch and count, in order; names as e<i> of the created
	}{
		{"repeat patches the first", []rec{web("a"), web("a"), web("a")}, []string{"create e0 1", "patch e0 2", "patch e0 3"}},
		{"another message is another event", []rec{web("a"), web("b"), web("a")}, []string{"create e0 1", "create e1 1", "patch e0 2"}},
		{"another field path is another event", []rec{web("a"), {pod: "web", field: "spec.containers{x}", typ: "Normal", reason: "Pulled", msg: "a"}},
			[]string{"create e0 1", "create e1 1"}},
		{"another type is another event", []rec{web("a"), {pod: "web", typ: "Warning", reason: "Pulled", msg: "a"}},
			[]string{"create e0 1", "create e1 1"}},
		{"another reason is another event", []rec{web("a"), {pod: "web", typ: "Normal", reason: "Pulling", msg: "a"}},
			[]string{"create e0 1", "create e1 1"}},
		{"another source is another event", []rec{web("a"), {pod: "web", src: "node-2", typ: "Normal", reason: "Pulled", msg: "a"}},
			[]string{"create e0 1", "create e1 1"}},
		{"another object is another event", []rec{web("a"), {pod: "db", typ: "Normal", reason: "Pulled", msg: "a"}},
			[]string{"create e0 1", "create e1 1"}},
		{"after the window a new event", []rec{web("a"), {advance: time.Minute, pod: "web", typ: "Normal", reason: "Pulled", msg: "a"},
			{advance: 2 * time.Minute, pod: "web", typ: "Normal", reason: "Pulled", msg: "a"}},
			[]string{"create e0 1", "patch e0 2", "create e1 1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, c := newFakeAPI(t)
			clk := newFakeClock()
			w, err := record.New(c, record.Config{Source: core.EventSource{Component: "kubelet", Host: "node-1"},
				Window: 90 * time.Second, Workers: 1, Now: clk.Now})
			require.NoError(t, err)
			run(t, w)
			for i, r := range tc.recs {
				clk.Add(r.advance)
				var obj meta.Object = testPod(r.pod)
				if r.field != "" {
					obj = record.WithFieldPath(obj, r.field)
				}
				rc := record.Recorder(w)
				if r.src != "" {
					rc = w.WithSource(core.EventSource{Component: "kubelet", Host: r.src})
				}
				rc.Event(obj, r.typ, r.reason, r.msg)
				waitOps(t, f, i+1) // one at a time, so names map in order
			}
			ops := waitOps(t, f, len(tc.want))
			names := map[string]string{}
			for i, op := range ops {
				fields := strings.Fields(op)
				if _, ok := names[fields[1]]; !ok {
					names[fields[1]] = fmt.Sprintf("e%d", len(names))
				}
				ops[i] = fields[0] + " " + names[fields[1]] + " " + fields[2]
			}
			assert.Equal(t, tc.want, ops)
			waitStats(t, w, record.Stats{Created: int64(strings.Count(strings.Join(tc.want, ","), "create")),
				Patched: int64(strings.Count(strings.Join(tc.want, ","), "patch"))})
		})
	}
}

func TestRepeatKeepsFirstTimestampAndName(t *testing.T) {
	f, c := newFakeAPI(t)
	clk := newFakeClock()
	w, err := record.New(c, record.Config{Source: core.EventSource{Component: "kubelet", Host: "node-1"}, Now: clk.Now})
	require.NoError(t, err)
	run(t, w)
	pod := testPod("web")
	obj := record.WithFieldPath(pod, record.ContainerFieldPath("app", false))
	w.Event(obj, core.EventTypeWarning, "BackOff", "Back-off restarting failed container app")
	first := clk.Now()
	clk.Add(30 * time.Second)
	w.Event(obj, core.EventTypeWarning, "BackOff", "Back-off restarting failed container app")
	ops := waitOps(t, f, 2)
	name := strings.Fields(ops[0])[1]
	assert.True(t, strings.HasPrefix(name, "web."), name)
	ev := f.get("default", name)
	require.NotNil(t, ev)
	assert.Equal(t, int32(2), ev.Count)
	assert.Equal(t, first.Unix(), ev.FirstTimestamp.Unix())
	assert.Equal(t, clk.Now().Unix(), ev.LastTimestamp.Unix())
	assert.Equal(t, core.ObjectReference{Kind: "Pod", APIVersion: "v1", Namespace: "default", Name: "web", UID: "uid-web",
		ResourceVersion: "7", FieldPath: "spec.containers{app}"}, ev.InvolvedObject)
	assert.Equal(t, core.EventSource{Component: "kubelet", Host: "node-1"}, ev.Source)
	assert.Equal(t, "kubelet", ev.ReportingController)
	assert.Equal(t, "node-1", ev.ReportingInstance)

	// The server lost it (TTL): the next repeat creates it again, counted.
	f.remove("default", name)
	w.Event(obj, core.EventTypeWarning, "BackOff", "Back-off restarting failed container app")
	waitOps(t, f, 3)
	ev = f.get("default", name)
	require.NotNil(t, ev)
	assert.Equal(t, int32(3), ev.Count)
	assert.Equal(t, first.Unix(), ev.FirstTimestamp.Unix())
}

func TestDropWhenFull(t *testing.T) {
	f, c := newFakeAPI(t)
	w, err := record.New(c, record.Config{Source: core.EventSource{Component: "test"}, Buffer: 3, Workers: 1})
	require.NoError(t, err)
	// Not running yet: the buffer fills and the rest is dropped at once.
	var errs []error
	for i := range 5 {
		errs = append(errs, w.Record(testPod(fmt.Sprintf("p%d", i)), core.EventTypeNormal, "Created", "x"))
	}
	for i, err := range errs {
		if i < 3 {
			assert.NoError(t, err, "event %d", i)
		} else {
			assert.ErrorIs(t, err, record.ErrBufferFull, "event %d", i)
		}
	}
	assert.Equal(t, int64(2), w.Stats().Dropped)
	assert.Equal(t, 2.0, value(t, w, "events_recorder_dropped_total", "buffer_full"))
	run(t, w)
	waitOps(t, f, 3)
	// A dropped first Event is not remembered: its next occurrence is new.
	require.NoError(t, w.Record(testPod("p4"), core.EventTypeNormal, "Created", "x"))
	ops := waitOps(t, f, 4)
	assert.Contains(t, ops[3], "create p4.")
}

func TestDropWhenFullNeverBlocks(t *testing.T) {
	f, c := newFakeAPI(t)
	f.gate = make(chan struct{}) // every write hangs until the test ends
	t.Cleanup(func() { close(f.gate) })
	w, err := record.New(c, record.Config{Source: core.EventSource{Component: "test"}, Buffer: 2, Workers: 2,
		FlushTimeout: 50 * time.Millisecond})
	require.NoError(t, err)
	run(t, w)
	dropped := 0
	for i := range 200 {
		if errors.Is(w.Record(testPod(fmt.Sprintf("p%d", i)), core.EventTypeNormal, "Created", "x"), record.ErrBufferFull) {
			dropped++
		}
	}
	// Two workers hold one write each, two wait in the buffer.
	assert.GreaterOrEqual(t, dropped, 196)
	assert.Equal(t, int64(dropped), w.Stats().Dropped)
}

func TestRateLimit(t *testing.T) {
	f, c := newFakeAPI(t)
	clk := newFakeClock()
	w, err := record.New(c, record.Config{Source: core.EventSource{Component: "kubelet", Host: "n1"}, QPS: 1, Burst: 3, Now: clk.Now})
	require.NoError(t, err)
	other := w.WithSource(core.EventSource{Component: "kubelet", Host: "n2"})
	web, db := testPod("web"), testPod("db")
	for _, tc := range []struct {
		name    string
		advance time.Duration
		rec     func() error
		want    error
	}{
		{"burst 1", 0, func() error { return w.Record(web, "Normal", "A", "1") }, nil},
		{"burst 2", 0, func() error { return w.Record(web, "Normal", "A", "2") }, nil},
		{"burst 3 (a repeat costs a token too)", 0, func() error { return w.Record(web, "Normal", "A", "2") }, nil},
		{"bucket empty", 0, func() error { return w.Record(record.WithFieldPath(web, "spec.containers{a}"), "Normal", "A", "3") }, record.ErrRateLimited},
		{"another object has its own bucket", 0, func() error { return w.Record(db, "Normal", "A", "1") }, nil},
		{"half a second refills nothing", 500 * time.Millisecond, func() error { return w.Record(web, "Normal", "A", "4") }, record.ErrRateLimited},
		{"a second refills one token", 500 * time.Millisecond, func() error { return w.Record(web, "Normal", "A", "5") }, nil},
		{"and only one", 0, func() error { return w.Record(web, "Normal", "A", "6") }, record.ErrRateLimited},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk.Add(tc.advance)
			err := tc.rec()
			if tc.want == nil {
				assert.NoError(t, err)
			} else {
				assert.ErrorIs(t, err, tc.want)
			}
		})
	}
	// Another source has its own buckets for the same object.
	for i := range 3 {
		other.Event(web, "Normal", "A", fmt.Sprint(i))
	}
	assert.Equal(t, int64(3), w.Stats().Dropped)
	run(t, w)
	waitOps(t, f, 8)
	assert.Equal(t, 3.0, value(t, w, "events_recorder_dropped_total", "rate_limited"))

	t.Run("negative QPS disables the limit", func(t *testing.T) {
		_, c := newFakeAPI(t)
		w, err := record.New(c, record.Config{Source: core.EventSource{Component: "x"}, QPS: -1, Burst: 1, Buffer: 100})
		require.NoError(t, err)
		for i := range 50 {
			require.NoError(t, w.Record(web, "Normal", "A", fmt.Sprint(i)))
		}
	})
}

// unknownKind is an object the client's scheme does not know.
type unknownKind struct {
	meta.TypeMeta
	meta.ObjectMeta
}

func TestInvalidInput(t *testing.T) {
	f, c := newFakeAPI(t)
	w, err := record.New(c, record.Config{Source: core.EventSource{Component: "test"}})
	require.NoError(t, err)
	var nilPod *core.Pod
	for _, tc := range []struct {
		name        string
		obj         meta.Object
		typ, reason string
		want        error
		wantMsg     string
	}{
		{"nil object", nil, "Normal", "R", record.ErrInvalidObject, "nil object"},
		{"typed nil object", nilPod, "Normal", "R", record.ErrInvalidObject, "nil object"},
		{"no name", &core.Pod{ObjectMeta: meta.ObjectMeta{Namespace: "default"}}, "Normal", "R", record.ErrInvalidObject, "Pod has no name"},
		{"no kind, not in the scheme", &unknownKind{ObjectMeta: meta.ObjectMeta{Name: "x"}}, "Normal", "R", record.ErrInvalidObject, "has no kind"},
		{"field path of nothing", record.WithFieldPath(nil, "spec"), "Normal", "R", record.ErrInvalidObject, "nil object"},
		{"unknown type", testPod("web"), "Info", "R", record.ErrInvalidEvent, `type "Info"`},
		{"empty reason", testPod("web"), "Normal", "", record.ErrInvalidEvent, "empty reason"},
		{"oversized reason", testPod("web"), "Normal", strings.Repeat("R", 129), record.ErrInvalidEvent, "129 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := w.Record(tc.obj, tc.typ, tc.reason, "m")
			require.ErrorIs(t, err, tc.want)
			assert.Contains(t, err.Error(), tc.wantMsg)
		})
	}
	assert.Equal(t, int64(8), w.Stats().Dropped)
	assert.Equal(t, 8.0, value(t, w, "events_recorder_dropped_total", "invalid"))

	// A kind set on the object is used as is, even outside the scheme.
	u := &unknownKind{TypeMeta: meta.TypeMeta{Kind: "Widget", APIVersion: "example.com/v1"}, ObjectMeta: meta.ObjectMeta{Name: "w1"}}
	require.NoError(t, w.Record(u, "Normal", "Made", "ok"))
	// An oversized message is cut, never refused.
	require.NoError(t, w.Record(testPod("web"), "Warning", "Failed", strings.Repeat("é", 2000)))
	run(t, w)
	waitOps(t, f, 2)
	var widget, web *core.Event
	for _, ev := range f.all() {
		switch ev.InvolvedObject.Name {
		case "w1":
			widget = &ev
		case "web":
			web = &ev
		}
	}
	require.NotNil(t, widget)
	require.NotNil(t, web)
	assert.Equal(t, "default", widget.Namespace, "events about cluster-scoped objects live in default")
	assert.Equal(t, "Widget", widget.InvolvedObject.Kind)
	assert.Equal(t, "example.com/v1", widget.InvolvedObject.APIVersion)
	assert.LessOrEqual(t, len(web.Message), record.MaxMessageLength)
	assert.True(t, strings.HasSuffix(web.Message, "é..."), "cut at a rune boundary")
}

func TestKindsFromScheme(t *testing.T) {
	f, c := newFakeAPI(t)
	w, err := record.New(c, record.Config{Source: core.EventSource{Component: "deployment-controller"}})
	require.NoError(t, err)
	d := &apps.Deployment{ObjectMeta: meta.ObjectMeta{Name: "web", Namespace: "prod", UID: "u1"}}
	w.Eventf(d, core.EventTypeNormal, "ScalingReplicaSet", "Scaled up replica set %s from %d to %d", "web-1", 0, 3)
	run(t, w)
	ops := waitOps(t, f, 1)
	ev := f.get("prod", strings.Fields(ops[0])[1])
	require.NotNil(t, ev)
	assert.Equal(t, "Deployment", ev.InvolvedObject.Kind)
	assert.Equal(t, "apps/v1", ev.InvolvedObject.APIVersion)
	assert.Equal(t, "Scaled up replica set web-1 from 0 to 3", ev.Message)
}

func TestRetriesThenFails(t *testing.T) {
	f, c := newFakeAPI(t)
	f.fail = 2
	w, err := record.New(c, record.Config{Source: core.EventSource{Component: "test"}, Retries: 3})
	require.NoError(t, err)
	run(t, w)
	w.Event(testPod("a"), "Normal", "R", "m")
	waitStats(t, w, record.Stats{Created: 1}, "two 500s, then written")

	f.mu.Lock()
	f.fail = 3
	f.mu.Unlock()
	w.Event(testPod("b"), "Normal", "R", "m")
	deadline := time.Now().Add(10 * time.Second)
	for w.Stats().Failed == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	assert.Equal(t, record.Stats{Created: 1, Failed: 1}, w.Stats())
	assert.Equal(t, 1.0, value(t, w, "events_recorder_failed_total", ""))
}

func TestFlushOnShutdown(t *testing.T) {
	f, c := newFakeAPI(t)
	w, err := record.New(c, record.Config{Source: core.EventSource{Component: "test"}})
	require.NoError(t, err)
	stop := run(t, w)
	f.mu.Lock() // hold the server: the Events wait in the buffer
	for i := range 20 {
		w.Event(testPod(fmt.Sprintf("p%d", i)), "Normal", "R", "m")
	}
	f.mu.Unlock()
	stop()
	assert.Len(t, f.written(), 20, "everything queued was written before Run returned")
	assert.ErrorIs(t, w.Record(testPod("late"), "Normal", "R", "m"), record.ErrStopped)
	assert.ErrorIs(t, w.Run(context.Background()), record.ErrStopped, "a Writer runs once")
}

func TestFlushDeadline(t *testing.T) {
	f, c := newFakeAPI(t)
	f.gate = make(chan struct{}) // the server never answers
	t.Cleanup(func() { close(f.gate) })
	w, err := record.New(c, record.Config{Source: core.EventSource{Component: "test"}, Workers: 1, FlushTimeout: 100 * time.Millisecond})
	require.NoError(t, err)
	stop := run(t, w)
	for i := range 5 {
		w.Event(testPod(fmt.Sprintf("p%d", i)), "Normal", "R", "m")
	}
	stop() // returns once the deadline has passed
	st := w.Stats()
	assert.Equal(t, int64(5), st.Failed+st.Dropped, "%+v", st)
	assert.Zero(t, st.Created)
}

func TestNewRejectsBadOptions(t *testing.T) {
	_, c := newFakeAPI(t)
	_, err := record.New(c, record.Config{})
	assert.ErrorIs(t, err, record.ErrInvalidEvent)
	_, err = record.New(nil, record.Config{Source: core.EventSource{Component: "x"}})
	assert.ErrorIs(t, err, record.ErrInvalidObject)
}

func TestDiscardAndFake(t *testing.T) {
	var d record.Recorder = record.Discard{}
	d.Event(nil, "", "", "")
	d.Eventf(testPod("x"), "Normal", "R", "%d", 1)

	f := &record.Fake{}
	f.Eventf(record.WithFieldPath(testPod("web"), record.ContainerFieldPath("init", true)), "Normal", "Created", "Created container: %s", "init")
	f.Event(nil, "Warning", "Odd", "no object")
	require.Len(t, f.Events(), 2)
	assert.Equal(t, record.Recorded{Namespace: "default", Name: "web", UID: "uid-web", FieldPath: "spec.initContainers{init}",
		Type: "Normal", Reason: "Created", Message: "Created container: init"}, f.Events()[0])
	assert.Equal(t, []string{"Created", "Odd"}, f.Reasons())
	f.Reset()
	assert.Empty(t, f.Events())
}

// value returns the value of the one counter of w called name whose
// label value is label ("" for a series without labels).
func value(t *testing.T, w *record.Writer, name, label string) float64 {
	t.Helper()
	ch := make(chan prometheus.Metric, 64)
	(&seriesCollector{w: w, name: name, label: label}).Collect(ch)
	close(ch)
	require.Len(t, ch, 1, "series %s{%s}", name, label)
	var d dto.Metric
	require.NoError(t, (<-ch).Write(&d))
	return d.GetCounter().GetValue()
}

// FuzzRecord feeds arbitrary names, types, reasons and messages: Record
// either queues the Event or fails with one of the package's errors, and
// never panics.
func FuzzRecord(f *testing.F) {
	f.Add("web", "default", "Normal", "Pulled", "Container image \"x\" already present on machine", "spec.containers{web}")
	f.Add("", "", "Info", "", "", "")
	f.Add("a", "b", "Warning", strings.Repeat("x", 200), strings.Repeat("é", 700), "{")
	_, c := newFakeAPI(f)
	f.Fuzz(func(t *testing.T, name, ns, typ, reason, msg, field string) {
		w, err := record.New(c, record.Config{Source: core.EventSource{Component: "fuzz"}, Buffer: 4, Workers: 1})
		require.NoError(t, err)
		pod := &core.Pod{ObjectMeta: meta.ObjectMeta{Name: name, Namespace: ns}}
		err = w.Record(record.WithFieldPath(pod, field), typ, reason, msg)
		if err != nil && !errors.Is(err, record.ErrInvalidObject) && !errors.Is(err, record.ErrInvalidEvent) {
			t.Fatalf("unexpected error %v", err)
		}
	})
}

var _ = client.MergePatchType
