package informer

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

// scriptLW answers Lists and Watches from scripts and records the options.
type scriptLW struct {
	mu      sync.Mutex
	lists   []func() ([]*core.Pod, string, string, error)
	watches []func(ctx context.Context) (<-chan Event[*core.Pod], error)
	listOps []ListOptions
	watchOp []ListOptions
}

func (s *scriptLW) List(_ context.Context, o ListOptions) ([]*core.Pod, string, string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.listOps = append(s.listOps, o)
	if len(s.lists) == 0 {
		return nil, "", "", errors.New("script: no more lists")
	}
	f := s.lists[0]
	s.lists = s.lists[1:]
	return f()
}

func (s *scriptLW) Watch(ctx context.Context, o ListOptions) (<-chan Event[*core.Pod], error) {
	s.mu.Lock()
	s.watchOp = append(s.watchOp, o)
	if len(s.watches) == 0 {
		s.mu.Unlock()
		ch := make(chan Event[*core.Pod])
		go func() { <-ctx.Done(); close(ch) }()
		return ch, nil
	}
	f := s.watches[0]
	s.watches = s.watches[1:]
	s.mu.Unlock()
	return f(ctx)
}

func (s *scriptLW) watchRVs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, o := range s.watchOp {
		out = append(out, o.ResourceVersion)
	}
	return out
}

func events(evs ...Event[*core.Pod]) func(context.Context) (<-chan Event[*core.Pod], error) {
	return func(context.Context) (<-chan Event[*core.Pod], error) {
		ch := make(chan Event[*core.Pod], len(evs))
		for _, ev := range evs {
			ch <- ev
		}
		close(ch)
		return ch, nil
	}
}

func rvPod(name, rv string) *core.Pod {
	p := pod("ns", name, "")
	p.ResourceVersion = rv
	return p
}

func bookmark(rv string) *core.Pod {
	return &core.Pod{ObjectMeta: meta.ObjectMeta{ResourceVersion: rv}}
}

func TestReflectorResumesFromLastResourceVersion(t *testing.T) {
	lw := &scriptLW{
		lists: []func() ([]*core.Pod, string, string, error){
			func() ([]*core.Pod, string, string, error) { return nil, "", "", errors.New("server down") },
			func() ([]*core.Pod, string, string, error) { return []*core.Pod{rvPod("a", "3")}, "5", "page2", nil },
			func() ([]*core.Pod, string, string, error) { return []*core.Pod{rvPod("b", "4")}, "5", "", nil },
		},
		watches: []func(context.Context) (<-chan Event[*core.Pod], error){
			events(Event[*core.Pod]{Type: Added, Object: rvPod("c", "6")}, Event[*core.Pod]{Type: Bookmark, Object: bookmark("9")}),
			func(context.Context) (<-chan Event[*core.Pod], error) { return nil, errors.New("connection refused") },
			events(Event[*core.Pod]{Type: Modified, Object: rvPod("c", "11")}),
			events(Event[*core.Pod]{Type: Bookmark, Object: bookmark("15")}),
		},
	}
	inf := New[*core.Pod](lw, podOptions())
	start(t, inf)
	waitFor(t, 5*time.Second, func() bool { return len(lw.watchRVs()) >= 5 }, "watches")
	assert.Equal(t, []string{"5", "9", "9", "11", "15"}, lw.watchRVs()[:5], "each watch resumes where the last left off; bookmarks advance it")
	assert.Equal(t, []string{"ns/a", "ns/b", "ns/c"}, inf.Indexer().ListKeys())
	lw.mu.Lock()
	assert.Equal(t, ListOptions{Limit: DefaultPageSize}, lw.listOps[1])
	assert.Equal(t, ListOptions{Limit: DefaultPageSize, Continue: "page2"}, lw.listOps[2])
	assert.True(t, lw.watchOp[0].AllowWatchBookmarks)
	assert.Positive(t, lw.watchOp[0].TimeoutSeconds)
	lw.mu.Unlock()
	st := inf.Stats()
	assert.Equal(t, int64(2), st.Lists)
	assert.Equal(t, int64(2), st.Bookmarks)
	assert.Equal(t, int64(1), st.WatchErrors)
	assert.Equal(t, "15", inf.LastSyncResourceVersion())
}

func TestReflectorSleepBacksOff(t *testing.T) {
	r := NewReflector[*core.Pod](nil, nil, ReflectorConfig[*core.Pod]{InitialBackoff: time.Microsecond, MaxBackoff: 4 * time.Microsecond})
	d := r.cfg.InitialBackoff
	var got []time.Duration
	for range 4 {
		d = r.sleep(context.Background(), d)
		got = append(got, d)
	}
	assert.Equal(t, []time.Duration{2 * time.Microsecond, 4 * time.Microsecond, 4 * time.Microsecond, 4 * time.Microsecond}, got)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	NewReflector[*core.Pod](nil, nil, ReflectorConfig[*core.Pod]{}).sleep(ctx, time.Hour)
	require.Less(t, time.Since(start), time.Minute, "sleep returns when ctx is done")
}
