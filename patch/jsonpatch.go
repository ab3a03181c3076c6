package patch

import (
	"errors"
	"fmt"
)

// operation is one parsed RFC 6902 operation.
type operation struct {
	index int     // position in the patch array
	op    string  // add, remove, replace, move, copy or test
	raw   string  // path as written, for errors
	path  pointer // target location
	from  pointer // source location of move and copy
	value any     // value of add, replace and test
}

// budget is what the rest of one JSON patch may still spend.
type budget struct {
	copyBytes int // bytes copy operations may still duplicate
	shifts    int // array elements inserts and removals may still move
}

// applyJSONPatch applies the RFC 6902 patch in data to doc, operation by
// operation. The first failure stops it; the caller discards doc, so the
// patch is all or nothing. Copies are charged against MaxCopyBytes and
// array inserts and removals against MaxArrayShifts.
func applyJSONPatch(doc any, data []byte) (any, error) {
	ops, err := parseOperations(data)
	if err != nil {
		return nil, err
	}
	b := budget{copyBytes: MaxCopyBytes, shifts: MaxArrayShifts}
	for i := range ops {
		if doc, err = ops[i].apply(doc, &b); err != nil {
			return nil, err
		}
	}
	return doc, nil
}

// parseOperations decodes and checks every operation before any is applied.
func parseOperations(data []byte) ([]operation, error) {
	v, err := decodeJSON(data)
	if err != nil {
		return nil, fmt.Errorf("%w: JSON patch: %v", ErrInvalidPatch, err)
	}
	list, ok := v.([]any)
	if !ok {
		return nil, invalidf("JSON patch must be a JSON array of operations, got %s", typeName(v))
	}
	if len(list) > MaxOperations {
		return nil, fmt.Errorf("%w: JSON patch has %d operations, the limit is %d", ErrTooLarge, len(list), MaxOperations)
	}
	ops := make([]operation, len(list))
	for i, e := range list {
		if ops[i], err = parseOperation(i, e); err != nil {
			return nil, err
		}
	}
	return ops, nil
}

// parseOperation checks one operation object: op known, path (and from) valid
// pointers, value present where the op needs one. Other members are ignored,
// as RFC 6902 requires.
func parseOperation(i int, e any) (operation, error) {
	o := operation{index: i}
	m, ok := e.(map[string]any)
	if !ok {
		return o, o.fail(ErrInvalidPatch, "an operation must be a JSON object, got %s", typeName(e))
	}
	rawOp, ok := m["op"]
	if o.op, _ = rawOp.(string); !ok || o.op == "" {
		return o, o.fail(ErrInvalidPatch, `missing "op" (a non-empty string)`)
	}
	rawPath, ok := m["path"]
	if o.raw, _ = rawPath.(string); !ok {
		return o, o.fail(ErrInvalidPatch, `missing "path"`)
	}
	if _, isString := rawPath.(string); !isString {
		return o, o.fail(ErrInvalidPatch, `"path" must be a string, got %s`, typeName(rawPath))
	}
	var err error
	if o.path, err = parsePointer(o.raw); err != nil {
		return o, o.fail(ErrInvalidPatch, "path: %v", err)
	}
	switch o.op {
	case "add", "replace", "test":
		if o.value, ok = m["value"]; !ok {
			return o, o.fail(ErrInvalidPatch, `missing "value"`)
		}
	case "move", "copy":
		from, isString := m["from"].(string)
		if !isString {
			return o, o.fail(ErrInvalidPatch, `missing "from" (a string)`)
		}
		if o.from, err = parsePointer(from); err != nil {
			return o, o.fail(ErrInvalidPatch, "from: %v", err)
		}
	case "remove":
	default:
		return o, o.fail(ErrInvalidPatch, "unknown op %q; want add, remove, replace, move, copy or test", o.op)
	}
	return o, nil
}

// fail returns an *OperationError for o wrapping sentinel.
func (o *operation) fail(sentinel error, format string, args ...any) error {
	return &OperationError{Index: o.index, Op: o.op, Path: o.raw, Reason: fmt.Sprintf(format, args...), Err: sentinel}
}

// apply applies o to doc and returns the new document, charging b.
func (o *operation) apply(doc any, b *budget) (any, error) {
	var err error
	moved := 0
	switch o.op {
	case "add":
		doc, err = addValue(doc, o.path, o.value, &moved)
	case "remove":
		doc, _, err = removeValue(doc, o.path, &moved)
	case "replace":
		doc, err = replaceValue(doc, o.path, o.value)
	case "move":
		doc, err = o.move(doc, &moved)
	case "copy":
		doc, err = o.copy(doc, b, &moved)
	case "test":
		var v any
		if v, err = getValue(doc, o.path); err == nil && !equal(v, o.value) {
			return nil, o.fail(ErrTestFailed, "the value at the path is not equal to the operation's value")
		}
	}
	if err != nil {
		var opErr *OperationError
		if errors.As(err, &opErr) {
			return nil, err
		}
		return nil, o.fail(ErrInvalidPatch, "%v", err)
	}
	if b.shifts -= moved; b.shifts < 0 {
		return nil, o.fail(ErrTooLarge, "array inserts and removals in this patch shift more than %d elements", MaxArrayShifts)
	}
	return doc, nil
}

// move removes the value at o.from and adds it at o.path.
func (o *operation) move(doc any, moved *int) (any, error) {
	if o.from.isProperPrefixOf(o.path) {
		return nil, errors.New("cannot move a value into one of its own children")
	}
	if _, err := getValue(doc, o.from); err != nil {
		return nil, fmt.Errorf("from: %w", err)
	}
	if o.from.equalTo(o.path) {
		return doc, nil
	}
	doc, v, err := removeValue(doc, o.from, moved)
	if err != nil {
		return nil, fmt.Errorf("from: %w", err)
	}
	return addValue(doc, o.path, v, moved)
}

// copy adds a deep copy of the value at o.from at o.path, charging its size
// to b.
func (o *operation) copy(doc any, b *budget, moved *int) (any, error) {
	v, err := getValue(doc, o.from)
	if err != nil {
		return nil, fmt.Errorf("from: %w", err)
	}
	size := encodedSize(v, b.copyBytes)
	if size > b.copyBytes {
		return nil, o.fail(ErrTooLarge, "copies in this patch duplicate more than %d bytes", MaxCopyBytes)
	}
	b.copyBytes -= size
	return addValue(doc, o.path, deepCopy(v), moved)
}
