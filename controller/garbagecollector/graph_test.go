package garbagecollector

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/meta"
)

func ref(uid meta.UID, block bool) meta.OwnerReference {
	return meta.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: string(uid), UID: uid, BlockOwnerDeletion: &block}
}

func uids(ns []*node) []meta.UID {
	var out []meta.UID
	for _, n := range ns {
		out = append(out, n.uid)
	}
	return out
}

func TestGraph(t *testing.T) {
	g := newGraph()
	g.upsert(&node{uid: "owner"})
	g.upsert(&node{uid: "a", owners: []meta.OwnerReference{ref("owner", true)}})
	g.upsert(&node{uid: "b", owners: []meta.OwnerReference{ref("owner", false), ref("ghost", false)}})
	assert.ElementsMatch(t, []meta.UID{"a", "b"}, uids(g.dependentsOf("owner")))
	assert.ElementsMatch(t, []meta.UID{"b"}, g.dependentUIDs("ghost"), "dependents of owners the graph has never seen are known")

	old := g.upsert(&node{uid: "b", owners: []meta.OwnerReference{ref("ghost", false)}})
	require.Len(t, old, 2)
	assert.ElementsMatch(t, []meta.UID{"a"}, uids(g.dependentsOf("owner")), "a changed owner list moves the edge")

	n, ok := g.remove("a")
	require.True(t, ok)
	assert.Equal(t, meta.UID("a"), n.uid)
	assert.Empty(t, g.dependentsOf("owner"))
	_, ok = g.remove("a")
	assert.False(t, ok)
	assert.Equal(t, 2, g.len())

	got, ok := g.get("b")
	require.True(t, ok)
	got.owners[0].Name = "changed"
	again, _ := g.get("b")
	assert.Equal(t, "ghost", again.owners[0].Name, "nodes handed out are copies")
}

func TestMetadataEdits(t *testing.T) {
	m := &meta.ObjectMeta{OwnerReferences: []meta.OwnerReference{ref("a", true), ref("b", true), ref("c", false)},
		Finalizers: []string{meta.FinalizerOrphanDependents, "custom"}}
	assert.True(t, dropOwners(m, []meta.UID{"b"}))
	assert.False(t, dropOwners(m, []meta.UID{"zzz"}))
	assert.Len(t, m.OwnerReferences, 2)
	assert.True(t, unblockOwners(m, []meta.UID{"a", "c"}))
	assert.False(t, *m.OwnerReferences[0].BlockOwnerDeletion)
	assert.False(t, unblockOwners(m, []meta.UID{"a"}), "already unblocked")
	assert.True(t, dropFinalizer(m, meta.FinalizerOrphanDependents))
	assert.Equal(t, []string{"custom"}, m.Finalizers)
	assert.True(t, dropFinalizer(m, "custom"))
	assert.Nil(t, m.Finalizers)
	assert.True(t, dropOwners(m, []meta.UID{"a", "c"}))
	assert.Nil(t, m.OwnerReferences)
}
