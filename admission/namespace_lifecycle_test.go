package admission

import (
	"context"
	"errors"
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

// nsMap is a NamespaceGetter over a map, safe for concurrent use.
type nsMap struct {
	mu  sync.Mutex
	nss map[string]*core.Namespace
}

func newNSMap(nss ...*core.Namespace) *nsMap {
	m := &nsMap{nss: map[string]*core.Namespace{}}
	for _, ns := range nss {
		m.nss[ns.Name] = ns
	}
	return m
}

func (m *nsMap) GetNamespace(name string) (*core.Namespace, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ns, ok := m.nss[name]
	return ns, ok
}

// lookup returns a NamespaceLookup over m that counts its calls.
func (m *nsMap) lookup(calls *int) NamespaceLookup {
	return func(_ context.Context, name string) (*core.Namespace, error) {
		*calls++
		if ns, ok := m.GetNamespace(name); ok {
			return ns, nil
		}
		return nil, apierrors.NewNotFound(namespacesResource, name)
	}
}

func namespace(name string, phase core.NamespacePhase) *core.Namespace {
	return &core.Namespace{ObjectMeta: meta.ObjectMeta{Name: name}, Status: core.NamespaceStatus{Phase: phase}}
}

func TestNamespaceLifecycle(t *testing.T) {
	cache := newNSMap(namespace("web", core.NamespaceActive), namespace("old", core.NamespaceTerminating),
		namespace("default", core.NamespaceActive))
	p := NewNamespaceLifecycle(cache, nil)
	cm := &core.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "c"}}
	tests := []struct {
		name     string
		a        *Attributes
		wantCode int32
		wantMsg  string
	}{
		{"create in active namespace", attrs(Create, "configmaps", "web", "c", cm), 0, ""},
		{"create in missing namespace", attrs(Create, "configmaps", "nope", "c", cm),
			http.StatusNotFound, `namespaces "nope" not found`},
		{"create in terminating namespace", attrs(Create, "configmaps", "old", "c", cm),
			http.StatusForbidden, `configmaps "c" is forbidden: unable to create new content in namespace old because it is being terminated`},
		{"update in terminating namespace", attrs(Update, "configmaps", "old", "c", cm), 0, ""},
		{"update in missing namespace", attrs(Update, "configmaps", "nope", "c", cm),
			http.StatusNotFound, `namespaces "nope" not found`},
		{"delete in missing namespace", attrs(Delete, "configmaps", "nope", "c", nil), 0, ""},
		{"cluster-scoped create", attrs(Create, "nodes", "", "n1", &core.Node{}), 0, ""},
		{"namespace create", attrs(Create, "namespaces", "", "fresh", &core.Namespace{}), 0, ""},
		{"delete default", attrs(Delete, "namespaces", "", "default", nil),
			http.StatusForbidden, `namespaces "default" is forbidden: this namespace may not be deleted`},
		{"delete kube-system", attrs(Delete, "namespaces", "", "kube-system", nil),
			http.StatusForbidden, `namespaces "kube-system" is forbidden: this namespace may not be deleted`},
		{"delete kube-public", attrs(Delete, "namespaces", "", "kube-public", nil),
			http.StatusForbidden, `namespaces "kube-public" is forbidden: this namespace may not be deleted`},
		{"delete kube-node-lease", attrs(Delete, "namespaces", "", "kube-node-lease", nil),
			http.StatusForbidden, `namespaces "kube-node-lease" is forbidden: this namespace may not be deleted`},
		{"delete ordinary namespace", attrs(Delete, "namespaces", "", "web", nil), 0, ""},
		{"access review in missing namespace", &Attributes{Operation: Create, Namespace: "nope",
			Resource: meta.GroupVersionResource{Group: "authorization.k8s.io", Version: "v1", Resource: "localsubjectaccessreviews"}}, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := p.Validate(context.Background(), tt.a)
			if tt.wantCode == 0 {
				require.NoError(t, err)
				return
			}
			requireStatus(t, err, tt.wantCode, tt.wantMsg)
		})
	}
}

func TestNamespaceLifecycleTerminatingCause(t *testing.T) {
	p := NewNamespaceLifecycle(newNSMap(namespace("old", core.NamespaceTerminating)), nil)
	err := p.Validate(context.Background(), attrs(Create, "pods", "old", "web", pod("old", "web")))
	st := requireStatus(t, err, http.StatusForbidden,
		`pods "web" is forbidden: unable to create new content in namespace old because it is being terminated`)
	assert.Equal(t, meta.StatusReasonForbidden, st.Reason)
	require.Len(t, st.Details.Causes, 1)
	assert.Equal(t, meta.StatusCause{Type: core.NamespaceTerminatingCause, Message: "namespace old is being terminated",
		Field: "metadata.namespace"}, st.Details.Causes[0])
}

func TestNamespaceLifecycleFallsBackToStorage(t *testing.T) {
	cache, store := newNSMap(), newNSMap(namespace("fresh", core.NamespaceActive))
	calls := 0
	p := NewNamespaceLifecycle(cache, store.lookup(&calls))
	ctx := context.Background()

	require.NoError(t, p.Validate(ctx, attrs(Create, "pods", "fresh", "web", pod("fresh", "web"))),
		"a namespace the cache has not seen yet is found in storage")
	assert.Equal(t, 1, calls)

	err := p.Validate(ctx, attrs(Create, "pods", "gone", "web", pod("gone", "web")))
	requireStatus(t, err, http.StatusNotFound, `namespaces "gone" not found`)
	assert.Equal(t, 2, calls)

	cache.nss["fresh"] = namespace("fresh", core.NamespaceActive)
	require.NoError(t, p.Validate(ctx, attrs(Create, "pods", "fresh", "web", pod("fresh", "web"))))
	assert.Equal(t, 2, calls, "the cache answers when it knows the namespace")
}

func TestNamespaceLifecycleLiveLookupAfterDelete(t *testing.T) {
	cache, store := newNSMap(namespace("web", core.NamespaceActive)), newNSMap(namespace("web", core.NamespaceTerminating))
	calls := 0
	p := NewNamespaceLifecycle(cache, store.lookup(&calls))
	now := time.Unix(1000, 0)
	p.now = func() time.Time { return now }
	ctx := context.Background()

	require.NoError(t, p.Validate(ctx, attrs(Delete, "namespaces", "", "web", nil)))
	err := p.Validate(ctx, attrs(Create, "pods", "web", "p", pod("web", "p")))
	requireStatus(t, err, http.StatusForbidden,
		`pods "p" is forbidden: unable to create new content in namespace web because it is being terminated`)
	assert.Equal(t, 1, calls, "a stale Active cache entry is checked against storage after a delete")

	now = now.Add(forceLiveLookupTTL + time.Second)
	require.NoError(t, p.Validate(ctx, attrs(Create, "pods", "web", "p", pod("web", "p"))))
	assert.Equal(t, 1, calls, "after the TTL the cache is trusted again")
}

func TestNamespaceLifecycleLookupError(t *testing.T) {
	boom := errors.New("disk on fire")
	p := NewNamespaceLifecycle(newNSMap(), func(context.Context, string) (*core.Namespace, error) { return nil, boom })
	err := p.Validate(context.Background(), attrs(Create, "pods", "x", "p", pod("x", "p")))
	st := requireStatus(t, err, http.StatusInternalServerError, `Internal error occurred: look up namespace "x": disk on fire`)
	assert.Equal(t, meta.StatusReasonInternalError, st.Reason)
}

func TestNamespaceLifecycleInChain(t *testing.T) {
	c := &Chain{Validators: []Validator{NewNamespaceLifecycle(newNSMap(), nil)}}
	err := c.Validate(context.Background(), attrs(Create, "pods", "x", "p", pod("x", "p")))
	var rej *Rejection
	require.ErrorAs(t, err, &rej)
	assert.Equal(t, NamespaceLifecycleName, rej.Plugin)
	assert.True(t, apierrors.IsNotFound(err), "the plugin's Status survives the chain")
}
