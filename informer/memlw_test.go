package informer

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"sync"

	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
)

// memLW is an in-memory ListerWatcher over objects kept as JSON, so every
// List and watch event decodes fresh objects as a real client would. It
// keeps a bounded history for resuming watches and answers 410 (as a
// status, or as an ERROR frame when errorFrames is set) for older ones.
type memLW[T meta.Object] struct {
	mu          sync.Mutex
	rv          int64
	raw         map[string][]byte
	history     []memEvent
	maxHistory  int
	oldest      int64 // watches from below this get 410
	watchers    map[*memWatcher]struct{}
	errorFrames bool
	lists       int
	expireNext  int      // continue tokens to reject with 410
	sorted      []string // sorted keys; nil when stale
}

type memEvent struct {
	typ string
	rv  int64
	raw []byte
}

type memWatcher struct{ ch chan memEvent }

func newMemLW[T meta.Object](maxHistory int) *memLW[T] {
	return &memLW[T]{raw: map[string][]byte{}, maxHistory: maxHistory, watchers: map[*memWatcher]struct{}{}}
}

// put stores obj (Added or Modified), setting its resourceVersion.
func (m *memLW[T]) put(obj T) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.rv++
	obj.GetObjectMeta().ResourceVersion = strconv.FormatInt(m.rv, 10)
	b, err := json.Marshal(obj)
	if err != nil {
		panic(err)
	}
	typ := Added
	if _, ok := m.raw[KeyOf(obj)]; ok {
		typ = Modified
	}
	if typ == Added {
		m.sorted = nil
	}
	m.raw[KeyOf(obj)] = b
	m.record(memEvent{typ: typ, rv: m.rv, raw: b})
}

func (m *memLW[T]) remove(key string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.raw[key]
	if !ok {
		return
	}
	delete(m.raw, key)
	m.sorted = nil
	m.rv++
	var obj T
	must(json.Unmarshal(b, &obj))
	obj.GetObjectMeta().ResourceVersion = strconv.FormatInt(m.rv, 10)
	b, _ = json.Marshal(obj)
	m.record(memEvent{typ: Deleted, rv: m.rv, raw: b})
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

func (m *memLW[T]) record(ev memEvent) {
	m.history = append(m.history, ev)
	if len(m.history) > m.maxHistory {
		drop := len(m.history) - m.maxHistory
		m.oldest = m.history[drop].rv - 1
		m.history = append(m.history[:0:0], m.history[drop:]...)
	}
	for w := range m.watchers {
		select {
		case w.ch <- ev:
		default: // too slow: end its watch; it resumes from its last RV
			m.endLocked(w)
		}
	}
}

func (m *memLW[T]) endLocked(w *memWatcher) {
	if _, ok := m.watchers[w]; ok {
		delete(m.watchers, w)
		close(w.ch)
	}
}

// cut ends every watch.
func (m *memLW[T]) cut() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for w := range m.watchers {
		m.endLocked(w)
	}
}

// expire forgets the history: every resume gets 410 and cuts the watches.
func (m *memLW[T]) expire() {
	m.mu.Lock()
	m.history, m.oldest = nil, m.rv
	m.mu.Unlock()
	m.cut()
}

func (m *memLW[T]) listCount() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.lists
}

func (m *memLW[T]) List(_ context.Context, opts ListOptions) ([]T, string, string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if opts.Continue == "" {
		m.lists++
	} else if m.expireNext > 0 {
		m.expireNext--
		return nil, "", "", apierrors.NewResourceExpired("continue token expired")
	}
	if m.sorted == nil {
		m.sorted = make([]string, 0, len(m.raw))
		for k := range m.raw {
			m.sorted = append(m.sorted, k)
		}
		sort.Strings(m.sorted)
	}
	keys := m.sorted
	start := 0
	if opts.Continue != "" {
		start, _ = strconv.Atoi(opts.Continue)
	}
	end := len(keys)
	if opts.Limit > 0 && start+int(opts.Limit) < end {
		end = start + int(opts.Limit)
	}
	out := make([]T, 0, end-start)
	for _, k := range keys[start:end] {
		var obj T
		must(json.Unmarshal(m.raw[k], &obj))
		out = append(out, obj)
	}
	cont := ""
	if end < len(keys) {
		cont = strconv.Itoa(end)
	}
	return out, strconv.FormatInt(m.rv, 10), cont, nil
}

func (m *memLW[T]) Watch(ctx context.Context, opts ListOptions) (<-chan Event[T], error) {
	rv, err := strconv.ParseInt(opts.ResourceVersion, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("bad resourceVersion %q", opts.ResourceVersion)
	}
	out := make(chan Event[T])
	m.mu.Lock()
	if rv < m.oldest {
		m.mu.Unlock()
		gone := apierrors.NewResourceExpired(fmt.Sprintf("too old resource version: %d (%d)", rv, m.oldest))
		if !m.errorFrames {
			return nil, gone
		}
		go func() { defer close(out); send(ctx, out, Event[T]{Type: Error, Err: gone}) }()
		return out, nil
	}
	w := &memWatcher{ch: make(chan memEvent, 1<<16)}
	for _, ev := range m.history {
		if ev.rv > rv {
			w.ch <- ev
		}
	}
	m.watchers[w] = struct{}{}
	m.mu.Unlock()
	go m.serve(ctx, w, out)
	return out, nil
}

// serve decodes w's events onto out until ctx ends or the watch is cut.
func (m *memLW[T]) serve(ctx context.Context, w *memWatcher, out chan<- Event[T]) {
	defer close(out)
	defer func() { m.mu.Lock(); m.endLocked(w); m.mu.Unlock() }()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-w.ch:
			if !ok {
				return
			}
			var obj T
			must(json.Unmarshal(ev.raw, &obj))
			if !send(ctx, out, Event[T]{Type: ev.typ, Object: obj}) {
				return
			}
		}
	}
}

// send hands ev to ch unless ctx ends first; it reports whether it did.
func send[T any](ctx context.Context, ch chan<- Event[T], ev Event[T]) bool {
	select {
	case ch <- ev:
		return true
	case <-ctx.Done():
		return false
	}
}
