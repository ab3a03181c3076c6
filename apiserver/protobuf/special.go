package protobuf

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"time"
)

const rfc3339Micro = "2006-01-02T15:04:05.000000Z07:00"

// special writes a message type whose JSON is not an object of its fields.
func (d *decoder) special(sp spans, typ string, k special) error {
	switch k {
	case spTime, spMicroTime:
		return d.timestamp(sp, typ, k == spMicroTime)
	case spDuration:
		return d.duration(sp, typ)
	case spQuantity:
		return d.quantity(sp, typ)
	case spIntOrString:
		return d.intOrString(sp, typ)
	case spRawJSON:
		return d.rawJSON(sp, typ, true)
	case spJSON:
		return d.rawJSON(sp, typ, false)
	case spStringList:
		return d.stringList(sp, typ)
	case spSchemaOrArray, spSchemaOrBool, spSchemaOrStrings:
		return d.schemaOr(sp, typ, k)
	}
	return nil
}

// varintFields reads the varint fields 1..n of a small message, last
// occurrence winning, and reports whether any field was present.
func varintFields(sp spans, typ string, vals []uint64) (bool, error) {
	seen := false
	err := sp.each(typ, func(f wireField) error {
		seen = true
		if int(f.num) > len(vals) {
			return nil
		}
		if f.typ != wtVarint {
			return malformed(typ, f.num, "wire type %d, want 0", f.typ)
		}
		vals[f.num-1] = f.v
		return nil
	})
	return seen, err
}

// timestamp writes meta/v1 Time or MicroTime {seconds=1, nanos=2}. An empty
// message is Kubernetes' zero time and is written as null.
func (d *decoder) timestamp(sp spans, typ string, micro bool) error {
	var v [2]uint64
	seen, err := varintFields(sp, typ, v[:])
	if err != nil {
		return err
	}
	t := time.Unix(int64(v[0]), int64(int32(v[1]))).UTC()
	if !seen || t.IsZero() {
		d.out = append(d.out, "null"...)
		return nil
	}
	if t.Year() < 0 || t.Year() > 9999 {
		return malformed(typ, 1, "time %d s is outside years 0-9999", int64(v[0]))
	}
	layout := time.RFC3339
	if micro {
		layout = rfc3339Micro
	}
	d.out = append(d.out, '"')
	d.out = t.AppendFormat(d.out, layout)
	d.out = append(d.out, '"')
	return nil
}

// duration writes meta/v1 Duration {duration=1} as a Go duration string.
func (d *decoder) duration(sp spans, typ string) error {
	var v [1]uint64
	if _, err := varintFields(sp, typ, v[:]); err != nil {
		return err
	}
	d.out = strconv.AppendQuote(d.out, time.Duration(int64(v[0])).String())
	return nil
}

// stringField reads string field num of a message, last occurrence winning.
func stringField(sp spans, typ string, num uint32) ([]byte, bool, error) {
	var s []byte
	found := false
	err := sp.each(typ, func(f wireField) error {
		if f.num != num {
			return nil
		}
		if f.typ != wtBytes {
			return malformed(typ, f.num, "wire type %d, want 2", f.typ)
		}
		s, found = f.b, true
		return nil
	})
	return s, found, err
}

// quantity writes resource.Quantity {string=1} as its string; an empty
// message is the zero quantity "0".
func (d *decoder) quantity(sp spans, typ string) error {
	s, found, err := stringField(sp, typ, 1)
	if err != nil {
		return err
	}
	if !found {
		s = []byte("0")
	}
	d.out = appendJSONString(d.out, s)
	return nil
}

// intOrString writes intstr.IntOrString {type=1, intVal=2, strVal=3} as a
// JSON number (type 0) or string (type 1).
func (d *decoder) intOrString(sp spans, typ string) error {
	var kind, intVal uint64
	var strVal []byte
	err := sp.each(typ, func(f wireField) error {
		switch {
		case f.num > 3:
			return nil
		case f.num == 3 && f.typ == wtBytes:
			strVal = f.b
		case f.num != 3 && f.typ == wtVarint:
			if f.num == 1 {
				kind = f.v
			} else {
				intVal = f.v
			}
		default:
			return malformed(typ, f.num, "wrong wire type %d", f.typ)
		}
		return nil
	})
	if err != nil {
		return err
	}
	switch kind {
	case 0:
		d.out = appendInt(d.out, int64(int32(intVal)))
	case 1:
		d.out = appendJSONString(d.out, strVal)
	default:
		return malformed(typ, 1, "type %d is neither 0 (int) nor 1 (string)", kind)
	}
	return nil
}

// rawJSON writes runtime.RawExtension {raw=1}, meta/v1 FieldsV1 {Raw=1}
// or apiextensions JSON {raw=1}: the JSON it carries, compacted, or null
// when empty. With nested set (RawExtension), raw bytes that hold a
// Kubernetes protobuf object are converted in turn.
func (d *decoder) rawJSON(sp spans, typ string, nested bool) error {
	raw, _, err := stringField(sp, typ, 1)
	if err != nil {
		return err
	}
	switch {
	case len(bytes.TrimSpace(raw)) == 0:
		d.out = append(d.out, "null"...)
		return nil
	case nested && bytes.HasPrefix(raw, magic):
		if err := d.enter(typ); err != nil {
			return err
		}
		defer d.leave()
		_, err := d.convert(raw)
		return err
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return malformed(typ, 1, "raw JSON does not parse: %v", err)
	}
	d.out = append(d.out, buf.Bytes()...)
	return nil
}

// stringList writes a {items=1 repeated string} message (ExtraValue) as a
// JSON array.
func (d *decoder) stringList(sp spans, typ string) error {
	d.out = append(d.out, '[')
	n := 0
	err := sp.each(typ, func(f wireField) error {
		if f.num != 1 {
			return nil
		}
		if f.typ != wtBytes {
			return malformed(typ, f.num, "wire type %d, want 2", f.typ)
		}
		if n > 0 {
			d.out = append(d.out, ',')
		}
		n++
		d.out = appendJSONString(d.out, f.b)
		return nil
	})
	d.out = append(d.out, ']')
	return err
}

// double writes a float64; NaN and infinities have no JSON form.
func (d *decoder) double(v float64, typ string, num uint32) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return malformed(typ, num, "double %v has no JSON form", v)
	}
	d.out = strconv.AppendFloat(d.out, v, 'g', -1, 64)
	return nil
}

// schemaOr writes one of the JSONSchemaProps wrappers of apiextensions/v1
// as Kubernetes' MarshalJSON does:
//   - JSONSchemaPropsOrArray {schema=1, jSONSchemas=2}: the array of
//     schemas when there is at least one, else the schema, else null;
//   - JSONSchemaPropsOrBool {allows=1, schema=2}: the schema when present,
//     else allows as true or false;
//   - JSONSchemaPropsOrStringArray {schema=1, property=2}: the array of
//     strings when there is at least one, else the schema, else null.
//
// Several occurrences of the schema field are merged, as protobuf does.
func (d *decoder) schemaOr(sp spans, typ string, k special) error {
	schemaNum, listNum, allowsNum := uint32(1), uint32(2), uint32(0)
	if k == spSchemaOrBool {
		schemaNum, listNum, allowsNum = 2, 0, 1
	}
	var schema spans
	lists, allows := 0, false
	err := sp.each(typ, func(f wireField) error {
		switch f.num {
		case schemaNum, listNum:
			if f.typ != wtBytes {
				return malformed(typ, f.num, "wire type %d, want 2", f.typ)
			}
			if f.num == schemaNum {
				schema = append(schema, f.b)
			} else {
				lists++
			}
		case allowsNum:
			if f.typ != wtVarint {
				return malformed(typ, f.num, "wire type %d, want 0", f.typ)
			}
			allows = f.v != 0
		}
		return nil
	})
	switch {
	case err != nil:
		return err
	case lists > 0:
		return d.schemaList(sp, typ, listNum, k == spSchemaOrStrings)
	case schema != nil:
		return d.message(schema, typeJSONSchemaProps)
	case k == spSchemaOrBool:
		d.out = appendBool(d.out, allows)
	default:
		d.out = append(d.out, "null"...)
	}
	return nil
}

// schemaList writes every occurrence of field num of a wrapper validated
// by schemaOr as a JSON array of strings or of JSONSchemaProps.
func (d *decoder) schemaList(sp spans, typ string, num uint32, strs bool) error {
	d.out = append(d.out, '[')
	n := 0
	err := sp.each(typ, func(f wireField) error {
		if f.num != num {
			return nil
		}
		if n > 0 {
			d.out = append(d.out, ',')
		}
		n++
		if strs {
			d.out = appendJSONString(d.out, f.b)
			return nil
		}
		return d.message(spans{f.b}, typeJSONSchemaProps)
	})
	d.out = append(d.out, ']')
	return err
}
