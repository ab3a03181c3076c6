package controller

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/informer"
)

type captureSource struct{ h informer.Handler[*core.Pod] }

func (s *captureSource) AddEventHandler(h informer.Handler[*core.Pod], _ ...informer.HandlerOption) *informer.Registration {
	s.h = h
	return nil
}

type countingHandler struct{ adds, updates, deletes int }

func (c *countingHandler) OnAdd(*core.Pod, bool)         { c.adds++ }
func (c *countingHandler) OnUpdate(*core.Pod, *core.Pod) { c.updates++ }
func (c *countingHandler) OnDelete(any)                  { c.deletes++ }

// TestObserveExpectations: creations count (not the initial list), each
// expected deletion counts once whatever reports it (deletionTimestamp,
// delete, tombstone), pods of other owners count for nothing, and every
// event still reaches the handler.
func TestObserveExpectations(t *testing.T) {
	key := Request{Namespace: "ns", Name: "owner"}
	exp := NewExpectations(nil, 0)
	owner := func(p *core.Pod) (Request, bool) {
		if p.Labels["owner"] != "owner" {
			return Request{}, false
		}
		return Request{Namespace: p.Namespace, Name: "owner"}, true
	}
	pod := func(name string, mine bool) *core.Pod {
		p := &core.Pod{ObjectMeta: meta.ObjectMeta{Name: name, Namespace: "ns", UID: meta.UID("uid-" + name)}}
		if mine {
			p.Labels = map[string]string{"owner": "owner"}
		}
		return p
	}
	src, h := &captureSource{}, &countingHandler{}
	ObserveExpectations[*core.Pod](src, exp, owner).AddEventHandler(h)
	require.NotNil(t, src.h)

	exp.ExpectCreations(key, 2)
	src.h.OnAdd(pod("a", true), true) // initial list: not a creation
	src.h.OnAdd(pod("b", false), false)
	src.h.OnAdd(pod("c", true), false)
	c, _ := exp.Pending(key)
	assert.Equal(t, 1, c)

	a, b, d := pod("a", true), pod("b", true), pod("d", true)
	exp.ExpectDeletionsOf(key, []meta.UID{a.UID, b.UID})
	dying := *a
	now := meta.Now()
	dying.DeletionTimestamp = &now
	src.h.OnUpdate(a, &dying) // marked for deletion: counts
	src.h.OnDelete(&dying)    // then deleted: already counted
	src.h.OnDelete(d)         // not expected
	_, del := exp.Pending(key)
	assert.Equal(t, 1, del)
	src.h.OnDelete(informer.DeletedFinalStateUnknown[*core.Pod]{Key: "ns/b", Obj: b})
	_, del = exp.Pending(key)
	assert.Equal(t, 0, del)
	exp.DeletionObservedOf(key, b.UID) // a failed delete reported late: ignored
	_, del = exp.Pending(key)
	assert.Equal(t, 0, del)
	assert.Equal(t, countingHandler{adds: 3, updates: 1, deletes: 3}, *h)
}
