package patch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// This file holds helpers over decoded JSON values: nil, bool, json.Number,
// string, []any and map[string]any.

// decodeJSON decodes exactly one JSON value from data, keeping numbers as
// json.Number so they round-trip unchanged. Trailing data is an error.
func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("empty body")
		}
		return nil, fmt.Errorf("malformed JSON: %v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("malformed JSON: data after the top-level value")
	}
	return v, nil
}

// typeName names v's JSON type for error messages.
func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// equal reports whether a and b are the same JSON value. Numbers compare by
// value (1, 1.0 and 1e0 are equal); object member order does not matter.
func equal(a, b any) bool {
	switch a := a.(type) {
	case nil:
		return b == nil
	case bool:
		bb, ok := b.(bool)
		return ok && a == bb
	case string:
		bs, ok := b.(string)
		return ok && a == bs
	case json.Number:
		bn, ok := b.(json.Number)
		return ok && (a == bn || canonicalNumber(string(a)) == canonicalNumber(string(bn)))
	case []any:
		bl, ok := b.([]any)
		if !ok || len(a) != len(bl) {
			return false
		}
		for i := range a {
			if !equal(a[i], bl[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok || len(a) != len(bm) {
			return false
		}
		for k, av := range a {
			bv, ok := bm[k]
			if !ok || !equal(av, bv) {
				return false
			}
		}
		return true
	}
	return false
}

// canonicalNumber rewrites a JSON number literal as sign, significant digits
// and exponent ("-12e3"), so that numerically equal literals compare equal
// without converting to a float (which loses precision) or a big.Rat (which
// a literal like 1e999999999 would make enormous). A literal whose exponent
// overflows int64 is returned unchanged.
func canonicalNumber(s string) string {
	orig := s
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	mant, expPart, hasExp := strings.Cut(strings.ToLower(s), "e")
	exp := int64(0)
	if hasExp {
		e, err := strconv.ParseInt(expPart, 10, 64)
		if err != nil {
			return orig
		}
		exp = e
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := strings.TrimLeft(intPart+frac, "0")
	if digits == "" {
		return "0"
	}
	trimmed := strings.TrimRight(digits, "0")
	exp += int64(len(digits)-len(trimmed)) - int64(len(frac))
	sign := ""
	if neg {
		sign = "-"
	}
	return sign + trimmed + "e" + strconv.FormatInt(exp, 10)
}

// identity returns a string that is equal for equal JSON values and differs
// otherwise; it keys merge-key values and set elements. Each JSON type has
// its own first byte: s (string), # (number), n (null), t/f (boolean),
// ~ (object or array, as sorted JSON).
func identity(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(v)
	case string:
		return "s" + v
	case json.Number:
		return "#" + canonicalNumber(string(v))
	}
	b, err := json.Marshal(v) // objects and arrays: sorted keys
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return "~" + string(b)
}

// deepCopy returns a copy of v sharing no maps or slices with it.
func deepCopy(v any) any {
	switch v := v.(type) {
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = deepCopy(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = deepCopy(e)
		}
		return out
	}
	return v
}

// encodedSize estimates the size of v encoded as JSON. It stops counting
// once the size passes limit, so measuring a huge value costs at most about
// limit steps; a result above limit means "more than limit".
func encodedSize(v any, limit int) int {
	switch v := v.(type) {
	case nil:
		return 4
	case bool:
		return 5
	case string:
		return len(v) + 2
	case json.Number:
		return len(v)
	case []any:
		n := 2
		for _, e := range v {
			if n > limit {
				return n
			}
			n += encodedSize(e, limit-n) + 1
		}
		return n
	case map[string]any:
		n := 2
		for k, e := range v {
			if n > limit {
				return n
			}
			n += len(k) + 4 + encodedSize(e, limit-n)
		}
		return n
	}
	return 0
}
