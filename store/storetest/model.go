package storetest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/store"
)

// model mirrors a store: the state after every revision it has seen.
type model struct {
	base   int64                 // revision before the first recorded write
	states []map[string]store.KV // states[i]: state at revision base+i
	events map[int64]store.Event // the event written at each revision
}

func newModel(base int64) *model {
	return &model{base: base, states: []map[string]store.KV{{}}, events: map[int64]store.Event{}}
}

// at returns the state at rev.
func (m *model) at(rev int64) map[string]store.KV { return m.states[rev-m.base] }

func (m *model) last() int64 { return m.base + int64(len(m.states)) - 1 }

// record adds the state after a write at rev.
func (m *model) record(rev int64, ev store.Event) {
	next := maps.Clone(m.states[len(m.states)-1])
	if ev.Type == store.EventDelete {
		delete(next, ev.KV.Key)
	} else {
		next[ev.KV.Key] = ev.KV
	}
	m.states = append(m.states, next)
	m.events[rev] = ev
}

// sorted returns the state at rev under prefix, in key order.
func (m *model) sorted(rev int64, prefix string) []store.KV {
	st := m.at(rev)
	var out []store.KV
	for _, k := range slices.Sorted(maps.Keys(st)) {
		if strings.HasPrefix(k, prefix) {
			out = append(out, st[k])
		}
	}
	return out
}

// randomWrites performs n random creates, updates and deletes on keys
// under prefix (nkeys distinct names) and records them in m.
func randomWrites(ctx context.Context, t *testing.T, s store.Interface, m *model, rng *rand.Rand, prefix string, nkeys, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		k := fmt.Sprintf("%sk%02d", prefix, rng.IntN(nkeys))
		cur, exists := m.at(m.last())[k]
		val := []byte(fmt.Sprintf("v%d-%d", i, rng.IntN(1000)))
		var ev store.Event
		switch {
		case !exists:
			rev, err := s.Create(ctx, k, val)
			require.NoError(t, err)
			ev = store.Event{Type: store.EventPut, Revision: rev, KV: store.KV{Key: k, Value: val, CreateRevision: rev, ModRevision: rev}}
		case rng.IntN(3) == 0:
			prev, rev, err := s.Delete(ctx, k, cur.ModRevision)
			require.NoError(t, err)
			require.Equal(t, cur.ModRevision, prev.ModRevision)
			ev = store.Event{Type: store.EventDelete, Revision: rev, KV: store.KV{Key: k, ModRevision: rev}, Prev: &cur}
		default:
			rev, err := s.Update(ctx, k, val, cur.ModRevision)
			require.NoError(t, err)
			ev = store.Event{Type: store.EventPut, Revision: rev, KV: store.KV{Key: k, Value: val, CreateRevision: cur.CreateRevision, ModRevision: rev}, Prev: &cur}
		}
		require.Equal(t, m.last()+1, ev.Revision, "revisions must be consecutive")
		m.record(ev.Revision, ev)
	}
}

// assertEvent compares a received event with the model's.
func assertEvent(t *testing.T, want, got store.Event) {
	t.Helper()
	require.Equal(t, want.Revision, got.Revision)
	require.Equal(t, want.Type, got.Type, "type at revision %d", want.Revision)
	require.Equal(t, want.KV.Key, got.KV.Key, "key at revision %d", want.Revision)
	require.Equal(t, want.KV.ModRevision, got.KV.ModRevision, "mod revision at %d", want.Revision)
	if want.Type == store.EventPut {
		require.Equal(t, string(want.KV.Value), string(got.KV.Value), "value at revision %d", want.Revision)
		require.Equal(t, want.KV.CreateRevision, got.KV.CreateRevision, "create revision at %d", want.Revision)
	} else {
		require.Empty(t, got.KV.Value, "delete event value at %d", want.Revision)
	}
	if want.Prev == nil {
		require.Nil(t, got.Prev, "prev at revision %d", want.Revision)
		return
	}
	require.NotNil(t, got.Prev, "prev at revision %d", want.Revision)
	require.Equal(t, string(want.Prev.Value), string(got.Prev.Value), "prev value at %d", want.Revision)
	require.Equal(t, want.Prev.ModRevision, got.Prev.ModRevision, "prev mod revision at %d", want.Revision)
	require.Equal(t, want.Prev.CreateRevision, got.Prev.CreateRevision, "prev create revision at %d", want.Revision)
}

// isAny reports whether err is one of targets.
func isAny(err error, targets ...error) bool {
	for _, t := range targets {
		if errors.Is(err, t) {
			return true
		}
	}
	return false
}
