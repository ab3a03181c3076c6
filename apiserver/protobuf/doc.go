// Package protobuf converts request bodies in the Kubernetes protobuf wire
// format ("application/vnd.kubernetes.protobuf") into the JSON Kubernetes
// would send for the same object, so that an API server that works in JSON
// can accept what kubectl and client-go's typed clients write.
//
// A body is the four magic bytes "k8s\x00" followed by a runtime.Unknown
// envelope: {typeMeta{apiVersion=1, kind=2}=1, raw=2, contentEncoding=3,
// contentType=4}. The raw bytes are the object's protobuf message. ToJSON
// reads the envelope, looks the kind up in a schema table (field number →
// JSON name and kind, per message type, taken from Kubernetes'
// generated.proto files), and writes the JSON object with apiVersion and
// kind set.
//
// The reader is written for hostile input: lengths are checked against the
// bytes that remain before anything is sliced, nothing is allocated in
// proportion to a length read from the wire, nesting is bounded, and the
// JSON written is bounded by a fixed multiple of the input size. Malformed
// input yields an error wrapping ErrMalformed; nothing panics.
//
// Mapping rules:
//   - Fields absent on the wire are absent in the JSON. Unknown field numbers
//     are skipped.
//   - Kubernetes' gogo encoder writes every non-pointer scalar, so a zero
//     value on the wire for a field that is a non-pointer "omitempty" field
//     in Go is left out, as Kubernetes' JSON encoder would; for pointer
//     fields (replicas, defaultMode, optional, ...) and fields without
//     omitempty a present zero is written (replicas: 0, optional: false).
//   - Non-repeated message fields are always written when present (an empty
//     message is {}), repeated fields as arrays, maps as objects. A repeated
//     field whose Go json tag has no omitempty (rules, verbs, sources, ...)
//     is written as null when absent, as Kubernetes writes a nil slice.
//   - meta/v1 Time is written as RFC 3339 at second precision, MicroTime with
//     six decimals, an empty Time (Kubernetes' zero time) as null; Duration
//     as a Go duration string; resource.Quantity as its string;
//     intstr.IntOrString as a number or a string; runtime.RawExtension and
//     meta/v1 FieldsV1 as the raw JSON they carry (a nested protobuf object
//     in a RawExtension is converted too); bytes as base64.
//   - apiextensions/v1's JSONSchemaProps wrappers are written as
//     Kubernetes' MarshalJSON writes them: JSON (default, example, enum
//     items) as the raw JSON it carries (null when empty, never a nested
//     protobuf object); JSONSchemaPropsOrArray as the array of schemas
//     when it has one, else the schema, else null; JSONSchemaPropsOrBool
//     as the schema when present, else allows as a boolean;
//     JSONSchemaPropsOrStringArray as the array of strings when it has
//     one, else the schema, else null.
//   - A non-repeated field that occurs more than once follows protobuf
//     semantics: the last scalar wins and message occurrences are merged.
//     Map entries are written in wire order; a repeated key is written twice
//     and the last one wins when the JSON is decoded, as in protobuf.
//
// The package has no state other than its schema table, which is built on
// first use and never modified; ToJSON is safe for concurrent use.
package protobuf
