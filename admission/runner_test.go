package admission

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var configmaps = gvr("configmaps")

// memSource is an in-memory ObjectSource of ConfigMaps that behaves as
// the API server does for initializers: updates are preconditioned on
// resourceVersion, and an object whose initializers.result is a Failure
// is deleted.
type memSource struct {
	mu       sync.Mutex
	rv       uint64
	objs     map[string]*core.ConfigMap
	watchers map[chan ObjectEvent]bool
	updates  int
	// beforeUpdate runs (locked) before each update; a non-nil error is
	// returned instead of writing.
	beforeUpdate func(s *memSource, obj *core.ConfigMap) error
}

var _ ObjectSource = (*memSource)(nil)

func newMemSource() *memSource {
	return &memSource{objs: map[string]*core.ConfigMap{}, watchers: map[chan ObjectEvent]bool{}}
}

// store saves obj with a new resourceVersion and tells the watchers; the
// caller holds mu.
func (s *memSource) store(typ string, obj *core.ConfigMap) *core.ConfigMap {
	s.rv++
	c := meta.DeepCopy(obj)
	c.ResourceVersion = fmt.Sprint(s.rv)
	key := c.Namespace + "/" + c.Name
	if typ == meta.Deleted {
		delete(s.objs, key)
	} else {
		s.objs[key] = c
	}
	for ch := range s.watchers {
		ch <- ObjectEvent{Type: typ, Object: meta.DeepCopy(c)}
	}
	return meta.DeepCopy(c)
}

func (s *memSource) create(name string, pending ...string) {
	cm := &core.ConfigMap{ObjectMeta: meta.ObjectMeta{Namespace: "ns", Name: name, UID: meta.UID("uid-" + name)}}
	if len(pending) > 0 {
		cm.Initializers = &meta.Initializers{}
		for _, p := range pending {
			cm.Initializers.Pending = append(cm.Initializers.Pending, meta.Initializer{Name: p})
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.store(meta.Added, cm)
}

func (s *memSource) get(name string) (*core.ConfigMap, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cm, ok := s.objs["ns/"+name]
	return meta.DeepCopy(cm), ok
}

func (s *memSource) watcherCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.watchers)
}

// endWatches closes every open watch, as a server restart would.
func (s *memSource) endWatches() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for ch := range s.watchers {
		delete(s.watchers, ch)
		close(ch)
	}
}

func (s *memSource) Watch(ctx context.Context, res meta.GroupVersionResource, _ bool) (<-chan ObjectEvent, error) {
	if res != configmaps {
		return nil, fmt.Errorf("no resource %v", res)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := make(chan ObjectEvent, 1024)
	for _, o := range s.objs {
		ch <- ObjectEvent{Type: meta.Added, Object: meta.DeepCopy(o)}
	}
	s.watchers[ch] = true
	go func() {
		<-ctx.Done()
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.watchers[ch] {
			delete(s.watchers, ch)
			close(ch)
		}
	}()
	return ch, nil
}

func (s *memSource) Get(_ context.Context, _ meta.GroupVersionResource, ns, name string) (meta.Object, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cm, ok := s.objs[ns+"/"+name]
	if !ok {
		return nil, apierrors.NewNotFound(configmaps.GroupResource(), name)
	}
	return meta.DeepCopy(cm), nil
}

func (s *memSource) Update(_ context.Context, _ meta.GroupVersionResource, obj meta.Object) (meta.Object, error) {
	cm := obj.(*core.ConfigMap)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.beforeUpdate != nil {
		if err := s.beforeUpdate(s, cm); err != nil {
			return nil, err
		}
	}
	cur, ok := s.objs[cm.Namespace+"/"+cm.Name]
	if !ok {
		return nil, apierrors.NewNotFound(configmaps.GroupResource(), cm.Name)
	}
	if cur.ResourceVersion != cm.ResourceVersion {
		return nil, apierrors.NewConflict(configmaps.GroupResource(), cm.Name, errors.New("the object has been modified"))
	}
	s.updates++
	out := s.store(meta.Modified, cm)
	if r := out.Initializers; r != nil && r.Result != nil && r.Result.Status == meta.StatusFailure {
		s.store(meta.Deleted, out)
	}
	return out, nil
}

// recorder records initializer calls in order.
type recorder struct {
	mu    sync.Mutex
	calls []string
}

func (r *recorder) add(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, s)
}

func (r *recorder) list() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.calls...)
}

// labeler is an initializer that records its call and sets a label.
func labeler(name string, rec *recorder) Initializer {
	return InitializerFunc{InitializerName: name, Func: func(_ context.Context, obj meta.Object) error {
		m := obj.GetObjectMeta()
		rec.add(name + ":" + m.Name)
		if m.Labels == nil {
			m.Labels = map[string]string{}
		}
		m.Labels[name] = fmt.Sprint(len(m.Labels))
		return nil
	}}
}

// startRunner runs r until the test ends and checks that it stops.
func startRunner(t *testing.T, src *memSource, inits []Initializer, opts ...RunnerOption) {
	t.Helper()
	opts = append([]RunnerOption{WithRetryDelay(time.Millisecond)}, opts...)
	r, err := NewRunner(src, []meta.GroupVersionResource{configmaps}, inits, opts...)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			assert.NoError(t, err)
		case <-time.After(10 * time.Second):
			t.Error("Run did not return after cancel")
		}
	})
}

// waitFor polls cond until it holds or 10 seconds pass.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	require.Eventually(t, cond, 10*time.Second, time.Millisecond, what)
}

func initialized(src *memSource, name string) func() bool {
	return func() bool {
		cm, ok := src.get(name)
		return ok && cm.IsInitialized()
	}
}

func TestRunnerOrdering(t *testing.T) {
	src := newMemSource()
	rec := &recorder{}
	// Two runners, the second started first: it must wait for the first.
	startRunner(t, src, []Initializer{labeler("b.example.com", rec)})
	startRunner(t, src, []Initializer{labeler("a.example.com", rec)})
	src.create("one", "a.example.com", "b.example.com")
	src.create("two", "b.example.com", "a.example.com")
	waitFor(t, "both objects initialized", func() bool { return initialized(src, "one")() && initialized(src, "two")() })

	calls := rec.list()
	assert.Len(t, calls, 4)
	assert.Less(t, indexOf(calls, "a.example.com:one"), indexOf(calls, "b.example.com:one"))
	assert.Less(t, indexOf(calls, "b.example.com:two"), indexOf(calls, "a.example.com:two"))
	one, _ := src.get("one")
	assert.Equal(t, map[string]string{"a.example.com": "0", "b.example.com": "1"}, one.Labels,
		"the second initializer sees what the first did")
	assert.NotNil(t, one.Initializers, "the cleared list is sent as empty, not nil")
	assert.Empty(t, one.Initializers.Pending)
	assert.Nil(t, one.Initializers.Result)
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

func TestRunnerChainsItsOwnInitializers(t *testing.T) {
	src := newMemSource()
	rec := &recorder{}
	startRunner(t, src, []Initializer{labeler("a.example.com", rec), labeler("b.example.com", rec)})
	src.create("one", "b.example.com", "a.example.com")
	waitFor(t, "initialized", initialized(src, "one"))
	assert.Equal(t, []string{"b.example.com:one", "a.example.com:one"}, rec.list())
	src.mu.Lock()
	assert.Equal(t, 2, src.updates, "one update per initializer, no retries")
	src.mu.Unlock()
}

func TestRunnerLeavesOthersAlone(t *testing.T) {
	src := newMemSource()
	rec := &recorder{}
	startRunner(t, src, []Initializer{labeler("a.example.com", rec)}, WithWorkers(1))
	src.create("blocked", "other.example.com", "a.example.com")
	src.create("plain")
	src.create("mine", "a.example.com")
	waitFor(t, "mine initialized", initialized(src, "mine"))
	assert.Equal(t, []string{"a.example.com:mine"}, rec.list(), "one worker: the earlier objects were seen and left alone")
	blocked, _ := src.get("blocked")
	assert.Len(t, blocked.Initializers.Pending, 2)
}

func TestRunnerFailure(t *testing.T) {
	tests := []struct {
		name       string
		err        func() error
		wantCode   int32
		wantReason meta.StatusReason
		wantMsg    string
	}{
		{"plain error", func() error { return errors.New("no sidecar for this image") },
			http.StatusInternalServerError, meta.StatusReasonInternalError,
			"initializer a.example.com failed: no sidecar for this image"},
		{"status error", func() error {
			return apierrors.NewForbidden(configmaps.GroupResource(), "one", "sidecars are not allowed here")
		}, http.StatusForbidden, meta.StatusReasonForbidden,
			"initializer a.example.com failed: sidecars are not allowed here"},
		{"panic", func() error { panic("nil map") }, http.StatusInternalServerError, meta.StatusReasonInternalError,
			"initializer a.example.com failed: initializer panicked: nil map"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := newMemSource()
			var mu sync.Mutex
			var results []*meta.Status
			src.beforeUpdate = func(_ *memSource, cm *core.ConfigMap) error {
				mu.Lock()
				defer mu.Unlock()
				results = append(results, cm.Initializers.Result)
				return nil
			}
			rec := &recorder{}
			startRunner(t, src, []Initializer{
				InitializerFunc{InitializerName: "a.example.com", Func: func(context.Context, meta.Object) error { return tt.err() }},
				labeler("b.example.com", rec),
			})
			src.create("one", "a.example.com", "b.example.com")
			waitFor(t, "failed object deleted", func() bool { _, ok := src.get("one"); return !ok })
			mu.Lock()
			defer mu.Unlock()
			require.Len(t, results, 1)
			st := results[0]
			require.NotNil(t, st)
			assert.Equal(t, meta.StatusFailure, st.Status)
			assert.Equal(t, tt.wantCode, st.Code)
			assert.Equal(t, tt.wantReason, st.Reason)
			assert.Equal(t, tt.wantMsg, st.Message)
			assert.Empty(t, rec.list(), "a failed object goes no further")
		})
	}
}

func TestRunnerRetriesConflicts(t *testing.T) {
	src := newMemSource()
	conflicts := 0
	src.beforeUpdate = func(s *memSource, cm *core.ConfigMap) error {
		if conflicts < 2 {
			conflicts++
			cur := meta.DeepCopy(s.objs["ns/"+cm.Name])
			if cur.Labels == nil {
				cur.Labels = map[string]string{}
			}
			cur.Labels[fmt.Sprintf("writer-%d", conflicts)] = "x"
			s.store(meta.Modified, cur) // another writer got there first
		}
		return nil
	}
	rec := &recorder{}
	startRunner(t, src, []Initializer{labeler("a.example.com", rec)})
	src.create("one", "a.example.com")
	waitFor(t, "initialized", initialized(src, "one"))
	one, _ := src.get("one")
	assert.Equal(t, map[string]string{"writer-1": "x", "writer-2": "x", "a.example.com": "2"}, one.Labels,
		"the initializer ran again on the re-read object and nothing was lost")
	assert.Equal(t, []string{"a.example.com:one", "a.example.com:one", "a.example.com:one"}, rec.list())
}

func TestRunnerWatchesAgain(t *testing.T) {
	src := newMemSource()
	rec := &recorder{}
	startRunner(t, src, []Initializer{labeler("a.example.com", rec)})
	waitFor(t, "watching", func() bool { return src.watcherCount() == 1 })
	src.endWatches()
	src.create("late", "a.example.com")
	waitFor(t, "object created while the watch was down is initialized", initialized(src, "late"))
}

func TestRunnerStopsOnCancel(t *testing.T) {
	src := newMemSource()
	block := make(chan struct{})
	slow := InitializerFunc{InitializerName: "slow.example.com", Func: func(ctx context.Context, _ meta.Object) error {
		close(block)
		<-ctx.Done()
		return ctx.Err()
	}}
	r, err := NewRunner(src, []meta.GroupVersionResource{configmaps}, []Initializer{slow})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	src.create("one", "slow.example.com")
	<-block
	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
	waitFor(t, "watch closed", func() bool { return src.watcherCount() == 0 })
	one, ok := src.get("one")
	require.True(t, ok, "a cancelled initializer does not fail the object")
	assert.Nil(t, one.Initializers.Result)
}

func TestNewRunnerRefuses(t *testing.T) {
	src := newMemSource()
	a := labeler("a.example.com", &recorder{})
	res := []meta.GroupVersionResource{configmaps}
	tests := []struct {
		name  string
		src   ObjectSource
		res   []meta.GroupVersionResource
		inits []Initializer
		want  string
	}{
		{"no source", nil, res, []Initializer{a}, "a source, resources and initializers are required"},
		{"no resources", src, nil, []Initializer{a}, "a source, resources and initializers are required"},
		{"no initializers", src, res, nil, "a source, resources and initializers are required"},
		{"no name", src, res, []Initializer{InitializerFunc{}}, "an initializer has no name"},
		{"twice", src, res, []Initializer{a, a}, `initializer "a.example.com" given twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewRunner(tt.src, tt.res, tt.inits)
			require.ErrorIs(t, err, ErrInvalidRunner)
			assert.Equal(t, "admission: invalid initializer runner configuration: "+tt.want, err.Error())
		})
	}
}
