package informer

import (
	"errors"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/labels"
	"github.com/orkit/orkit/api/meta"
)

func ownedPod(ns, name, node, owner string) *core.Pod {
	p := pod(ns, name, node)
	if owner != "" {
		p.OwnerReferences = []meta.OwnerReference{{Kind: "ReplicaSet", Name: "rs", UID: meta.UID(owner)}}
	}
	p.Labels = map[string]string{"tier": name[:1]}
	return p
}

func podIndexer() *Indexer[*core.Pod] {
	return NewIndexer(Indexers[*core.Pod]{
		NamespaceIndex: IndexByNamespace[*core.Pod],
		OwnerUIDIndex:  IndexByOwnerUID[*core.Pod],
		NodeNameIndex:  IndexPodsByNodeName,
		"tier":         IndexByLabel[*core.Pod]("tier"),
		"node-by-func": IndexByField(func(p *core.Pod) string { return p.Spec.NodeName }),
	})
}

func names(objs []*core.Pod) []string {
	out := make([]string, 0, len(objs))
	for _, o := range objs {
		out = append(out, KeyOf(o))
	}
	sort.Strings(out)
	return out
}

func TestIndexerIndexes(t *testing.T) {
	ix := podIndexer()
	for _, p := range []*core.Pod{
		ownedPod("a", "web-1", "n1", "u1"), ownedPod("a", "web-2", "n2", "u1"),
		ownedPod("b", "db-1", "n1", "u2"), ownedPod("b", "job", "", ""),
	} {
		_, _, err := ix.Put(p)
		require.NoError(t, err)
	}
	tests := []struct {
		index, value string
		want         []string
	}{
		{NamespaceIndex, "a", []string{"a/web-1", "a/web-2"}},
		{NamespaceIndex, "c", []string{}},
		{OwnerUIDIndex, "u1", []string{"a/web-1", "a/web-2"}},
		{NodeNameIndex, "n1", []string{"a/web-1", "b/db-1"}},
		{NodeNameIndex, "", []string{}},
		{"node-by-func", "n2", []string{"a/web-2"}},
		{"tier", "w", []string{"a/web-1", "a/web-2"}},
		{"tier", "j", []string{"b/job"}},
	}
	for _, tt := range tests {
		t.Run(tt.index+"="+tt.value, func(t *testing.T) {
			got, err := ix.ByIndex(tt.index, tt.value)
			require.NoError(t, err)
			assert.Equal(t, tt.want, names(got))
			keys, err := ix.IndexKeys(tt.index, tt.value)
			require.NoError(t, err)
			assert.Equal(t, tt.want, keys)
		})
	}
}

func TestIndexerUpdateAndDeleteMoveIndexes(t *testing.T) {
	ix := podIndexer()
	_, _, err := ix.Put(ownedPod("a", "web", "n1", "u1"))
	require.NoError(t, err)
	old, existed, err := ix.Put(ownedPod("a", "web", "n2", "u1"))
	require.NoError(t, err)
	assert.True(t, existed)
	assert.Equal(t, "n1", old.Spec.NodeName)
	got, _ := ix.ByIndex(NodeNameIndex, "n1")
	assert.Empty(t, got, "moved off n1")
	got, _ = ix.ByIndex(NodeNameIndex, "n2")
	assert.Len(t, got, 1)
	_, ok := ix.Delete("a/web")
	assert.True(t, ok)
	_, ok = ix.Delete("a/web")
	assert.False(t, ok)
	got, _ = ix.ByIndex(NodeNameIndex, "n2")
	assert.Empty(t, got)
	assert.Empty(t, ix.indices[NodeNameIndex], "no empty sets left behind")
	assert.Zero(t, ix.Len())
}

func TestIndexerBadInputLosesNothing(t *testing.T) {
	boom := errors.New("boom")
	ix := NewIndexer(Indexers[*core.Pod]{"fails-on-x": func(p *core.Pod) ([]string, error) {
		if p.Name == "x" {
			return nil, boom
		}
		return []string{p.Name}, nil
	}})
	_, _, err := ix.Put(pod("ns", "a", ""))
	require.NoError(t, err)
	tests := []struct {
		name string
		obj  *core.Pod
		want error
	}{
		{"nil", nil, ErrInvalidObject},
		{"no name", pod("ns", "", ""), ErrInvalidObject},
		{"index func fails", pod("ns", "x", ""), ErrIndexFunc},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := ix.Put(tt.obj)
			assert.ErrorIs(t, err, tt.want)
			assert.Equal(t, []string{"ns/a"}, ix.ListKeys(), "store unchanged")
		})
	}
	_, err = ix.ByIndex("nope", "v")
	assert.ErrorIs(t, err, ErrIndexNotFound)
	_, err = ix.IndexKeys("nope", "v")
	assert.ErrorIs(t, err, ErrIndexNotFound)
	assert.ErrorIs(t, ix.AddIndexers(Indexers[*core.Pod]{"fails-on-x": IndexByNamespace[*core.Pod]}), ErrIndexConflict)
	assert.ErrorIs(t, ix.AddIndexers(Indexers[*core.Pod]{"bad": func(*core.Pod) ([]string, error) { return nil, boom }}), ErrIndexFunc)
	_, err = ix.ByIndex("bad", "")
	assert.ErrorIs(t, err, ErrIndexNotFound, "a failed AddIndexers adds nothing")
	require.NoError(t, ix.AddIndexers(Indexers[*core.Pod]{NamespaceIndex: IndexByNamespace[*core.Pod]}))
	got, err := ix.ByIndex(NamespaceIndex, "ns")
	require.NoError(t, err)
	assert.Len(t, got, 1, "existing objects are indexed by a new index")
	ix.Clear()
	assert.Zero(t, ix.Len())
	got, _ = ix.ByIndex(NamespaceIndex, "ns")
	assert.Empty(t, got)
}

func TestKeys(t *testing.T) {
	assert.Equal(t, "ns/a", KeyOf(pod("ns", "a", "")))
	assert.Equal(t, "node-1", KeyOf(&core.Node{ObjectMeta: meta.ObjectMeta{Name: "node-1"}}))
	ns, name := SplitKey("ns/a")
	assert.Equal(t, []string{"ns", "a"}, []string{ns, name})
	ns, name = SplitKey("a")
	assert.Equal(t, []string{"", "a"}, []string{ns, name})
	got, ok := ObjectOf[*core.Pod](DeletedFinalStateUnknown[*core.Pod]{Key: "ns/a", Obj: pod("ns", "a", "")})
	assert.True(t, ok)
	assert.Equal(t, "a", got.Name)
	_, ok = ObjectOf[*core.Pod]("nonsense")
	assert.False(t, ok)
}

func TestLister(t *testing.T) {
	ix := NewIndexer[*core.Pod](nil) // no namespace index: the lister scans
	for _, p := range []*core.Pod{ownedPod("a", "web-1", "", ""), ownedPod("a", "db", "", ""), ownedPod("b", "web-2", "", "")} {
		_, _, err := ix.Put(p)
		require.NoError(t, err)
	}
	for _, withIndex := range []bool{false, true} {
		if withIndex {
			require.NoError(t, ix.AddIndexers(Indexers[*core.Pod]{NamespaceIndex: IndexByNamespace[*core.Pod]}))
		}
		l := NewLister(ix)
		web := labels.SelectorFromSet(labels.Set{"tier": "w"})
		assert.Equal(t, []string{"a/db", "a/web-1", "b/web-2"}, names(l.List(nil)))
		assert.Equal(t, []string{"a/web-1", "b/web-2"}, names(l.List(web)))
		assert.Equal(t, []string{"a/db", "a/web-1"}, names(l.Namespace("a").List(labels.Everything())))
		assert.Equal(t, []string{"a/web-1"}, names(l.Namespace("a").List(web)))
		assert.Empty(t, l.Namespace("c").List(nil))
		p, err := l.Namespace("b").Get("web-2")
		require.NoError(t, err)
		assert.Equal(t, "web-2", p.Name)
		_, err = l.Namespace("b").Get("db")
		assert.ErrorIs(t, err, ErrNotFound)
	}
}
