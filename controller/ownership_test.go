package controller

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/labels"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/informer"
)

func TestWithoutOwner(t *testing.T) {
	refs := []meta.OwnerReference{{UID: "a"}, {UID: "b"}, {UID: "a"}}
	assert.Equal(t, []meta.OwnerReference{{UID: "b"}}, WithoutOwner(refs, "a"))
	assert.Len(t, refs, 3, "the input is not changed")
	assert.NotNil(t, WithoutOwner(nil, "a"), "an empty list, not nil: a merge patch must clear the field")
}

// patchRecorder is an API server of pods in "ns" that answers merge
// patches of metadata (conditional on resourceVersion, as the real one)
// and records them.
type patchRecorder struct {
	mu      sync.Mutex
	pods    map[string]*core.Pod
	patches map[string]map[string]any // pod name -> metadata patched
}

func (s *patchRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	name := path.Base(r.URL.Path)
	p, ok := s.pods[name]
	if r.Method != http.MethodPatch || !ok {
		writeStatus(w, apierrors.NewNotFound(meta.GroupResource{Resource: "pods"}, name))
		return
	}
	var patch struct {
		Metadata map[string]any `json:"metadata"`
	}
	if err := json.NewDecoder(r.Body).Decode(&patch); err != nil {
		writeStatus(w, apierrors.NewBadRequest(err.Error()))
		return
	}
	if patch.Metadata["resourceVersion"] != p.ResourceVersion {
		writeStatus(w, apierrors.NewConflict(meta.GroupResource{Resource: "pods"}, name, errors.New("the object has been modified")))
		return
	}
	s.patches[name] = patch.Metadata
	out := meta.DeepCopy(p)
	b, _ := json.Marshal(patch.Metadata)
	_ = json.Unmarshal(b, &out.ObjectMeta)
	out.ResourceVersion += "+"
	_ = json.NewEncoder(w).Encode(out)
}

func writeStatus(w http.ResponseWriter, st *meta.Status) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(int(st.Code))
	_ = json.NewEncoder(w).Encode(st)
}

func TestClaimObjects(t *testing.T) {
	yes := true
	owner := &core.Pod{ObjectMeta: meta.ObjectMeta{Namespace: "ns", Name: "owner", UID: "owner-uid"}} // any kind will do
	ref := meta.OwnerReference{APIVersion: "v1", Kind: "Owner", Name: "owner", UID: "owner-uid", Controller: &yes, BlockOwnerDeletion: &yes}
	other := meta.OwnerReference{APIVersion: "v1", Kind: "Owner", Name: "other", UID: "other-uid", Controller: &yes}
	now := meta.NewTime(time.Unix(1000, 0))
	pod := func(name string, app string, refs ...meta.OwnerReference) *core.Pod {
		return &core.Pod{ObjectMeta: meta.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: "1",
			Labels: map[string]string{"app": app}, OwnerReferences: refs}}
	}
	deleting := func(p *core.Pod) *core.Pod { p.DeletionTimestamp = &now; return p }
	candidates := func() []*core.Pod {
		return []*core.Pod{
			pod("owned", "web", ref), pod("owned-moved", "db", ref), pod("orphan", "web"), pod("orphan-other-app", "db"),
			deleting(pod("orphan-deleting", "web")), pod("others", "web", other), pod("orphan-x", "web"),
		}
	}
	live := func(uid meta.UID, del *meta.Time) func(context.Context) (meta.Object, error) {
		return func(context.Context) (meta.Object, error) {
			return &core.Pod{ObjectMeta: meta.ObjectMeta{UID: uid, DeletionTimestamp: del}}, nil
		}
	}
	tests := []struct {
		name     string
		claim    func(*Claim[*core.Pod])
		owner    *core.Pod
		want     []string // names returned, in order
		released []string
		adopted  []string
		err      func(error) bool
	}{
		{name: "keeps, releases and adopts", want: []string{"owned", "orphan", "orphan-x"},
			released: []string{"owned-moved"}, adopted: []string{"orphan", "orphan-x"}},
		{name: "Match narrows the claim", claim: func(c *Claim[*core.Pod]) {
			c.Match = func(p *core.Pod) bool { return p.Name != "owned" && p.Name != "orphan-x" }
		}, want: []string{"orphan"}, released: []string{"owned-moved"}, adopted: []string{"orphan"}},
		{name: "Adoptable narrows the orphans", claim: func(c *Claim[*core.Pod]) {
			c.Adoptable = func(p *core.Pod) bool { return p.Name == "orphan" }
		}, want: []string{"owned", "orphan"}, released: []string{"owned-moved"}, adopted: []string{"orphan"}},
		{name: "an owner being deleted adopts nothing", owner: deleting(meta.DeepCopy(owner)),
			want: []string{"owned"}, released: []string{"owned-moved"}},
		{name: "live owner being deleted adopts nothing", claim: func(c *Claim[*core.Pod]) { c.Recheck = live("owner-uid", &now) },
			want: []string{"owned"}, released: []string{"owned-moved"}},
		{name: "live owner replaced adopts nothing", claim: func(c *Claim[*core.Pod]) { c.Recheck = live("new-uid", nil) },
			want: []string{"owned"}, released: []string{"owned-moved"}},
		{name: "live owner as cached adopts", claim: func(c *Claim[*core.Pod]) { c.Recheck = live("owner-uid", nil) },
			want: []string{"owned", "orphan", "orphan-x"}, released: []string{"owned-moved"}, adopted: []string{"orphan", "orphan-x"}},
		{name: "recheck failure", claim: func(c *Claim[*core.Pod]) {
			c.Recheck = func(context.Context) (meta.Object, error) { return nil, errors.New("unreachable") }
		}, released: []string{"owned-moved"}, err: func(err error) bool { return err != nil }},
		{name: "nil selector claims nothing, releases all", claim: func(c *Claim[*core.Pod]) { c.Selector = nil },
			released: []string{"owned", "owned-moved"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pods := candidates()
			srv := &patchRecorder{pods: map[string]*core.Pod{}, patches: map[string]map[string]any{}}
			for _, p := range pods {
				srv.pods[p.Name] = p
			}
			hs := httptest.NewServer(srv)
			defer hs.Close()
			c, err := client.New(&client.Config{Host: hs.URL, QPS: -1}, client.WithLogger(quietLogger()), client.WithRetry(0, time.Millisecond, time.Millisecond))
			require.NoError(t, err)
			o := owner
			if tt.owner != nil {
				o = tt.owner
			}
			cl := Claim[*core.Pod]{Owner: o, Ref: ref, Selector: labels.SelectorFromSet(labels.Set{"app": "web"})}
			if tt.claim != nil {
				tt.claim(&cl)
			}
			got, err := ClaimObjects(context.Background(), c, cl, pods)
			if tt.err != nil {
				assert.True(t, tt.err(err), "%v", err)
			} else {
				require.NoError(t, err)
				var names []string
				for _, p := range got {
					names = append(names, p.Name)
				}
				assert.Equal(t, tt.want, names)
			}
			var released, adopted []string
			for name, md := range srv.patches {
				refs, _ := md["ownerReferences"].([]any)
				if len(refs) > len(srv.pods[name].OwnerReferences) {
					adopted = append(adopted, name)
				} else {
					released = append(released, name)
				}
			}
			sort.Strings(released)
			sort.Strings(adopted)
			assert.Equal(t, tt.released, released, "released")
			assert.Equal(t, tt.adopted, adopted, "adopted")
		})
	}
}

func TestClaimObjectsAdoptsWithFinalizerAndSkipsGone(t *testing.T) {
	owner := &core.Pod{ObjectMeta: meta.ObjectMeta{Namespace: "ns", Name: "owner", UID: "owner-uid"}}
	ref := meta.OwnerReference{APIVersion: "v1", Kind: "Owner", Name: "owner", UID: "owner-uid"}
	orphan := &core.Pod{ObjectMeta: meta.ObjectMeta{Namespace: "ns", Name: "orphan", ResourceVersion: "1",
		Labels: map[string]string{"app": "web"}, Finalizers: []string{"keep"}}}
	gone := meta.DeepCopy(orphan)
	gone.Name = "gone"
	stale := meta.DeepCopy(orphan)
	stale.Name, stale.ResourceVersion = "stale", "0"
	srv := &patchRecorder{pods: map[string]*core.Pod{"orphan": orphan, "stale": meta.DeepCopy(orphan)}, patches: map[string]map[string]any{}}
	srv.pods["stale"].Name = "stale"
	hs := httptest.NewServer(srv)
	defer hs.Close()
	c, err := client.New(&client.Config{Host: hs.URL, QPS: -1}, client.WithLogger(quietLogger()), client.WithRetry(0, time.Millisecond, time.Millisecond))
	require.NoError(t, err)
	cl := Claim[*core.Pod]{Owner: owner, Ref: ref, Selector: labels.Everything(), Finalizer: "tracking"}

	got, err := ClaimObjects(context.Background(), c, cl, []*core.Pod{orphan, gone})
	require.NoError(t, err)
	require.Len(t, got, 1, "the pod that is gone is skipped")
	assert.Equal(t, []string{"keep", "tracking"}, got[0].Finalizers, "the server's answer, with the finalizer")
	assert.Equal(t, "1+", got[0].ResourceVersion)
	assert.Equal(t, []any{"keep", "tracking"}, srv.patches["orphan"]["finalizers"])
	assert.Equal(t, []string{"keep"}, orphan.Finalizers, "the cached object is not changed")

	_, err = ClaimObjects(context.Background(), c, cl, []*core.Pod{stale})
	assert.True(t, apierrors.IsConflict(err), "a conflict fails the claim: %v", err)
}

// TestClaimCandidates: an owner's candidates are the objects it controls
// and its namespace's orphans, found through ControllerIndex; objects
// other controllers own, and other namespaces' orphans, are not read.
func TestClaimCandidates(t *testing.T) {
	yes := true
	owner := &core.Pod{ObjectMeta: meta.ObjectMeta{Name: "rs", Namespace: "a", UID: "u-rs"}}
	pod := func(ns, name string, refs ...meta.OwnerReference) *core.Pod {
		return &core.Pod{ObjectMeta: meta.ObjectMeta{Name: name, Namespace: ns, OwnerReferences: refs}}
	}
	ctrl := func(uid meta.UID) meta.OwnerReference {
		return meta.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: string(uid), UID: uid, Controller: &yes}
	}
	plain := meta.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "cm", UID: "u-cm"} // not a controller
	ix := informer.NewIndexer[*core.Pod](nil)
	for _, p := range []*core.Pod{
		pod("a", "mine-1", ctrl("u-rs")), pod("a", "mine-2", ctrl("u-rs")),
		pod("a", "other", ctrl("u-other")),
		pod("a", "orphan"), pod("a", "orphan-with-plain-owner", plain),
		pod("b", "orphan-elsewhere"), pod("b", "mine-elsewhere", ctrl("u-rs")),
	} {
		_, _, err := ix.Put(p)
		require.NoError(t, err)
	}
	_, err := ClaimCandidates(ix, owner)
	require.ErrorIs(t, err, informer.ErrIndexNotFound, "without the index")

	require.NoError(t, IndexByController(ix))
	require.NoError(t, IndexByController(ix), "a second controller on the same cache")
	got, err := ClaimCandidates(ix, owner)
	require.NoError(t, err)
	var names []string
	for _, p := range got {
		names = append(names, p.Namespace+"/"+p.Name)
	}
	// An owner reference never crosses namespaces: a pod in b naming the
	// owner's UID is not its candidate.
	assert.ElementsMatch(t, []string{"a/mine-1", "a/mine-2", "a/orphan", "a/orphan-with-plain-owner"}, names)

	// The index follows changes: a released pod becomes an orphan.
	_, _, err = ix.Put(pod("a", "mine-2"))
	require.NoError(t, err)
	orphans, err := ix.ByIndex(ControllerIndex, OrphanKey("a"))
	require.NoError(t, err)
	assert.Len(t, orphans, 3)
}

// BenchmarkClaimCandidates: one ReplicaSet's sync reading its candidates
// in a namespace of 150 ReplicaSets × 1,000 pods (the scalability
// envelope's shape), through the by-controller index against the
// namespace list ClaimObjects was handed before, each followed by
// ClaimObjects (nothing to adopt or release: no API calls).
func BenchmarkClaimCandidates(b *testing.B) {
	yes := true
	const owners, perOwner = 150, 1000
	ix := informer.NewIndexer[*core.Pod](informer.Indexers[*core.Pod]{informer.NamespaceIndex: informer.IndexByNamespace[*core.Pod]})
	require.NoError(b, IndexByController(ix))
	for o := range owners {
		uid := meta.UID(fmt.Sprintf("rs-%d", o))
		for i := range perOwner {
			_, _, err := ix.Put(&core.Pod{ObjectMeta: meta.ObjectMeta{Namespace: "envelope", Name: fmt.Sprintf("%s-%d", uid, i),
				Labels:          map[string]string{"app": string(uid)},
				OwnerReferences: []meta.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: string(uid), UID: uid, Controller: &yes}}}})
			require.NoError(b, err)
		}
	}
	owner := &core.Pod{ObjectMeta: meta.ObjectMeta{Namespace: "envelope", Name: "rs-7", UID: "rs-7"}}
	claim := Claim[*core.Pod]{Owner: owner, Selector: labels.SelectorFromSet(labels.Set{"app": "rs-7"})}
	for _, tc := range []struct {
		name       string
		candidates func() []*core.Pod
	}{
		{"index", func() []*core.Pod { c, _ := ClaimCandidates(ix, owner); return c }},
		{"namespace", func() []*core.Pod { return informer.NewLister(ix).Namespace("envelope").List(nil) }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				owned, err := ClaimObjects(context.Background(), nil, claim, tc.candidates())
				if err != nil || len(owned) != perOwner {
					b.Fatalf("owned %d, err %v", len(owned), err)
				}
			}
		})
	}
}
