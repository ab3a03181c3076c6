package patch

import (
	"errors"
	"fmt"
	"slices"
)

// This file navigates and edits a decoded JSON document by JSON pointer.
// Every editing function returns the new root, because inserting into or
// removing from an array makes a new slice that the array's parent must hold.
// Inserting and removing add the number of array elements they shift to
// *moved, so callers can bound the work of many edits to a long array.

// getValue returns the value p addresses in doc.
func getValue(doc any, p pointer) (any, error) {
	for _, tok := range p {
		var err error
		if doc, err = child(doc, tok); err != nil {
			return nil, err
		}
	}
	return doc, nil
}

// addValue implements RFC 6902 "add": set an object member (creating or
// replacing it) or insert into an array (at an index up to its length, or at
// "-" to append). The empty pointer replaces the whole document.
func addValue(doc any, p pointer, v any, moved *int) (any, error) {
	if len(p) == 0 {
		return v, nil
	}
	return modify(doc, p, func(parent any, tok string) (any, error) {
		switch c := parent.(type) {
		case map[string]any:
			c[tok] = v
			return c, nil
		case []any:
			i, err := arrayIndex(tok, len(c), true)
			if err != nil {
				return nil, err
			}
			*moved += len(c) - i
			return slices.Insert(c, i, v), nil
		}
		return nil, fmt.Errorf("cannot add %q to a %s", tok, typeName(parent))
	})
}

// removeValue implements RFC 6902 "remove" and returns the removed value.
// The target must exist; the document root cannot be removed.
func removeValue(doc any, p pointer, moved *int) (any, any, error) {
	if len(p) == 0 {
		return nil, nil, errors.New("cannot remove the whole document")
	}
	var removed any
	doc, err := modify(doc, p, func(parent any, tok string) (any, error) {
		switch c := parent.(type) {
		case map[string]any:
			v, ok := c[tok]
			if !ok {
				return nil, fmt.Errorf("member %q not found", tok)
			}
			removed = v
			delete(c, tok)
			return c, nil
		case []any:
			i, err := arrayIndex(tok, len(c), false)
			if err != nil {
				return nil, err
			}
			removed = c[i]
			*moved += len(c) - i - 1
			return slices.Delete(c, i, i+1), nil
		}
		return nil, fmt.Errorf("cannot remove %q from a %s", tok, typeName(parent))
	})
	return doc, removed, err
}

// replaceValue implements RFC 6902 "replace": the target must exist.
func replaceValue(doc any, p pointer, v any) (any, error) {
	if len(p) == 0 {
		return v, nil
	}
	return modify(doc, p, func(parent any, tok string) (any, error) {
		switch c := parent.(type) {
		case map[string]any:
			if _, ok := c[tok]; !ok {
				return nil, fmt.Errorf("member %q not found", tok)
			}
			c[tok] = v
			return c, nil
		case []any:
			i, err := arrayIndex(tok, len(c), false)
			if err != nil {
				return nil, err
			}
			c[i] = v
			return c, nil
		}
		return nil, fmt.Errorf("cannot replace %q in a %s", tok, typeName(parent))
	})
}

// modify walks doc along all but the last token of p (which must be
// non-empty), calls edit with the container found there and the last token,
// and stores edit's result back into the container's parent. It returns the
// new root.
func modify(doc any, p pointer, edit func(parent any, tok string) (any, error)) (any, error) {
	if len(p) == 1 {
		return edit(doc, p[0])
	}
	c, err := child(doc, p[0])
	if err != nil {
		return nil, err
	}
	nc, err := modify(c, p[1:], edit)
	if err != nil {
		return nil, err
	}
	switch d := doc.(type) {
	case map[string]any:
		d[p[0]] = nc
	case []any:
		i, _ := arrayIndex(p[0], len(d), false) // child checked it
		d[i] = nc
	}
	return doc, nil
}

// child returns the member or element tok of doc.
func child(doc any, tok string) (any, error) {
	switch c := doc.(type) {
	case map[string]any:
		v, ok := c[tok]
		if !ok {
			return nil, fmt.Errorf("member %q not found", tok)
		}
		return v, nil
	case []any:
		i, err := arrayIndex(tok, len(c), false)
		if err != nil {
			return nil, err
		}
		return c[i], nil
	}
	return nil, fmt.Errorf("cannot look up %q in a %s", tok, typeName(doc))
}
