package patch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Type is a PATCH request's media type; it selects the patch format.
type Type string

// The patch types Kubernetes defines. Apply implements all but ApplyPatch,
// which the API server serves with apiserver/fieldmanager.
const (
	// JSONPatch is RFC 6902: an array of add/remove/replace/move/copy/test
	// operations addressed by JSON pointers.
	JSONPatch Type = "application/json-patch+json"
	// MergePatch is RFC 7386: an object whose members replace, merge into
	// (objects) or delete (null) the document's members. Lists are replaced.
	MergePatch Type = "application/merge-patch+json"
	// StrategicMerge is Kubernetes' strategic merge patch: a merge patch
	// whose lists of objects merge by key and which understands the
	// $patch, $retainKeys, $setElementOrder and $deleteFromPrimitiveList
	// directives.
	StrategicMerge Type = "application/strategic-merge-patch+json"
	// ApplyPatch is server-side apply. Apply returns ErrUnsupported for
	// it: it needs field ownership, which apiserver/fieldmanager keeps.
	ApplyPatch Type = "application/apply-patch+yaml"
)

// Limits that bound the work and memory one Apply call may use.
const (
	// MaxDocumentSize is the largest patch body, and the largest patched
	// document, in bytes (3 MiB, the API server's request limit).
	MaxDocumentSize = 3 << 20
	// MaxOperations is the largest number of operations in a JSON patch
	// (as kube-apiserver limits it).
	MaxOperations = 10000
	// MaxCopyBytes bounds the total size of all values a JSON patch's copy
	// operations duplicate, so repeated copies cannot double the document
	// until memory runs out.
	MaxCopyBytes = MaxDocumentSize
	// MaxArrayShifts bounds how many array elements the inserts and
	// removals of one JSON patch may shift, so that thousands of inserts at
	// the front of a long array cannot occupy the server for minutes.
	MaxArrayShifts = 1 << 25
	// MaxListWork bounds the work of one strategic merge patch, counted in
	// list elements visited and compared, summed over every list it merges
	// (and every map it clears with $retainKeys). A patch that merges into
	// the same long list again and again, or whose elements share a merge
	// key and differ only in a secondary key, stops with ErrTooLarge rather
	// than occupying the server. Honest patches use a small multiple of the
	// document's element count.
	MaxListWork = 1 << 21
)

// Apply applies patch of type t to the JSON document original and returns the
// patched JSON. kind is the object's kind ("Pod", "Deployment", ...), used by
// the strategic merge to look up list merge keys; unknown kinds (and "") fall
// back to field-name defaults. t may carry media-type parameters
// ("; charset=utf-8"), which are ignored.
//
// Apply never modifies original or patch, and on any error returns no
// document. Objects in the result are encoded with sorted keys and numbers
// are kept exactly as written. Errors wrap ErrInvalidPatch (the patch is at
// fault), ErrUnsupported (t is not implemented), ErrTooLarge (the patch or the
// result exceeds the limits above) or ErrInvalidDocument (original is not
// JSON). Apply is safe for concurrent use.
func Apply(t Type, original, patch []byte, kind string) ([]byte, error) {
	t = normalizeType(t)
	switch t {
	case JSONPatch, MergePatch, StrategicMerge:
	case ApplyPatch:
		return nil, fmt.Errorf("%w: %s (server-side apply) is not implemented", ErrUnsupported, t)
	default:
		return nil, fmt.Errorf("%w: %q; use %s, %s or %s", ErrUnsupported, string(t), JSONPatch, MergePatch, StrategicMerge)
	}
	if len(patch) > MaxDocumentSize {
		return nil, fmt.Errorf("%w: patch is %d bytes, the limit is %d", ErrTooLarge, len(patch), MaxDocumentSize)
	}
	doc, err := decodeJSON(original)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidDocument, err)
	}
	var out any
	switch t {
	case JSONPatch:
		out, err = applyJSONPatch(doc, patch)
	case MergePatch:
		out, err = applyMergePatch(doc, patch)
	default:
		out, err = applyStrategicMerge(doc, patch, kind)
	}
	if err != nil {
		return nil, err
	}
	return encodeJSON(out)
}

// normalizeType drops media-type parameters and case from t.
func normalizeType(t Type) Type {
	s, _, _ := strings.Cut(string(t), ";")
	return Type(strings.ToLower(strings.TrimSpace(s)))
}

// encodeJSON encodes v without HTML escaping and enforces MaxDocumentSize.
func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("%w: encode result: %v", ErrInvalidPatch, err)
	}
	out := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if len(out) > MaxDocumentSize {
		return nil, fmt.Errorf("%w: patched document is %d bytes, the limit is %d", ErrTooLarge, len(out), MaxDocumentSize)
	}
	return out, nil
}
