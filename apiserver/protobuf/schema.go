package protobuf

// fieldKind is how one protobuf field's value is read and written as JSON.
type fieldKind uint8

const (
	kString fieldKind = iota + 1
	kInt32
	kInt64
	kBool
	kDouble
	kBytes      // JSON base64 string
	kMessage    // a nested message, JSON object or the special form of its type
	kMapString  // map<string,string>: repeated {key=1, value=2}
	kMapBytes   // map<string,bytes>: values as base64 strings
	kMapMessage // map<string,message>
)

// special marks message types whose JSON is not an object of their fields.
type special uint8

const (
	spNone            special = iota
	spTime                    // meta/v1 Time {seconds=1, nanos=2}: RFC 3339, seconds
	spMicroTime               // meta/v1 MicroTime: RFC 3339 with 6 decimals
	spDuration                // meta/v1 Duration {duration=1}: Go duration string
	spQuantity                // resource.Quantity {string=1}: its string
	spIntOrString             // intstr.IntOrString {type=1, intVal=2, strVal=3}
	spRawJSON                 // runtime.RawExtension {raw=1}, meta/v1 FieldsV1 {Raw=1}
	spStringList              // {items=1 repeated string}: a JSON array (ExtraValue)
	spJSON                    // apiextensions JSON {raw=1}: the JSON it carries, null when empty
	spSchemaOrArray           // JSONSchemaPropsOrArray {schema=1, jSONSchemas=2}: an array if any, else the schema or null
	spSchemaOrBool            // JSONSchemaPropsOrBool {allows=1, schema=2}: the schema if present, else the bool
	spSchemaOrStrings         // JSONSchemaPropsOrStringArray {schema=1, property=2}: the strings if any, else the schema or null
)

// field is one entry of a message's schema: protobuf field number → JSON.
type field struct {
	name     string    // JSON name
	kind     fieldKind // value kind
	msg      string    // message type, for kMessage and kMapMessage
	repeated bool      // a JSON array of kind
	keepZero bool      // a present zero scalar is written (Go pointer or non-omitempty field)
	inline   bool      // kMessage embedded in Go: its fields join the parent object
	// nullIfAbsent marks a repeated field whose Go json tag has no
	// omitempty: Kubernetes writes a nil slice as null, and protobuf cannot
	// tell nil from empty, so an absent field is written as null.
	nullIfAbsent bool
}

// message is the schema of one protobuf message type.
type message struct {
	fields  map[uint32]field
	order   []uint32 // field numbers, ascending; filled by defaultRegistry
	special special
}

// schema maps message type names ("core.Pod", "meta.ObjectMeta") to their
// schemas. It is built once and never modified afterwards.
type schema map[string]message

// fields is a message's field table as written in the schema files.
type fields = map[uint32]field

// Scalar fields. The plain helpers are Go non-pointer fields with omitempty:
// a zero value on the wire (gogo writes them always) is left out of the
// JSON, as Kubernetes' JSON encoder would. The "p" helpers are Go pointer
// fields (or fields without omitempty): whatever is on the wire is written.
func str(n string) field  { return field{name: n, kind: kString} }
func strp(n string) field { return field{name: n, kind: kString, keepZero: true} }
func i32(n string) field  { return field{name: n, kind: kInt32} }
func i32p(n string) field { return field{name: n, kind: kInt32, keepZero: true} }
func i64(n string) field  { return field{name: n, kind: kInt64} }
func i64p(n string) field { return field{name: n, kind: kInt64, keepZero: true} }
func bln(n string) field  { return field{name: n, kind: kBool} }
func blnp(n string) field { return field{name: n, kind: kBool, keepZero: true} }
func dbl(n string) field  { return field{name: n, kind: kDouble, keepZero: true} }
func byt(n string) field  { return field{name: n, kind: kBytes, keepZero: true} }

// Repeated scalars.
func strs(n string) field { return field{name: n, kind: kString, repeated: true, keepZero: true} }
func i32s(n string) field { return field{name: n, kind: kInt32, repeated: true, keepZero: true} }
func i64s(n string) field { return field{name: n, kind: kInt64, repeated: true, keepZero: true} }

// required marks a repeated field without omitempty in Go (see
// field.nullIfAbsent).
func required(f field) field { f.nullIfAbsent = true; return f }

// Messages: msg is a single (pointer or value) message, msgs a repeated
// one, inl a Go-embedded struct whose fields are inlined in the parent.
func msg(n, typ string) field  { return field{name: n, kind: kMessage, msg: typ} }
func msgs(n, typ string) field { return field{name: n, kind: kMessage, msg: typ, repeated: true} }
func inl(typ string) field     { return field{kind: kMessage, msg: typ, inline: true} }

// Maps.
func mapStr(n string) field         { return field{name: n, kind: kMapString} }
func mapBytes(n string) field       { return field{name: n, kind: kMapBytes} }
func mapMsg(n, typ string) field    { return field{name: n, kind: kMapMessage, msg: typ} }
func quantities(n string) field     { return mapMsg(n, typeQuantity) }
func quantity(n string) field       { return msg(n, typeQuantity) }
func timeField(n string) field      { return msg(n, typeTime) }
func objectMeta() field             { return msg("metadata", "meta.ObjectMeta") }
func labelSelector(n string) field  { return msg(n, "meta.LabelSelector") }
func intOrString(n string) field    { return msg(n, typeIntOrString) }
func localObjectRef(n string) field { return msg(n, "core.LocalObjectReference") }

// Names of the special message types.
const (
	typeTime        = "meta.Time"
	typeMicroTime   = "meta.MicroTime"
	typeDuration    = "meta.Duration"
	typeQuantity    = "resource.Quantity"
	typeIntOrString = "intstr.IntOrString"
	typeRawExt      = "runtime.RawExtension"
	typeFieldsV1    = "meta.FieldsV1"
)

// newSchema assembles the tables of every API group into one schema.
func newSchema() schema {
	s := schema{
		typeTime:           {special: spTime},
		typeMicroTime:      {special: spMicroTime},
		typeDuration:       {special: spDuration},
		typeQuantity:       {special: spQuantity},
		typeIntOrString:    {special: spIntOrString},
		typeRawExt:         {special: spRawJSON},
		typeFieldsV1:       {special: spRawJSON},
		"authz.ExtraValue": {special: spStringList},
		"authn.ExtraValue": {special: spStringList},
		"certs.ExtraValue": {special: spStringList},

		typeSchemaJSON:                        {special: spJSON},
		"apiext.JSONSchemaPropsOrArray":       {special: spSchemaOrArray},
		"apiext.JSONSchemaPropsOrBool":        {special: spSchemaOrBool},
		"apiext.JSONSchemaPropsOrStringArray": {special: spSchemaOrStrings},
	}
	for _, group := range []map[string]fields{
		metaMessages(), coreMessages(), coreClusterMessages(), coreStorageMessages(), coreVolumeMessages(), corePodMessages(),
		coreSecurityMessages(), coreSchedulingMessages(), corePodStatusMessages(),
		appsMessages(), batchMessages(), policyMessages(), rbacMessages(), authMessages(), otherMessages(), viewMessages(),
		discoveryMessages(), networkingMessages(), admissionMessages(), storageMessages(), apiextensionsMessages(),
		flowcontrolMessages(), mutatingPolicyMessages(), apiregistrationMessages(),
	} {
		for name, f := range group {
			s[name] = message{fields: f}
		}
	}
	return s
}
