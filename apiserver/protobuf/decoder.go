package protobuf

import (
	"bytes"
	"fmt"
	"sort"
	"sync"

	"github.com/orkit/orkit/api/meta"
)

// ContentType is the media type of Kubernetes protobuf request bodies, as
// kubectl and client-go's typed clients send them.
const ContentType = "application/vnd.kubernetes.protobuf"

// magic starts every Kubernetes protobuf body.
var magic = []byte("k8s\x00")

const (
	// maxDepth bounds message nesting (the deepest Kubernetes path, a
	// pod template's probe header, is about a dozen levels).
	maxDepth = 64
	// outputFactor and outputSlack bound the JSON written: at most
	// outputFactor bytes per input byte plus outputSlack. The schema gives
	// well under this (the longest key per two-byte empty field).
	outputFactor = 32
	outputSlack  = 4096
)

// registry is the schema of every message type and the table of kinds.
// It is immutable after construction.
type registry struct {
	messages schema
	kinds    map[meta.GroupVersionKind]string
	// names are the JSON member names of each message type, those of its
	// inlined messages included (what FromJSON accepts).
	names map[string]map[string]struct{}
}

// defaultRegistry builds the registry on first use; it is shared,
// read-only, by every call.
var defaultRegistry = sync.OnceValue(func() *registry {
	s := newSchema()
	for name, m := range s {
		m.order = make([]uint32, 0, len(m.fields))
		for num := range m.fields {
			m.order = append(m.order, num)
		}
		sort.Slice(m.order, func(i, j int) bool { return m.order[i] < m.order[j] })
		s[name] = m
	}
	names := make(map[string]map[string]struct{}, len(s))
	for name := range s {
		names[name] = jsonNames(s, name, map[string]struct{}{}, 0)
	}
	return &registry{messages: s, kinds: kindTable(), names: names}
})

// jsonNames adds the JSON member names of message typ to into, descending
// into inlined messages.
func jsonNames(s schema, typ string, into map[string]struct{}, depth int) map[string]struct{} {
	if depth > maxDepth {
		return into
	}
	for _, f := range s[typ].fields {
		if f.inline {
			jsonNames(s, f.msg, into, depth+1)
			continue
		}
		into[f.name] = struct{}{}
	}
	return into
}

// ToJSON converts a protobuf-encoded Kubernetes object — the "k8s\x00"
// magic followed by a runtime.Unknown envelope {typeMeta{apiVersion=1,
// kind=2}=1, raw=2, contentEncoding=3, contentType=4} — into the JSON
// Kubernetes would send for the same object, and returns its
// apiVersion/kind.
//
// The JSON is a new slice owned by the caller; data is not retained. Errors
// wrap ErrNotProtobuf (no magic), ErrUnknownKind (the returned gvk names
// the kind), or ErrMalformed. ToJSON is safe for concurrent use.
func ToJSON(data []byte) (json []byte, gvk meta.GroupVersionKind, err error) {
	d := &decoder{reg: defaultRegistry(), limit: outputFactor*len(data) + outputSlack}
	d.out = make([]byte, 0, 2*len(data)+64) // typical JSON is 1.5-2.5 times the protobuf
	gvk, err = d.convert(data)
	if err != nil {
		return nil, gvk, err
	}
	return d.out, gvk, nil
}

// decoder writes one conversion's JSON. It is not shared between calls.
type decoder struct {
	reg   *registry
	out   []byte
	limit int
	depth int
}

// envelope is the decoded runtime.Unknown wrapper.
type envelope struct {
	apiVersion, kind, contentEncoding []byte
	raw                               []byte
}

// convert writes the JSON of one enveloped object to d.out.
func (d *decoder) convert(data []byte) (meta.GroupVersionKind, error) {
	if !bytes.HasPrefix(data, magic) {
		return meta.GroupVersionKind{}, ErrNotProtobuf
	}
	env, err := readEnvelope(data[len(magic):])
	if err != nil {
		return meta.GroupVersionKind{}, err
	}
	gvk := meta.ParseGroupVersion(string(env.apiVersion)).WithKind(string(env.kind))
	if len(env.kind) == 0 {
		return gvk, malformed("runtime.Unknown", 0, "the envelope names no kind")
	}
	if len(env.contentEncoding) != 0 {
		return gvk, malformed("runtime.Unknown", 3, "content encoding %q is not supported", env.contentEncoding)
	}
	root, ok := d.reg.kinds[gvk]
	if !ok && gvk.Kind == kindDeleteOptions {
		root, ok = "meta.DeleteOptions", true
	}
	if !ok {
		return gvk, fmt.Errorf("%w %s", ErrUnknownKind, gvk)
	}
	d.out = append(d.out, `{"apiVersion":`...)
	d.out = appendJSONString(d.out, env.apiVersion)
	d.out = append(d.out, `,"kind":`...)
	d.out = appendJSONString(d.out, env.kind)
	first := false
	if err := d.fields(spans{env.raw}, root, &first); err != nil {
		return gvk, err
	}
	d.out = append(d.out, '}')
	return gvk, nil
}

// readEnvelope reads the runtime.Unknown message.
func readEnvelope(b []byte) (envelope, error) {
	const typ = "runtime.Unknown"
	var env envelope
	err := spans{b}.each(typ, func(f wireField) error {
		if f.num > 4 {
			return nil
		}
		if f.typ != wtBytes {
			return malformed(typ, f.num, "wire type %d, want 2", f.typ)
		}
		switch f.num {
		case 1:
			return spans{f.b}.each("runtime.TypeMeta", func(t wireField) error {
				if t.num > 2 {
					return nil
				}
				if t.typ != wtBytes {
					return malformed("runtime.TypeMeta", t.num, "wire type %d, want 2", t.typ)
				}
				if t.num == 1 {
					env.apiVersion = t.b
				} else {
					env.kind = t.b
				}
				return nil
			})
		case 2:
			env.raw = f.b
		case 3:
			env.contentEncoding = f.b
		}
		return nil
	})
	return env, err
}

// enter and leave bound nesting depth.
func (d *decoder) enter(typ string) error {
	d.depth++
	if d.depth > maxDepth {
		return malformed(typ, 0, "nesting deeper than %d", maxDepth)
	}
	return nil
}

func (d *decoder) leave() { d.depth-- }

// message writes the JSON value of a message of type typ.
func (d *decoder) message(sp spans, typ string) error {
	m, ok := d.reg.messages[typ]
	if !ok {
		return fmt.Errorf("protobuf: schema has no message %q", typ)
	}
	if m.special != spNone {
		return d.special(sp, typ, m.special)
	}
	d.out = append(d.out, '{')
	first := true
	if err := d.fields(sp, typ, &first); err != nil {
		return err
	}
	d.out = append(d.out, '}')
	return nil
}

// occurrence is what the validating pass learns about one field number of
// a message: how often it occurs and its last occurrence.
type occurrence struct {
	n    int
	last wireField
}

// fields writes the JSON members of a message of type typ into the object
// being written; first says whether no member has been written yet.
//
// A first pass validates every field and records, per known field number,
// the count and the last occurrence; a field that occurs once (the usual
// case) is then written without scanning the message again.
func (d *decoder) fields(sp spans, typ string, first *bool) error {
	if err := d.enter(typ); err != nil {
		return err
	}
	defer d.leave()
	m := d.reg.messages[typ]
	var occ [64]occurrence // a plain loop, not spans.each: occ stays on the stack
	for _, b := range sp {
		for len(b) > 0 {
			f, n, err := readField(b)
			if err != nil {
				return malformed(typ, 0, "%v", err)
			}
			b = b[n:]
			fd, ok := m.fields[f.num]
			if !ok {
				continue
			}
			if !wireTypeFits(fd, f.typ) {
				return malformed(typ, f.num, "wire type %d does not fit %s", f.typ, fd.name)
			}
			occ[f.num].n++
			occ[f.num].last = f
		}
	}
	for _, num := range m.order {
		if occ[num].n == 0 {
			if fd := m.fields[num]; fd.nullIfAbsent {
				d.key(fd.name, first)
				d.out = append(d.out, "null"...)
			}
			continue
		}
		if err := d.field(sp, typ, occ[num], m.fields[num], first); err != nil {
			return err
		}
		if len(d.out) > d.limit {
			return malformed(typ, num, "JSON output exceeds %d bytes", d.limit)
		}
	}
	return nil
}

// wireTypeFits reports whether a field of kind fd may arrive as wt.
// Repeated numeric fields may also be packed.
func wireTypeFits(fd field, wt wireType) bool {
	switch fd.kind {
	case kInt32, kInt64, kBool:
		return wt == wtVarint || (fd.repeated && wt == wtBytes)
	case kDouble:
		return wt == wtFixed64 || (fd.repeated && wt == wtBytes)
	default:
		return wt == wtBytes
	}
}

// key writes the member name, preceded by a comma unless it is the first.
func (d *decoder) key(name string, first *bool) {
	if !*first {
		d.out = append(d.out, ',')
	}
	*first = false
	d.out = appendJSONString(d.out, []byte(name))
	d.out = append(d.out, ':')
}

// field writes the field that occ describes as one member of the object,
// or as the members of an inlined message.
func (d *decoder) field(sp spans, typ string, occ occurrence, fd field, first *bool) error {
	if occ.n == 1 {
		sp = nil // the only occurrence is occ.last: no need to scan sp again
	}
	switch {
	case fd.inline:
		return d.fields(occ.payloads(sp, typ), fd.msg, first)
	case fd.repeated:
		d.key(fd.name, first)
		return d.repeated(occ.each(sp, typ), typ, fd)
	case fd.kind == kMessage:
		d.key(fd.name, first)
		return d.message(occ.payloads(sp, typ), fd.msg)
	case fd.kind == kMapString || fd.kind == kMapBytes || fd.kind == kMapMessage:
		d.key(fd.name, first)
		return d.mapField(occ.each(sp, typ), typ, fd)
	default:
		if !fd.keepZero && occ.last.v == 0 && len(occ.last.b) == 0 {
			return nil // the last occurrence wins, and it is a zero left out
		}
		d.key(fd.name, first)
		return d.scalar(occ.last, fd.kind, typ)
	}
}

// payloads returns the payloads of every occurrence of a length-delimited
// field, to be merged as one message. sp is nil when the field occurs once.
// sp was validated by the first pass, so scanning it cannot fail.
func (o occurrence) payloads(sp spans, typ string) spans {
	if sp == nil {
		return spans{o.last.b}
	}
	var out spans
	_ = sp.each(typ, func(f wireField) error {
		if f.num == o.last.num {
			out = append(out, f.b)
		}
		return nil
	})
	return out
}

// each returns an iterator over every occurrence of the field in wire
// order. sp is nil when the field occurs once.
func (o occurrence) each(sp spans, typ string) func(fn func(wireField) error) error {
	return func(fn func(wireField) error) error {
		if sp == nil {
			return fn(o.last)
		}
		return sp.each(typ, func(f wireField) error {
			if f.num != o.last.num {
				return nil
			}
			return fn(f)
		})
	}
}

// scalar writes one scalar value.
func (d *decoder) scalar(f wireField, k fieldKind, typ string) error {
	switch k {
	case kString:
		d.out = appendJSONString(d.out, f.b)
	case kBytes:
		d.out = appendBase64(d.out, f.b)
	case kInt32:
		d.out = appendInt(d.out, int64(int32(f.v)))
	case kInt64:
		d.out = appendInt(d.out, int64(f.v))
	case kBool:
		d.out = appendBool(d.out, f.v != 0)
	case kDouble:
		return d.double(float64FromBits(f.v), typ, f.num)
	}
	return nil
}

// repeated writes every occurrence of a repeated field as a JSON array;
// packed numeric occurrences are expanded.
func (d *decoder) repeated(each func(func(wireField) error) error, typ string, fd field) error {
	d.out = append(d.out, '[')
	n := 0
	sep := func() {
		if n > 0 {
			d.out = append(d.out, ',')
		}
		n++
	}
	err := each(func(f wireField) error {
		switch {
		case fd.kind == kMessage:
			sep()
			return d.message(spans{f.b}, fd.msg)
		case f.typ == wtBytes && fd.kind != kString && fd.kind != kBytes:
			return d.packed(f, fd.kind, typ, sep)
		default:
			sep()
			return d.scalar(f, fd.kind, typ)
		}
	})
	d.out = append(d.out, ']')
	return err
}

// packed writes the elements of a packed repeated numeric field.
func (d *decoder) packed(f wireField, k fieldKind, typ string, sep func()) error {
	b := f.b
	for len(b) > 0 {
		e := wireField{num: f.num}
		if k == kDouble {
			if len(b) < 8 {
				return malformed(typ, f.num, "packed double truncated")
			}
			e.v, b = le64(b), b[8:]
		} else {
			v, n, err := consumeVarint(b)
			if err != nil {
				return malformed(typ, f.num, "packed element: %v", err)
			}
			e.v, b = v, b[n:]
		}
		sep()
		if err := d.scalar(e, k, typ); err != nil {
			return err
		}
		if len(d.out) > d.limit {
			return malformed(typ, f.num, "JSON output exceeds %d bytes", d.limit)
		}
	}
	return nil
}

// mapField writes a map field (repeated {key=1, value=2} entries) as a
// JSON object, entries in wire order.
func (d *decoder) mapField(each func(func(wireField) error) error, typ string, fd field) error {
	d.out = append(d.out, '{')
	n := 0
	entry := typ + " map entry"
	err := each(func(f wireField) error {
		if n > 0 {
			d.out = append(d.out, ',')
		}
		n++
		return d.mapEntry(f.b, entry, fd)
	})
	d.out = append(d.out, '}')
	return err
}

// mapEntry writes one "key":value member from a map entry message.
func (d *decoder) mapEntry(b []byte, typ string, fd field) error {
	var key, val []byte
	var vals spans
	err := spans{b}.each(typ, func(f wireField) error {
		if f.num > 2 {
			return nil
		}
		if f.typ != wtBytes {
			return malformed(typ, f.num, "wire type %d, want 2", f.typ)
		}
		if f.num == 1 {
			key = f.b
		} else {
			val = f.b
			vals = append(vals, f.b)
		}
		return nil
	})
	if err != nil {
		return err
	}
	d.out = appendJSONString(d.out, key)
	d.out = append(d.out, ':')
	switch fd.kind {
	case kMapString:
		d.out = appendJSONString(d.out, val)
	case kMapBytes:
		d.out = appendBase64(d.out, val)
	default:
		return d.message(vals, fd.msg)
	}
	return nil
}
