package apiserver

import (
	"encoding"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	apischema "github.com/orkit/orkit/api/apiextensions/schema"
)

// toUnstructured returns obj's JSON form as a map with int64 numbers:
// what decodeUnstructured(json.Marshal(obj)) returns. Every write converts
// its object (and the stored one) for managedFields tracking, so the
// conversion walks obj by reflection instead of encoding it and parsing
// the encoding, which cost a create about a third of its handling. A type
// the walk does not cover exactly as encoding/json would (see
// errNotWalkable) takes the encode-and-parse path.
func toUnstructured(obj any) (map[string]any, error) {
	v, err := walkValue(reflect.ValueOf(obj))
	if errors.Is(err, errNotWalkable) {
		return toUnstructuredJSON(obj)
	}
	if err != nil {
		return nil, err
	}
	return asObject(v)
}

// asObject returns v, a decoded JSON value, as an object.
func asObject(v any) (map[string]any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("expected a JSON object, got %T", v)
	}
	return m, nil
}

// toUnstructuredJSON is toUnstructured by encoding and parsing.
func toUnstructuredJSON(obj any) (map[string]any, error) {
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	return decodeUnstructured(b)
}

// errNotWalkable marks a type whose encoding/json form the walk does not
// reproduce: a pointer-receiver Marshaler, the ",string" option, promoted
// fields with clashing names, map keys that are neither strings nor
// integers.
var errNotWalkable = errors.New("type not walkable")

// walker converts one reflect.Value of a fixed type.
type walker func(v reflect.Value) (any, error)

// walkers caches a walker per type.
var walkers sync.Map // reflect.Type → walker

var (
	jsonMarshalerType = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	isZeroerType      = reflect.TypeFor[interface{ IsZero() bool }]()
)

func walkValue(v reflect.Value) (any, error) {
	if !v.IsValid() {
		return nil, nil
	}
	return walkerFor(v.Type())(v)
}

// walkerFor returns t's walker, building it on first use. A recursive type
// reaches itself while its walker is being built; the cache then holds a
// forwarder that waits for the finished walker.
func walkerFor(t reflect.Type) walker {
	if w, ok := walkers.Load(t); ok {
		return w.(walker)
	}
	var (
		built walker
		ready sync.WaitGroup
	)
	ready.Add(1)
	forward := walker(func(v reflect.Value) (any, error) {
		ready.Wait()
		return built(v)
	})
	if w, loaded := walkers.LoadOrStore(t, forward); loaded {
		return w.(walker)
	}
	built = newWalker(t)
	ready.Done()
	walkers.Store(t, built)
	return built
}

func notWalkable(reflect.Value) (any, error) { return nil, errNotWalkable }

func newWalker(t reflect.Type) walker {
	if t.Implements(jsonMarshalerType) {
		return walkMarshaler
	}
	if t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(jsonMarshalerType) {
		return notWalkable
	}
	if t.Implements(textMarshalerType) {
		return walkTextMarshaler
	}
	if t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(textMarshalerType) {
		return notWalkable
	}
	switch t.Kind() {
	case reflect.Bool:
		return func(v reflect.Value) (any, error) { return v.Bool(), nil }
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return func(v reflect.Value) (any, error) { return v.Int(), nil }
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return walkUint
	case reflect.Float32, reflect.Float64:
		return walkByJSON
	case reflect.String:
		return walkString
	case reflect.Interface:
		return func(v reflect.Value) (any, error) {
			if v.IsNil() {
				return nil, nil
			}
			return walkValue(v.Elem())
		}
	case reflect.Pointer:
		elem := walkerFor(t.Elem())
		return func(v reflect.Value) (any, error) {
			if v.IsNil() {
				return nil, nil
			}
			return elem(v.Elem())
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 && !reflect.PointerTo(t.Elem()).Implements(jsonMarshalerType) && !reflect.PointerTo(t.Elem()).Implements(textMarshalerType) {
			return func(v reflect.Value) (any, error) {
				if v.IsNil() {
					return nil, nil
				}
				return base64.StdEncoding.EncodeToString(v.Bytes()), nil
			}
		}
		elem := walkerFor(t.Elem())
		return func(v reflect.Value) (any, error) {
			if v.IsNil() {
				return nil, nil
			}
			return walkElems(v, elem)
		}
	case reflect.Array:
		elem := walkerFor(t.Elem())
		return func(v reflect.Value) (any, error) { return walkElems(v, elem) }
	case reflect.Map:
		return newMapWalker(t)
	case reflect.Struct:
		return newStructWalker(t)
	}
	return walkByJSON // channels, functions: encoding/json's error
}

// walkByJSON converts one value by encoding and parsing it: numbers
// whose canonical form depends on their encoding, and values
// encoding/json refuses (its error is the answer).
func walkByJSON(v reflect.Value) (any, error) {
	b, err := json.Marshal(v.Interface())
	if err != nil {
		return nil, err
	}
	return apischema.DecodeJSON(b)
}

func walkMarshaler(v reflect.Value) (any, error) {
	if v.Kind() == reflect.Pointer && v.IsNil() {
		return nil, nil
	}
	m, ok := v.Interface().(json.Marshaler)
	if !ok {
		return nil, nil // a nil interface
	}
	b, err := m.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("json: error calling MarshalJSON for type %s: %w", v.Type(), err)
	}
	return decodeLiteral(b)
}

// decodeLiteral parses a Marshaler's output. Most are a plain string
// (times, quantities) or null, read here without a JSON decoder.
func decodeLiteral(b []byte) (any, error) {
	if string(b) == "null" {
		return nil, nil
	}
	if n := len(b); n >= 2 && b[0] == '"' && b[n-1] == '"' {
		plain := true
		for _, c := range b[1 : n-1] {
			if c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
				plain = false
				break
			}
		}
		if plain {
			return string(b[1 : n-1]), nil
		}
	}
	return apischema.DecodeJSON(b)
}

func walkTextMarshaler(v reflect.Value) (any, error) {
	if v.Kind() == reflect.Pointer && v.IsNil() {
		return nil, nil
	}
	m, ok := v.Interface().(encoding.TextMarshaler)
	if !ok {
		return nil, nil // a nil interface
	}
	b, err := m.MarshalText()
	if err != nil {
		return nil, fmt.Errorf("json: error calling MarshalText for type %s: %w", v.Type(), err)
	}
	return validString(string(b))
}

func walkUint(v reflect.Value) (any, error) {
	u := v.Uint()
	if u > math.MaxInt64 {
		return float64(u), nil // what parsing its decimal form gives
	}
	return int64(u), nil
}

func walkString(v reflect.Value) (any, error) { return validString(v.String()) }

// validString is s as encoding/json round-trips it: invalid UTF-8 bytes
// become U+FFFD.
func validString(s string) (any, error) {
	if utf8.ValidString(s) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		b.WriteRune(r) // RuneError for an invalid byte
		i += n
	}
	return b.String(), nil
}

func walkElems(v reflect.Value, elem walker) (any, error) {
	out := make([]any, v.Len())
	for i := range out {
		e, err := elem(v.Index(i))
		if err != nil {
			return nil, err
		}
		out[i] = e
	}
	return out, nil
}

func newMapWalker(t reflect.Type) walker {
	var key func(reflect.Value) string
	switch k := t.Key(); {
	case k.Kind() == reflect.String:
		key = func(v reflect.Value) string { return v.String() }
	case k.Implements(textMarshalerType):
		return notWalkable
	case k.Kind() >= reflect.Int && k.Kind() <= reflect.Int64:
		key = func(v reflect.Value) string { return strconv.FormatInt(v.Int(), 10) }
	case k.Kind() >= reflect.Uint && k.Kind() <= reflect.Uintptr:
		key = func(v reflect.Value) string { return strconv.FormatUint(v.Uint(), 10) }
	default:
		return walkByJSON // encoding/json's error
	}
	w := walkerFor(t.Elem())
	return func(v reflect.Value) (any, error) {
		if v.IsNil() {
			return nil, nil
		}
		out := make(map[string]any, v.Len())
		for it := v.MapRange(); it.Next(); {
			e, err := w(it.Value())
			if err != nil {
				return nil, err
			}
			k, err := validString(key(it.Key()))
			if err != nil {
				return nil, err
			}
			out[k.(string)] = e
		}
		return out, nil
	}
}

// jsonField is a struct field as encoding/json encodes it.
type jsonField struct {
	name      string
	index     []int // through embedded structs
	omitEmpty bool
	omitZero  func(reflect.Value) bool
	walk      walker
}

func newStructWalker(t reflect.Type) walker {
	fields, ok := jsonFields(t, nil, map[reflect.Type]bool{})
	if !ok {
		return notWalkable
	}
	seen := map[string]bool{}
	for i, f := range fields {
		if seen[f.name] {
			return notWalkable // encoding/json's dominance rules decide
		}
		seen[f.name] = true
		fields[i].walk = walkerFor(t.FieldByIndex(f.index).Type)
	}
	return func(v reflect.Value) (any, error) {
		// Most fields are usually omitted: a small map grows as needed.
		out := make(map[string]any, min(len(fields), 8))
		for _, f := range fields {
			fv, ok := fieldByIndex(v, f.index)
			if !ok {
				continue // behind a nil embedded pointer
			}
			if f.omitEmpty && isEmptyValue(fv) || f.omitZero != nil && f.omitZero(fv) {
				continue
			}
			e, err := f.walk(fv)
			if err != nil {
				return nil, err
			}
			out[f.name] = e
		}
		return out, nil
	}
}

// jsonFields lists t's encoded fields, embedded structs' fields in place
// of the struct. It is false for an option the walk does not reproduce.
func jsonFields(t reflect.Type, index []int, visiting map[reflect.Type]bool) ([]jsonField, bool) {
	if visiting[t] {
		return nil, false
	}
	visiting[t] = true
	defer delete(visiting, t)
	var out []jsonField
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		idx := append(append([]int(nil), index...), i)
		if sf.Anonymous && name == "" {
			et := sf.Type
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
				if !sf.IsExported() && et.Kind() == reflect.Struct {
					return nil, false
				}
			}
			if et.Kind() == reflect.Struct {
				inner, ok := jsonFields(et, idx, visiting)
				if !ok {
					return nil, false
				}
				out = append(out, inner...)
				continue
			}
			if !sf.IsExported() {
				continue
			}
		} else if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		f := jsonField{name: name, index: idx}
		for opt := range strings.SplitSeq(opts, ",") {
			switch opt {
			case "omitempty":
				f.omitEmpty = true
			case "omitzero":
				f.omitZero = zeroTest(sf.Type)
			case "string":
				return nil, false
			}
		}
		out = append(out, f)
	}
	return out, true
}

// fieldByIndex follows index from struct v; false when an embedded
// pointer on the way is nil (encoding/json skips such fields).
func fieldByIndex(v reflect.Value, index []int) (reflect.Value, bool) {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return reflect.Value{}, false
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v, true
}

// zeroTest is omitzero's test for type t: its IsZero method when it has
// one, else the zero value.
func zeroTest(t reflect.Type) func(reflect.Value) bool {
	switch {
	case t.Kind() == reflect.Interface && t.Implements(isZeroerType):
		return func(v reflect.Value) bool {
			return v.IsNil() || v.Elem().Kind() == reflect.Pointer && v.Elem().IsNil() ||
				v.Interface().(interface{ IsZero() bool }).IsZero()
		}
	case t.Implements(isZeroerType):
		return func(v reflect.Value) bool {
			if v.Kind() == reflect.Pointer && v.IsNil() {
				return true
			}
			return v.Interface().(interface{ IsZero() bool }).IsZero()
		}
	case reflect.PointerTo(t).Implements(isZeroerType):
		return func(v reflect.Value) bool {
			if !v.CanAddr() {
				c := reflect.New(t).Elem()
				c.Set(v)
				v = c
			}
			return v.Addr().Interface().(interface{ IsZero() bool }).IsZero()
		}
	}
	return reflect.Value.IsZero
}

// isEmptyValue is omitempty's test, as encoding/json defines it.
func isEmptyValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Interface, reflect.Pointer:
		return v.IsNil()
	}
	return false
}
