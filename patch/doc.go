// Package patch applies the three PATCH formats the Kubernetes API accepts to
// a JSON document: JSON merge patch (RFC 7386), JSON patch (RFC 6902) and
// strategic merge patch, the Kubernetes extension that kubectl sends for
// built-in kinds.
//
// The one entry point is [Apply]. It takes the current object as JSON, the
// patch body and the object's kind, and returns the patched object as JSON.
// It never modifies its inputs: a patch that fails part-way (a JSON patch
// whose third operation fails, say) returns an error and no document, so the
// caller's original is untouched and the operation is atomic.
//
// Strategic merge patch needs to know, for every list in the object, whether
// it is replaced as a whole (the default), merged as a set of primitives
// (metadata.finalizers) or merged element by element on a merge key
// (spec.containers by name). Kubernetes reads that from struct tags; this
// package carries the same facts as a table keyed by the list's parent path
// and field name, per kind (see schema.go). Kinds the table does not know
// fall back to defaults keyed by field name alone.
//
// List order follows Kubernetes: a $setElementOrder/<field> list fixes the
// order of the elements it names; without one, the patch list's own order
// does. Elements only the original has keep their relative order and are
// interleaved with those, going first when they came first in the original.
// So an element the patch adds without $setElementOrder lands before the
// original-only elements, as kube-apiserver puts it. (kubectl apply, edit
// and set compute two-way patches that carry $setElementOrder lists, so the
// order they ask for is kept exactly.)
//
// Where this package differs from kube-apiserver it is on purpose: numbers
// are kept exactly as written (Kubernetes round-trips them through float64);
// directives inside a value the original lacks are obeyed rather than copied
// into the result; "$patch: merge" is accepted everywhere as the no-op it
// names; and lists whose identity has two parts (Service ports by port and
// protocol, container ports by containerPort and protocol, topology spread
// constraints by topologyKey and whenUnsatisfiable) match on the second part
// too when both elements carry it, so port 53/TCP and 53/UDP stay apart.
//
// Every call is bounded: the patch and the result at most MaxDocumentSize,
// a JSON patch at most MaxOperations operations, MaxCopyBytes copied and
// MaxArrayShifts array elements shifted, and a strategic merge at most
// MaxListWork list elements visited. Exceeding any is ErrTooLarge.
//
// Errors are sentinels from errors.go, wrapped with %w and a message naming
// the operation or field at fault: [ErrInvalidPatch] (400), [ErrUnsupported]
// (415), [ErrTooLarge] (413) and [ErrInvalidDocument] (the original was not
// JSON, a server-side fault). All functions are safe for concurrent use; the
// package holds no state.
package patch
