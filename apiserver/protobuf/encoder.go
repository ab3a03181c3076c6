package protobuf

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	apischema "github.com/orkit/orkit/api/apiextensions/schema"
	"github.com/orkit/orkit/api/meta"
)

// FromJSON converts a Kubernetes object in JSON (apiVersion and kind set)
// into the Kubernetes protobuf encoding: the "k8s\x00" magic and the
// runtime.Unknown envelope around the object's message. It is the inverse
// of ToJSON for every kind ToJSON reads, and also encodes their lists
// ("PodList": {metadata=1 ListMeta, items=2}) and meta/v1 Status.
//
// The conversion is exact or refused: a member the kind's schema does not
// know is ErrUnknownField, a value of the wrong JSON type ErrMalformed, a
// kind without a schema ErrUnknownKind. A server answers in JSON then, so
// no field is ever dropped on the way to a client. FromJSON is safe for
// concurrent use; data is not retained.
func FromJSON(data []byte) ([]byte, error) {
	v, err := apischema.DecodeJSON(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%w: not a JSON object", ErrMalformed)
	}
	apiVersion, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	e := &encoder{reg: defaultRegistry()}
	root, err := e.rootType(apiVersion, kind)
	if err != nil {
		return nil, err
	}
	raw, err := e.message(nil, obj, root)
	if err != nil {
		return nil, err
	}
	return appendEnvelope(make([]byte, 0, len(raw)+len(apiVersion)+len(kind)+16), apiVersion, kind, raw), nil
}

// AppendWatchEvent appends the protobuf meta/v1 WatchEvent {type=1,
// object=2 RawExtension{raw=1}} of one event to dst, without an envelope,
// framed as a watch stream of media type "application/vnd.kubernetes.
// protobuf;stream=watch" carries it: a 4-byte big-endian length, then the
// message. object is the event's object as FromJSON returns it.
func AppendWatchEvent(dst []byte, eventType string, object []byte) []byte {
	ext := appendBytesField(nil, 1, object)
	dst = binary.BigEndian.AppendUint32(dst, 0) // the frame length, set below
	start := len(dst)
	dst = appendBytesField(dst, 1, []byte(eventType))
	dst = appendBytesField(dst, 2, ext)
	binary.BigEndian.PutUint32(dst[start-4:start], uint32(len(dst)-start))
	return dst
}

// appendEnvelope appends the magic and the runtime.Unknown envelope
// {typeMeta{apiVersion=1, kind=2}=1, raw=2, contentEncoding=3,
// contentType=4} around raw.
func appendEnvelope(dst []byte, apiVersion, kind string, raw []byte) []byte {
	tm := appendBytesField(nil, 1, []byte(apiVersion))
	tm = appendBytesField(tm, 2, []byte(kind))
	dst = append(dst, magic...)
	dst = appendBytesField(dst, 1, tm)
	dst = appendBytesField(dst, 2, raw)
	dst = appendBytesField(dst, 3, nil)
	return appendBytesField(dst, 4, nil)
}

// encoder writes one conversion's protobuf. It is not shared between calls.
type encoder struct {
	reg   *registry
	depth int
}

// rootType returns the message type of a kind, its list, or Status.
func (e *encoder) rootType(apiVersion, kind string) (string, error) {
	gvk := meta.ParseGroupVersion(apiVersion).WithKind(kind)
	if root, ok := e.reg.kinds[gvk]; ok {
		return root, nil
	}
	if kind == "Status" {
		return "meta.Status", nil
	}
	if base, ok := strings.CutSuffix(kind, "List"); ok {
		if root, ok := e.reg.kinds[gvk.GroupVersion().WithKind(base)]; ok {
			return listPrefix + root, nil
		}
	}
	return "", fmt.Errorf("%w %s", ErrUnknownKind, gvk)
}

// listPrefix marks the synthetic list message of a root type: every
// Kubernetes list is {metadata=1 ListMeta, items=2 repeated item}.
const listPrefix = "list:"

var listNames = map[string]struct{}{"metadata": {}, "items": {}}

// listFields is the schema of every list message but its item type.
func listFields(item string) fields {
	return fields{1: msg("metadata", "meta.ListMeta"), 2: msgs("items", item)}
}

// message appends the fields of obj as message typ to dst. apiVersion and
// kind, where the schema has no such field, are type information (of the
// root object, list items, embedded objects) and are skipped.
func (e *encoder) message(dst []byte, obj map[string]any, typ string) ([]byte, error) {
	if e.depth++; e.depth > maxDepth {
		return nil, malformed(typ, 0, "nesting deeper than %d", maxDepth)
	}
	defer func() { e.depth-- }()
	m, names, err := e.schemaOf(typ)
	if err != nil {
		return nil, err
	}
	for k := range obj {
		if _, ok := names[k]; !ok && !(k == "apiVersion" || k == "kind") {
			return nil, fmt.Errorf("%w: %s has no field %q", ErrUnknownField, typ, k)
		}
	}
	return e.fields(dst, obj, typ, m)
}

// fields appends the members of obj that message m (of type typ) has; an
// inlined message takes its members from the same object.
func (e *encoder) fields(dst []byte, obj map[string]any, typ string, m message) ([]byte, error) {
	var err error
	for _, num := range m.order {
		fd := m.fields[num]
		if fd.inline {
			sub, err := e.fields(nil, obj, fd.msg, e.reg.messages[fd.msg])
			if err != nil {
				return nil, err
			}
			dst = appendBytesField(dst, num, sub)
			continue
		}
		v, ok := obj[fd.name]
		if !ok {
			continue
		}
		if v == nil {
			// A null Time is Kubernetes' zero time, which it writes as an
			// empty message (and reads back as null); other nulls are absent.
			if fd.kind == kMessage && !fd.repeated && (fd.msg == typeTime || fd.msg == typeMicroTime) {
				dst = appendBytesField(dst, num, nil)
			}
			continue
		}
		if dst, err = e.field(dst, num, fd, v, typ); err != nil {
			return nil, err
		}
	}
	return dst, nil
}

// schemaOf returns message typ and the JSON names it takes, those of its
// inlined messages included.
func (e *encoder) schemaOf(typ string) (message, map[string]struct{}, error) {
	if item, ok := strings.CutPrefix(typ, listPrefix); ok {
		m := message{fields: listFields(item), order: []uint32{1, 2}}
		return m, listNames, nil
	}
	m, ok := e.reg.messages[typ]
	if !ok || m.special != spNone {
		return message{}, nil, malformed(typ, 0, "no message schema")
	}
	return m, e.reg.names[typ], nil
}

// field appends one member's value as field num.
func (e *encoder) field(dst []byte, num uint32, fd field, v any, typ string) ([]byte, error) {
	switch {
	case fd.repeated:
		items, ok := v.([]any)
		if !ok {
			return nil, malformed(typ, num, "%s: want an array, got %T", fd.name, v)
		}
		for _, it := range items {
			var err error
			if dst, err = e.single(dst, num, fd, it, typ); err != nil {
				return nil, err
			}
		}
		return dst, nil
	case fd.kind == kMapString || fd.kind == kMapBytes || fd.kind == kMapMessage:
		return e.mapField(dst, num, fd, v, typ)
	}
	return e.single(dst, num, fd, v, typ)
}

// single appends one value of fd's kind as field num.
func (e *encoder) single(dst []byte, num uint32, fd field, v any, typ string) ([]byte, error) {
	bad := func() ([]byte, error) {
		return nil, malformed(typ, num, "%s: a %T does not fit", fd.name, v)
	}
	switch fd.kind {
	case kString:
		s, ok := v.(string)
		if !ok {
			return bad()
		}
		return appendBytesField(dst, num, []byte(s)), nil
	case kInt32, kInt64:
		n, ok := integer(v)
		if !ok || (fd.kind == kInt32 && (n < math.MinInt32 || n > math.MaxInt32)) {
			return bad()
		}
		return appendVarintField(dst, num, uint64(n)), nil
	case kBool:
		b, ok := v.(bool)
		if !ok {
			return bad()
		}
		var u uint64
		if b {
			u = 1
		}
		return appendVarintField(dst, num, u), nil
	case kDouble:
		f, ok := number(v)
		if !ok {
			return bad()
		}
		dst = appendTag(dst, num, wtFixed64)
		return binary.LittleEndian.AppendUint64(dst, math.Float64bits(f)), nil
	case kBytes:
		s, ok := v.(string)
		if !ok {
			return bad()
		}
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return nil, malformed(typ, num, "%s: %v", fd.name, err)
		}
		return appendBytesField(dst, num, b), nil
	case kMessage:
		sub, err := e.value(v, fd.msg)
		if err != nil {
			return nil, err
		}
		return appendBytesField(dst, num, sub), nil
	}
	return bad()
}

// value returns the message bytes of v as message type typ, special forms
// included.
func (e *encoder) value(v any, typ string) ([]byte, error) {
	if m, ok := e.reg.messages[typ]; ok && m.special != spNone {
		return specialFromJSON(v, typ, m.special)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, malformed(typ, 0, "want an object, got %T", v)
	}
	return e.message(nil, obj, typ)
}

// mapField appends a JSON object as repeated {key=1, value=2} entries.
func (e *encoder) mapField(dst []byte, num uint32, fd field, v any, typ string) ([]byte, error) {
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, malformed(typ, num, "%s: want an object, got %T", fd.name, v)
	}
	for k, val := range obj {
		entry := appendBytesField(nil, 1, []byte(k))
		switch fd.kind {
		case kMapString:
			s, ok := val.(string)
			if !ok {
				return nil, malformed(typ, num, "%s[%q]: want a string, got %T", fd.name, k, val)
			}
			entry = appendBytesField(entry, 2, []byte(s))
		case kMapBytes:
			s, ok := val.(string)
			b, err := base64.StdEncoding.DecodeString(s)
			if !ok || err != nil {
				return nil, malformed(typ, num, "%s[%q]: want a base64 string", fd.name, k)
			}
			entry = appendBytesField(entry, 2, b)
		default:
			if val == nil {
				continue
			}
			sub, err := e.value(val, fd.msg)
			if err != nil {
				return nil, err
			}
			entry = appendBytesField(entry, 2, sub)
		}
		dst = appendBytesField(dst, num, entry)
	}
	return dst, nil
}

// specialFromJSON returns the message of a type whose JSON is not an
// object of its fields (see special).
func specialFromJSON(v any, typ string, k special) ([]byte, error) {
	bad := func() ([]byte, error) { return nil, malformed(typ, 0, "a %T does not fit", v) }
	switch k {
	case spTime, spMicroTime:
		s, ok := v.(string)
		if !ok {
			return bad()
		}
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return nil, malformed(typ, 0, "%v", err)
		}
		out := appendVarintField(nil, 1, uint64(t.Unix()))
		return appendVarintField(out, 2, uint64(int64(t.Nanosecond()))), nil
	case spDuration:
		s, ok := v.(string)
		if !ok {
			return bad()
		}
		d, err := time.ParseDuration(s)
		if err != nil {
			return nil, malformed(typ, 0, "%v", err)
		}
		return appendVarintField(nil, 1, uint64(int64(d))), nil
	case spQuantity:
		switch q := v.(type) {
		case string:
			return appendBytesField(nil, 1, []byte(q)), nil
		case int64:
			return appendBytesField(nil, 1, strconv.AppendInt(nil, q, 10)), nil
		}
		return bad()
	case spIntOrString:
		switch x := v.(type) {
		case string:
			return appendBytesField(appendVarintField(nil, 1, 1), 3, []byte(x)), nil
		case int64:
			if x < math.MinInt32 || x > math.MaxInt32 {
				return bad()
			}
			return appendVarintField(appendVarintField(nil, 1, 0), 2, uint64(x)), nil
		}
		return bad()
	case spRawJSON:
		b, err := json.Marshal(v)
		if err != nil {
			return nil, malformed(typ, 0, "%v", err)
		}
		return appendBytesField(nil, 1, b), nil
	case spStringList:
		items, ok := v.([]any)
		if !ok {
			return bad()
		}
		var out []byte
		for _, it := range items {
			s, ok := it.(string)
			if !ok {
				return bad()
			}
			out = appendBytesField(out, 1, []byte(s))
		}
		return out, nil
	}
	return bad()
}

// integer returns v as an int64 if it is an integral JSON number.
func integer(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case float64:
		if n == math.Trunc(n) && n >= math.MinInt64 && n <= math.MaxInt64 {
			return int64(n), true
		}
	}
	return 0, false
}

// number returns v as a float64 if it is a JSON number.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

func appendTag(dst []byte, num uint32, wt wireType) []byte {
	return binary.AppendUvarint(dst, uint64(num)<<3|uint64(wt))
}

func appendVarintField(dst []byte, num uint32, v uint64) []byte {
	return binary.AppendUvarint(appendTag(dst, num, wtVarint), v)
}

func appendBytesField(dst []byte, num uint32, b []byte) []byte {
	dst = binary.AppendUvarint(appendTag(dst, num, wtBytes), uint64(len(b)))
	return append(dst, b...)
}
