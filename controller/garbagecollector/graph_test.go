package garbagecollector

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/informer/workqueue"
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

func TestUnwatchGone(t *testing.T) {
	gc, err := New(managerFor(t, &client.Client{}), Config{Logger: quietLogger()})
	require.NoError(t, err)
	gc.queue = workqueue.New(workqueue.Config[meta.UID]{})
	defer gc.queue.ShutDown()
	widgets := client.Mapping{Resource: widgetGVR}
	cms := client.Mapping{Resource: meta.GroupVersionResource{Version: "v1", Resource: "configmaps"}}
	deploys := client.Mapping{Resource: meta.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}}
	cancelled := map[string]bool{}
	for _, m := range []client.Mapping{widgets, cms, deploys} {
		gc.watched[m.Resource] = func() { cancelled[m.Resource.Resource] = true }
	}
	gc.graph.upsert(&node{uid: "w", mapping: widgets})
	gc.graph.upsert(&node{uid: "dep", mapping: cms, owners: []meta.OwnerReference{ref("w", false)}})
	gc.graph.upsert(&node{uid: "d", mapping: deploys})

	// The widgets' group is gone; discovery failed for apps (not known).
	groups := []client.APIGroup{{Name: ""}, {Name: "apps"}}
	gc.unwatchGone(map[meta.GroupVersionResource]bool{cms.Resource: true}, map[string]bool{"": true}, groups)
	assert.Equal(t, map[string]bool{"widgets": true}, cancelled, "only the resource that is really gone")
	_, ok := gc.graph.get("w")
	assert.False(t, ok, "its objects left the graph")
	_, ok = gc.graph.get("d")
	assert.True(t, ok, "a group discovery failed for is left alone")
	assert.Equal(t, 1, gc.queue.Len(), "the dependent is queued for a check")
}

func TestUnknownKinds(t *testing.T) {
	var u unknownKinds
	now := time.Now()
	alien := meta.GroupVersionKind{Group: "x", Version: "v1", Kind: "Alien"}
	other := meta.GroupVersionKind{Group: "y", Version: "v1", Kind: "Other"}
	assert.False(t, u.has(alien, now))
	u.add(alien, now, time.Second)
	assert.True(t, u.has(alien, now.Add(500*time.Millisecond)))
	assert.False(t, u.has(alien, now.Add(time.Second)), "expired")
	u.add(other, now.Add(2*time.Second), time.Second)
	assert.Len(t, u.until, 1, "expired entries are dropped")
}
