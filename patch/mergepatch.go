package patch

import "fmt"

// applyMergePatch applies the RFC 7386 merge patch in data to doc. The patch
// must be a JSON object: Kubernetes objects are objects, and a patch that
// would replace the whole object with a scalar or array is rejected.
func applyMergePatch(doc any, data []byte) (any, error) {
	p, err := decodeJSON(data)
	if err != nil {
		return nil, fmt.Errorf("%w: merge patch: %v", ErrInvalidPatch, err)
	}
	if _, ok := p.(map[string]any); !ok {
		return nil, invalidf("merge patch must be a JSON object, got %s", typeName(p))
	}
	return mergePatch(doc, p), nil
}

// mergePatch is RFC 7386's MergePatch(Target, Patch): a null member deletes,
// an object member merges recursively, anything else replaces. It reuses
// target's maps (callers pass a freshly decoded document) and returns the
// result.
func mergePatch(target, patch any) any {
	p, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	t, ok := target.(map[string]any)
	if !ok {
		t = make(map[string]any, len(p))
	}
	for k, v := range p {
		if v == nil {
			delete(t, k)
			continue
		}
		t[k] = mergePatch(t[k], v)
	}
	return t
}
