package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
)

// DecodeJSON decodes one JSON value into the canonical form every function
// of this package works on, the form of a Kubernetes unstructured object:
// nil, bool, int64 (integers that fit), float64 (other numbers), string,
// []any and map[string]any. Trailing data after the value is an error.
func DecodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidJSON, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: data after the top-level value", ErrInvalidJSON)
	}
	return Canonical(v)
}

// Canonical converts a value decoded by encoding/json (with or without
// UseNumber) into the canonical form (see DecodeJSON) in place where it
// can; maps and slices are reused. It fails on a Go type JSON cannot hold
// or a number that is neither an int64 nor a finite float64.
func Canonical(v any) (any, error) {
	switch x := v.(type) {
	case nil, bool, string, int64:
		return x, nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("%w: %v is not a JSON number", ErrInvalidJSON, x)
		}
		return x, nil
	case int:
		return int64(x), nil
	case int32:
		return int64(x), nil
	case json.Number:
		return canonicalNumber(string(x))
	case []any:
		for i := range x {
			c, err := Canonical(x[i])
			if err != nil {
				return nil, err
			}
			x[i] = c
		}
		return x, nil
	case map[string]any:
		for k, e := range x {
			c, err := Canonical(e)
			if err != nil {
				return nil, err
			}
			x[k] = c
		}
		return x, nil
	}
	return nil, fmt.Errorf("%w: unsupported Go type %T", ErrInvalidJSON, v)
}

func canonicalNumber(s string) (any, error) {
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return i, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) {
		return nil, fmt.Errorf("%w: number %s out of range", ErrInvalidJSON, s)
	}
	return f, nil
}

// DeepCopyJSON returns a deep copy of a canonical JSON value.
func DeepCopyJSON(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = DeepCopyJSON(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = DeepCopyJSON(e)
		}
		return out
	}
	return v
}

// EqualJSON reports whether two decoded JSON values (maps, slices,
// strings, int64 and float64 numbers, booleans, nil; as DecodeJSON
// returns them) are equal; numbers compare by value (1 equals 1.0).
func EqualJSON(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, e := range x {
			f, ok := y[k]
			if !ok || !EqualJSON(e, f) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !EqualJSON(x[i], y[i]) {
				return false
			}
		}
		return true
	case int64:
		switch y := b.(type) {
		case int64:
			return x == y
		case float64:
			return float64(x) == y
		}
		return false
	case float64:
		switch y := b.(type) {
		case int64:
			return x == float64(y)
		case float64:
			return x == y
		}
		return false
	}
	return a == b
}

// jsonKey renders a canonical value as compact JSON with sorted keys, for
// use as a map key when looking for duplicates. Integral floats render as
// integers so that 1 and 1.0 collide as they compare equal.
func jsonKey(v any) string {
	var b bytes.Buffer
	writeKey(&b, v)
	return b.String()
}

func writeKey(b *bytes.Buffer, v any) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Quote(k))
			b.WriteByte(':')
			writeKey(b, x[k])
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeKey(b, e)
		}
		b.WriteByte(']')
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e18 {
			b.WriteString(strconv.FormatInt(int64(x), 10))
			return
		}
		b.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case string:
		b.WriteString(strconv.Quote(x))
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case nil:
		b.WriteString("null")
	default:
		fmt.Fprintf(b, "%v", x)
	}
}

// typeName is the JSON type of a canonical value as kube-openapi names it
// in type errors.
func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case int64:
		return "integer"
	case float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "unknown"
}
