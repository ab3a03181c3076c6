package apiserver

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/fields"
	"github.com/orkit/orkit/api/labels"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/store/bbolt"
)

// startCache runs the watch cache of resource (a core/v1 kind) over a
// fresh store.
func startCache(t *testing.T, resource string, fieldsF FieldsFunc) (*Storage, *WatchCache, *bbolt.Store) {
	t.Helper()
	st, err := bbolt.Open(t.TempDir()+"/store.db", nil)
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	typ, ok := api.NewScheme().ByResource(coreGVR(resource))
	require.True(t, ok)
	s := NewStorage(typ, st)
	c := NewWatchCache(s, fieldsF, 0, slog.New(slog.NewTextHandler(io.Discard, nil)))
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go c.Run(ctx)
	select {
	case <-c.Synced():
	case <-time.After(10 * time.Second):
		t.Fatal("cache did not sync")
	}
	return s, c, st
}

// cached waits until the cache holds ns/name at revision rv or later.
func cached(t *testing.T, c *WatchCache, ns, name string, rv int64) *cachedObject {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if o, ok := c.Get(ns, name); ok && o.rv >= rv {
			return o
		}
		require.True(t, time.Now().Before(deadline), "%s/%s never reached the cache", ns, name)
		time.Sleep(5 * time.Millisecond) // polling, not synchronisation
	}
}

func TestWatchCacheDecodesMetadataOnlyKindsLazily(t *testing.T) {
	s, c, _ := startCache(t, "configmaps", nil)
	in := &core.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "a", Namespace: "ns", Labels: map[string]string{"app": "x"}},
		Data: map[string]string{"k": "v"}}
	out, err := s.Create(context.Background(), in)
	require.NoError(t, err)
	o := cached(t, c, "ns", "a", parseRV(out.GetObjectMeta().ResourceVersion))
	assert.Nil(t, o.decoded, "nothing has read the object yet")
	assert.Equal(t, "x", o.labels["app"])
	assert.Equal(t, "a", o.fields.Get("metadata.name"))
	assert.Equal(t, "ns", o.fields.Get("metadata.namespace"))
	assert.True(t, o.initialized)
	assert.True(t, Filter{}.matches(o))

	var wg sync.WaitGroup
	objs := make([]meta.Object, 8)
	for i := range objs {
		wg.Add(1)
		go func() { defer wg.Done(); objs[i] = o.object() }()
	}
	wg.Wait()
	for _, obj := range objs {
		assert.Same(t, objs[0], obj, "decoded once, shared")
	}
	want, err := s.Get(context.Background(), "ns", "a")
	require.NoError(t, err)
	assert.Equal(t, want, objs[0], "the same object a store read decodes")
}

func TestWatchCacheDecodesKindsWithFields(t *testing.T) {
	for _, tc := range []struct {
		name     string
		fromJSON FieldsFromJSONFunc
		lazy     bool
	}{{"fields read from the JSON", podFieldsJSON, true}, {"fields from the object", nil, false}} {
		t.Run(tc.name, func(t *testing.T) {
			s, c, _ := startCache(t, "pods", podFields)
			c.fieldsJSON = tc.fromJSON
			c.IndexBy("spec.nodeName") // the cache is empty: nothing to index yet
			in := &core.Pod{ObjectMeta: meta.ObjectMeta{Name: "p", Namespace: "ns", Labels: map[string]string{"app": "a"}},
				Spec: core.PodSpec{NodeName: "n1", Containers: []core.Container{{Name: "c", Image: "i"}}}}
			out, err := s.Create(context.Background(), in)
			require.NoError(t, err)
			o := cached(t, c, "ns", "p", parseRV(out.GetObjectMeta().ResourceVersion))
			assert.Equal(t, tc.lazy, o.decoded == nil)
			assert.Equal(t, "n1", o.fields.Get("spec.nodeName"))
			assert.Equal(t, podFields(o.object()), without(o.fields.set(), "metadata.name", "metadata.namespace"))
			assert.Equal(t, "a", o.labels["app"])
			want, err := s.Get(context.Background(), "ns", "p")
			require.NoError(t, err)
			assert.Equal(t, []meta.Object{want}, c.ByIndex("n1"), "decoded on first read")
			assert.Equal(t, want, o.object())
			var seen []meta.Object
			c.Objects(func(obj meta.Object) { seen = append(seen, obj) })
			assert.Equal(t, []meta.Object{want}, seen)
		})
	}
}

func without(fs fields.Set, keys ...string) fields.Set {
	out := fields.Set{}
	for k, v := range fs {
		out[k] = v
	}
	for _, k := range keys {
		delete(out, k)
	}
	return out
}

func TestPodFieldsJSONAgrees(t *testing.T) {
	pods := []*core.Pod{
		{},
		{ObjectMeta: meta.ObjectMeta{Name: "a", Namespace: "ns", Labels: map[string]string{"x": "y"},
			Initializers: &meta.Initializers{Pending: []meta.Initializer{{Name: "i"}}}},
			Spec:   core.PodSpec{NodeName: "n", RestartPolicy: core.RestartPolicyNever, SchedulerName: "s", ServiceAccountName: "sa"},
			Status: core.PodStatus{Phase: core.PodRunning, PodIP: "10.244.0.5", NominatedNodeName: "m"}},
	}
	for i, pod := range pods {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			b, err := json.Marshal(pod)
			require.NoError(t, err)
			m, fs, err := podFieldsJSON(b)
			require.NoError(t, err)
			assert.Equal(t, podFields(pod), fs)
			assert.Equal(t, pod.ObjectMeta, *m)
		})
	}
	_, _, err := podFieldsJSON([]byte(`{"metadata":{}`))
	assert.Error(t, err, "not valid JSON")
}
func TestWatchCacheKeepsPartlyDecodableObjects(t *testing.T) {
	s, c, st := startCache(t, "configmaps", nil)
	// A value another version could have written: metadata fine, data of
	// another type.
	rev, err := st.Create(context.Background(), s.Key("ns", "odd"),
		[]byte(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"odd","namespace":"ns"},"data":5}`))
	require.NoError(t, err)
	o := cached(t, c, "ns", "odd", rev)
	assert.JSONEq(t, `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"odd","namespace":"ns","resourceVersion":"`+
		strconv.FormatInt(rev, 10)+`"},"data":5}`, string(o.raw), "sent as stored")
	obj := o.object()
	require.NotNil(t, obj)
	assert.Equal(t, "odd", obj.GetObjectMeta().Name, "decoded as far as it goes")
	assert.Equal(t, strconv.FormatInt(rev, 10), obj.GetObjectMeta().ResourceVersion)

	_, err = st.Create(context.Background(), s.Key("ns", "broken"), []byte(`{"kind":"ConfigMap","metadata":{"name":7}}`))
	require.NoError(t, err)
	_, err = s.Create(context.Background(), &core.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "after", Namespace: "ns"}})
	require.NoError(t, err)
	cached(t, c, "ns", "after", 0)
	_, ok := c.Get("ns", "broken")
	assert.False(t, ok, "undecodable metadata: not cached, as before")
}

func TestWatchCacheTakesPrimedWrites(t *testing.T) {
	ctx := context.Background()
	s, c, st := startCache(t, "pods", podFields)
	var decodes atomic.Int64 // values the cache had to decode
	c.fieldsJSON = func(b []byte) (*meta.ObjectMeta, fields.Set, error) {
		decodes.Add(1)
		return podFieldsJSON(b)
	}
	s.prime = c.prime
	pod := func(name, node string, lbls map[string]string) *core.Pod {
		return &core.Pod{ObjectMeta: meta.ObjectMeta{Name: name, Namespace: "ns", Labels: lbls},
			Spec: core.PodSpec{NodeName: node, Containers: []core.Container{{Name: "c", Image: "i"}}}}
	}
	check := func(t *testing.T, name string, rv int64) {
		t.Helper()
		o := cached(t, c, "ns", name, rv)
		want, err := s.Get(ctx, "ns", name)
		require.NoError(t, err)
		wm := want.GetObjectMeta()
		assert.Equal(t, labels.Set(wm.Labels).String(), o.labels.String())
		wantFields := podFields(want)
		wantFields["metadata.name"], wantFields["metadata.namespace"] = wm.Name, wm.Namespace
		assert.Equal(t, wantFields, o.fields.set())
		assert.Equal(t, wm.IsInitialized(), o.initialized)
		assert.Equal(t, want, o.object())
	}

	t.Run("create and update", func(t *testing.T) {
		out, err := s.Create(ctx, pod("a", "n1", map[string]string{"app": "x"}))
		require.NoError(t, err)
		check(t, "a", parseRV(out.GetObjectMeta().ResourceVersion))
		out, err = s.GuaranteedUpdate(ctx, "ns", "a", true, func(cur meta.Object) (meta.Object, error) {
			p := cur.(*core.Pod)
			p.Spec.NodeName, p.Labels = "n2", nil
			return p, nil
		})
		require.NoError(t, err)
		check(t, "a", parseRV(out.GetObjectMeta().ResourceVersion))
		assert.Zero(t, decodes.Load(), "both writes were primed")
	})
	t.Run("failed write leaves nothing primed", func(t *testing.T) {
		_, err := s.Create(ctx, pod("a", "n9", nil))
		require.Error(t, err, "already exists")
		c.primed.mu.Lock()
		assert.Empty(t, c.primed.writes)
		c.primed.mu.Unlock()
	})
	t.Run("bad UTF-8 is decoded, not primed", func(t *testing.T) {
		out, err := s.Create(ctx, pod("b", "n\xff", map[string]string{"k": "v\xfe"}))
		require.NoError(t, err)
		check(t, "b", parseRV(out.GetObjectMeta().ResourceVersion))
		o, _ := c.Get("ns", "b")
		assert.Equal(t, "n\uFFFD", o.fields.Get("spec.nodeName"), "what the stored JSON says")
		assert.Equal(t, int64(1), decodes.Load())
	})
	t.Run("other bytes under a primed key are decoded", func(t *testing.T) {
		undo := c.prime(s.Key("ns", "c"), []byte(`{"kind":"Pod"}`), pod("c", "primed-node", nil))
		defer undo()
		b, err := s.Encode(pod("c", "stored-node", nil))
		require.NoError(t, err)
		rev, err := st.Create(ctx, s.Key("ns", "c"), b)
		require.NoError(t, err)
		o := cached(t, c, "ns", "c", rev)
		assert.Equal(t, "stored-node", o.fields.Get("spec.nodeName"))
		c.primed.mu.Lock()
		assert.Empty(t, c.primed.writes, "the event took the entry")
		c.primed.mu.Unlock()
	})
}

// TestWatchCacheRefusesWatchersOnceStopped: after Run returns nothing feeds
// the cache, so a watcher registered then would wait forever; it is
// refused, and the watchers it had are ended.
func TestWatchCacheRefusesWatchersOnceStopped(t *testing.T) {
	st, err := bbolt.Open(t.TempDir()+"/store.db", nil)
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	typ, ok := api.NewScheme().ByResource(coreGVR("configmaps"))
	require.True(t, ok)
	c := NewWatchCache(NewStorage(typ, st), nil, 0, slog.New(slog.NewTextHandler(io.Discard, nil)))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { c.Run(ctx); close(done) }()
	<-c.Synced()
	_, before, err := c.Watch("", Filter{}, 0, false, 0)
	require.NoError(t, err)

	cancel()
	<-done
	select {
	case <-before.done:
	default:
		t.Fatal("a watcher outlived the cache")
	}
	for _, opts := range []WatchOptions{{Start: StartNow}, {Start: StartWithState}, {Start: StartAfter, ResourceVersion: c.Revision()}} {
		_, w, err := c.WatchWith("", Filter{}, opts)
		require.ErrorIs(t, err, ErrCacheStopped, "start %d", opts.Start)
		assert.Nil(t, w)
	}
}

// The history ring starts small and grows to the history size, keeping
// events in order; beyond it the oldest are dropped and resuming from
// them expires.
func TestWatchCacheHistoryRingGrows(t *testing.T) {
	c := NewWatchCache(nil, nil, 100, slog.New(slog.NewTextHandler(io.Discard, nil)))
	assert.Len(t, c.events, initialHistory)
	ring := func() (rvs []int64) {
		for i := range c.count {
			rvs = append(rvs, c.events[(c.start+i)%len(c.events)].rv)
		}
		return rvs
	}
	for rv := int64(1); rv <= 250; rv++ {
		c.push(cacheEvent{typ: meta.Added, rv: rv})
		if rv == 70 {
			assert.Len(t, c.events, 100, "doubled, capped at the history size")
			assert.Equal(t, int64(1), ring()[0])
			assert.Equal(t, int64(70), ring()[69])
		}
	}
	assert.Len(t, c.events, 100)
	rvs := ring()
	require.Len(t, rvs, 100)
	for i, rv := range rvs {
		assert.Equal(t, int64(151+i), rv)
	}
	assert.Equal(t, int64(150), c.oldest)
}
