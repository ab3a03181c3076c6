package admission

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
)

// NamespaceLifecycleName is the name of the NamespaceLifecycle plugin.
const NamespaceLifecycleName = "NamespaceLifecycle"

// forceLiveLookupTTL is how long after a namespace DELETE the plugin
// distrusts a cache that still shows the namespace Active.
const forceLiveLookupTTL = 30 * time.Second

// NamespaceGetter reads namespaces from a cache (the API server's watch
// cache). The returned object is shared: the plugin never changes it.
// Implementations must be safe for concurrent use.
type NamespaceGetter interface {
	GetNamespace(name string) (*core.Namespace, bool)
}

// NamespaceGetterFunc adapts a function to NamespaceGetter.
type NamespaceGetterFunc func(name string) (*core.Namespace, bool)

// GetNamespace calls f.
func (f NamespaceGetterFunc) GetNamespace(name string) (*core.Namespace, bool) { return f(name) }

// NamespaceLookup reads one namespace from storage, bypassing any cache.
// It returns an error for which api/errors.IsNotFound holds when the
// namespace does not exist. It must be safe for concurrent use.
type NamespaceLookup func(ctx context.Context, name string) (*core.Namespace, error)

// NamespaceLifecycle is a Validator that keeps objects out of namespaces
// that do not exist (404 `namespaces "x" not found`) and keeps new objects
// out of namespaces being deleted (403 `unable to create new content in
// namespace x because it is being terminated`), and refuses the deletion
// of the system namespaces default, kube-system, kube-public and
// kube-node-lease. Namespaces themselves, cluster-scoped objects,
// deletions of other objects and access reviews always pass.
//
// The cache may lag behind storage by a few milliseconds, so an object
// created right after its namespace would be refused: when the cache does
// not know the namespace, or the namespace was deleted through this plugin
// within the last 30 seconds while the cache still shows it Active, the
// plugin asks the NamespaceLookup (when one was given) before deciding.
//
// A NamespaceLifecycle is safe for concurrent use; it holds only the set
// of recently deleted namespace names.
type NamespaceLifecycle struct {
	Handler
	cache     NamespaceGetter
	live      NamespaceLookup
	immortal  map[string]bool
	now       func() time.Time
	mu        sync.Mutex
	deletedAt map[string]time.Time
}

var _ Validator = (*NamespaceLifecycle)(nil)

// NewNamespaceLifecycle returns the plugin reading namespaces from cache,
// falling back to live (which may be nil: then the cache decides alone).
func NewNamespaceLifecycle(cache NamespaceGetter, live NamespaceLookup) *NamespaceLifecycle {
	return &NamespaceLifecycle{
		Handler: Handler{PluginName: NamespaceLifecycleName, Operations: []Operation{Create, Update, Delete}},
		cache:   cache,
		live:    live,
		immortal: map[string]bool{
			core.NamespaceDefault: true, core.NamespaceSystem: true,
			core.NamespacePublic: true, core.NamespaceNodeLease: true,
		},
		now:       time.Now,
		deletedAt: map[string]time.Time{},
	}
}

var namespacesResource = meta.GroupResource{Resource: "namespaces"}

// Validate admits or refuses a; see NamespaceLifecycle.
func (l *NamespaceLifecycle) Validate(ctx context.Context, a *Attributes) error {
	isNamespace := a.Resource.GroupResource() == namespacesResource
	if isNamespace {
		if a.Operation == Delete && a.Subresource == "" {
			if l.immortal[a.Name] {
				return forbidden(a, fmt.Errorf("this namespace may not be deleted"))
			}
			l.markDeleted(a.Name)
		}
		return nil
	}
	if a.Namespace == "" || a.Operation == Delete || isAccessReview(a) {
		return nil
	}
	ns, err := l.namespace(ctx, a.Namespace)
	if err != nil {
		return err
	}
	if a.Operation == Create && ns.Status.Phase == core.NamespaceTerminating {
		st := forbidden(a, fmt.Errorf("unable to create new content in namespace %s because it is being terminated", a.Namespace))
		st.Details.Causes = append(st.Details.Causes, meta.StatusCause{
			Type:    core.NamespaceTerminatingCause,
			Message: fmt.Sprintf("namespace %s is being terminated", a.Namespace),
			Field:   "metadata.namespace",
		})
		return st
	}
	return nil
}

// namespace finds name in the cache, or in storage when the cache does
// not have it or may be stale.
func (l *NamespaceLifecycle) namespace(ctx context.Context, name string) (*core.Namespace, error) {
	ns, ok := l.cache.GetNamespace(name)
	if ok && !(ns.Status.Phase != core.NamespaceTerminating && l.recentlyDeleted(name)) {
		return ns, nil
	}
	if l.live == nil {
		if ok {
			return ns, nil
		}
		return nil, apierrors.NewNotFound(namespacesResource, name)
	}
	live, err := l.live(ctx, name)
	switch {
	case err == nil && live != nil:
		return live, nil
	case err == nil || apierrors.IsNotFound(err):
		return nil, apierrors.NewNotFound(namespacesResource, name)
	}
	if st := apierrors.FromError(err); st != nil && st.Code >= http.StatusInternalServerError {
		return nil, st
	}
	return nil, apierrors.NewInternalError(fmt.Errorf("look up namespace %q: %w", name, err))
}

// markDeleted remembers that name was just deleted.
func (l *NamespaceLifecycle) markDeleted(name string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	for n, t := range l.deletedAt {
		if now.Sub(t) > forceLiveLookupTTL {
			delete(l.deletedAt, n)
		}
	}
	l.deletedAt[name] = now
}

// recentlyDeleted reports whether name was deleted within the TTL.
func (l *NamespaceLifecycle) recentlyDeleted(name string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	t, ok := l.deletedAt[name]
	return ok && l.now().Sub(t) <= forceLiveLookupTTL
}

// isAccessReview reports whether a creates a LocalSubjectAccessReview,
// which must not reveal whether its namespace exists.
func isAccessReview(a *Attributes) bool {
	return a.Resource.GroupResource() == meta.GroupResource{Group: "authorization.k8s.io", Resource: "localsubjectaccessreviews"}
}
