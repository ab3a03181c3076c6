package informer

import (
	"strings"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

// IndexFunc computes the values under which obj is indexed (none is fine).
// It must be a pure function of obj.
type IndexFunc[T any] func(obj T) ([]string, error)

// Indexers names index functions: index name → function.
type Indexers[T any] map[string]IndexFunc[T]

// Names of the built-in indexes.
const (
	// NamespaceIndex indexes objects by metadata.namespace.
	NamespaceIndex = "namespace"
	// OwnerUIDIndex indexes objects by the UIDs of their ownerReferences.
	OwnerUIDIndex = "ownerUID"
	// NodeNameIndex indexes pods by spec.nodeName (IndexPodsByNodeName).
	NodeNameIndex = "spec.nodeName"
)

// KeyOf returns the cache key of obj: "namespace/name", or "name" for a
// cluster-scoped object.
func KeyOf(obj meta.Object) string {
	m := obj.GetObjectMeta()
	if m.Namespace == "" {
		return m.Name
	}
	return m.Namespace + "/" + m.Name
}

// SplitKey splits a cache key into namespace and name.
func SplitKey(key string) (namespace, name string) {
	if i := strings.IndexByte(key, '/'); i >= 0 {
		return key[:i], key[i+1:]
	}
	return "", key
}

// IndexByNamespace indexes obj by its namespace (cluster-scoped objects are
// not indexed).
func IndexByNamespace[T meta.Object](obj T) ([]string, error) {
	if ns := obj.GetObjectMeta().Namespace; ns != "" {
		return []string{ns}, nil
	}
	return nil, nil
}

// IndexByOwnerUID indexes obj by the UID of every owner it references.
func IndexByOwnerUID[T meta.Object](obj T) ([]string, error) {
	refs := obj.GetObjectMeta().OwnerReferences
	if len(refs) == 0 {
		return nil, nil
	}
	out := make([]string, 0, len(refs))
	for _, r := range refs {
		out = append(out, string(r.UID))
	}
	return out, nil
}

// IndexByLabel returns an IndexFunc indexing objects by the value of
// label key (objects without it are not indexed).
func IndexByLabel[T meta.Object](key string) IndexFunc[T] {
	return func(obj T) ([]string, error) {
		if v, ok := obj.GetObjectMeta().Labels[key]; ok {
			return []string{v}, nil
		}
		return nil, nil
	}
}

// IndexByField returns an IndexFunc indexing objects by the one value f
// extracts (an empty value is not indexed), e.g.
// IndexByField(func(p *core.Pod) string { return p.Spec.NodeName }).
func IndexByField[T any](f func(T) string) IndexFunc[T] {
	return func(obj T) ([]string, error) {
		if v := f(obj); v != "" {
			return []string{v}, nil
		}
		return nil, nil
	}
}

// IndexPodsByNodeName indexes pods by spec.nodeName; unscheduled pods are
// not indexed. Register it as NodeNameIndex.
func IndexPodsByNodeName(p *core.Pod) ([]string, error) {
	if p == nil || p.Spec.NodeName == "" {
		return nil, nil
	}
	return []string{p.Spec.NodeName}, nil
}
