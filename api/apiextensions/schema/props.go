package schema

import (
	"bytes"
	"encoding/json"
)

// JSONSchemaProps is one node of an OpenAPI v3 schema as a
// CustomResourceDefinition carries it (apiextensions.k8s.io/v1
// JSONSchemaProps), field for field, with Kubernetes' JSON names and
// Kubernetes' x-kubernetes-* extensions. Every field Kubernetes accepts on
// the wire is here, including those a CRD may not use ($ref, id,
// definitions, ...): they decode so that validation can refuse them with
// Kubernetes' message.
//
// A JSONSchemaProps is plain data with no internal synchronisation; Compile
// turns it into a Schema that is safe for concurrent use.
type JSONSchemaProps struct {
	ID                   string                     `json:"id,omitempty"`
	Schema               JSONSchemaURL              `json:"$schema,omitempty"`
	Ref                  *string                    `json:"$ref,omitempty"`
	Description          string                     `json:"description,omitempty"`
	Type                 string                     `json:"type,omitempty"`
	Format               string                     `json:"format,omitempty"`
	Title                string                     `json:"title,omitempty"`
	Default              *JSON                      `json:"default,omitempty"`
	Maximum              *float64                   `json:"maximum,omitempty"`
	ExclusiveMaximum     bool                       `json:"exclusiveMaximum,omitempty"`
	Minimum              *float64                   `json:"minimum,omitempty"`
	ExclusiveMinimum     bool                       `json:"exclusiveMinimum,omitempty"`
	MaxLength            *int64                     `json:"maxLength,omitempty"`
	MinLength            *int64                     `json:"minLength,omitempty"`
	Pattern              string                     `json:"pattern,omitempty"`
	MaxItems             *int64                     `json:"maxItems,omitempty"`
	MinItems             *int64                     `json:"minItems,omitempty"`
	UniqueItems          bool                       `json:"uniqueItems,omitempty"`
	MultipleOf           *float64                   `json:"multipleOf,omitempty"`
	Enum                 []JSON                     `json:"enum,omitempty"`
	MaxProperties        *int64                     `json:"maxProperties,omitempty"`
	MinProperties        *int64                     `json:"minProperties,omitempty"`
	Required             []string                   `json:"required,omitempty"`
	Items                *JSONSchemaPropsOrArray    `json:"items,omitempty"`
	AllOf                []JSONSchemaProps          `json:"allOf,omitempty"`
	OneOf                []JSONSchemaProps          `json:"oneOf,omitempty"`
	AnyOf                []JSONSchemaProps          `json:"anyOf,omitempty"`
	Not                  *JSONSchemaProps           `json:"not,omitempty"`
	Properties           map[string]JSONSchemaProps `json:"properties,omitempty"`
	AdditionalProperties *JSONSchemaPropsOrBool     `json:"additionalProperties,omitempty"`
	PatternProperties    map[string]JSONSchemaProps `json:"patternProperties,omitempty"`
	Dependencies         JSONSchemaDependencies     `json:"dependencies,omitempty"`
	AdditionalItems      *JSONSchemaPropsOrBool     `json:"additionalItems,omitempty"`
	Definitions          JSONSchemaDefinitions      `json:"definitions,omitempty"`
	ExternalDocs         *ExternalDocumentation     `json:"externalDocs,omitempty"`
	Example              *JSON                      `json:"example,omitempty"`
	Nullable             bool                       `json:"nullable,omitempty"`

	// XPreserveUnknownFields stops pruning of fields the schema does not
	// name, in this node and below (until a node with properties or
	// additionalProperties specifies them again). Only true or unset is
	// valid.
	XPreserveUnknownFields *bool `json:"x-kubernetes-preserve-unknown-fields,omitempty"`
	// XEmbeddedResource says the object is a whole Kubernetes object with
	// apiVersion, kind and metadata (like a RawExtension or a pod
	// template): those three are checked and kept.
	XEmbeddedResource bool `json:"x-kubernetes-embedded-resource,omitempty"`
	// XIntOrString says the value is an integer or a string.
	XIntOrString bool `json:"x-kubernetes-int-or-string,omitempty"`
	// XListMapKeys names the fields that identify an item of a list of
	// x-kubernetes-list-type map.
	XListMapKeys []string `json:"x-kubernetes-list-map-keys,omitempty"`
	// XListType is "atomic" (the default), "set" (unique scalars or atomic
	// items) or "map" (items identified by XListMapKeys).
	XListType *string `json:"x-kubernetes-list-type,omitempty"`
	// XMapType is "granular" (the default) or "atomic".
	XMapType *string `json:"x-kubernetes-map-type,omitempty"`
	// XValidations are CEL rules the value must satisfy.
	XValidations ValidationRules `json:"x-kubernetes-validations,omitempty"`
}

// JSONSchemaURL is the value of $schema.
type JSONSchemaURL string

// JSONSchemaDefinitions are the named schemas of "definitions".
type JSONSchemaDefinitions map[string]JSONSchemaProps

// JSONSchemaDependencies are the dependencies of "dependencies".
type JSONSchemaDependencies map[string]JSONSchemaPropsOrStringArray

// ExternalDocumentation points to documentation outside the schema.
type ExternalDocumentation struct {
	Description string `json:"description,omitempty"`
	URL         string `json:"url,omitempty"`
}

// FieldValueErrorReason is the reason a failed CEL rule reports
// (FieldValueInvalid when unset).
type FieldValueErrorReason string

// The reasons a CEL rule may report.
const (
	FieldValueRequired  FieldValueErrorReason = "FieldValueRequired"
	FieldValueDuplicate FieldValueErrorReason = "FieldValueDuplicate"
	FieldValueInvalid   FieldValueErrorReason = "FieldValueInvalid"
	FieldValueForbidden FieldValueErrorReason = "FieldValueForbidden"
)

// ValidationRules are the x-kubernetes-validations of one node.
type ValidationRules []ValidationRule

// ValidationRule is one CEL rule: Rule must evaluate to true for the value
// the node describes (self) and, for a transition rule, its previous value
// (oldSelf).
type ValidationRule struct {
	// Rule is the CEL expression.
	Rule string `json:"rule"`
	// Message is reported when Rule is false ("failed rule: <rule>" when
	// empty).
	Message string `json:"message,omitempty"`
	// MessageExpression is a CEL expression of type string whose value is
	// reported instead of Message.
	MessageExpression string `json:"messageExpression,omitempty"`
	// Reason is the machine-readable reason of the failure.
	Reason *FieldValueErrorReason `json:"reason,omitempty"`
	// FieldPath is a path relative to the node (".spec.x", "['a.b']",
	// ".list[0]"... without a leading "self") the failure is reported at.
	FieldPath string `json:"fieldPath,omitempty"`
	// OptionalOldSelf makes a transition rule run on create too, with
	// oldSelf an optional (optional.none() when there is no old value).
	OptionalOldSelf *bool `json:"optionalOldSelf,omitempty"`
}

// JSON is an arbitrary JSON value (default, example, enum entries), kept
// as the raw bytes it was decoded from. A nil Raw is JSON null.
type JSON struct {
	Raw []byte `json:"-"`
}

var nullLiteral = []byte("null")

// MarshalJSON writes the raw value, or null.
func (s JSON) MarshalJSON() ([]byte, error) {
	if len(s.Raw) > 0 {
		return s.Raw, nil
	}
	return nullLiteral, nil
}

// UnmarshalJSON keeps a copy of in; null leaves Raw nil.
func (s *JSON) UnmarshalJSON(in []byte) error {
	if len(in) > 0 && !bytes.Equal(in, nullLiteral) {
		s.Raw = append(s.Raw[:0], in...)
	}
	return nil
}

// Value decodes the raw JSON into the canonical form the validator works
// on (see DecodeJSON): nil for null.
func (s JSON) Value() (any, error) {
	if len(s.Raw) == 0 {
		return nil, nil
	}
	return DecodeJSON(s.Raw)
}

// JSONSchemaPropsOrArray is "items": one schema for every item, or (not
// allowed in a CRD) a list of schemas, one per position.
type JSONSchemaPropsOrArray struct {
	Schema      *JSONSchemaProps
	JSONSchemas []JSONSchemaProps
}

// MarshalJSON writes the list when there is one, else the schema.
func (s JSONSchemaPropsOrArray) MarshalJSON() ([]byte, error) {
	if len(s.JSONSchemas) > 0 {
		return json.Marshal(s.JSONSchemas)
	}
	return json.Marshal(s.Schema)
}

// UnmarshalJSON accepts an object (a schema) or an array (of schemas).
func (s *JSONSchemaPropsOrArray) UnmarshalJSON(data []byte) error {
	var nw JSONSchemaPropsOrArray
	switch first(data) {
	case '{':
		var sch JSONSchemaProps
		if err := json.Unmarshal(data, &sch); err != nil {
			return err
		}
		nw.Schema = &sch
	case '[':
		if err := json.Unmarshal(data, &nw.JSONSchemas); err != nil {
			return err
		}
	}
	*s = nw
	return nil
}

// JSONSchemaPropsOrBool is additionalProperties (or additionalItems): a
// schema, or true/false. A schema implies Allows.
type JSONSchemaPropsOrBool struct {
	Allows bool
	Schema *JSONSchemaProps
}

// MarshalJSON writes the schema when there is one, else the boolean.
func (s JSONSchemaPropsOrBool) MarshalJSON() ([]byte, error) {
	if s.Schema != nil {
		return json.Marshal(s.Schema)
	}
	if !s.Allows {
		return []byte("false"), nil
	}
	return []byte("true"), nil
}

// UnmarshalJSON accepts true, false or an object (a schema).
func (s *JSONSchemaPropsOrBool) UnmarshalJSON(data []byte) error {
	var nw JSONSchemaPropsOrBool
	switch {
	case len(data) == 0:
	case data[0] == '{':
		var sch JSONSchemaProps
		if err := json.Unmarshal(data, &sch); err != nil {
			return err
		}
		nw.Allows = true
		nw.Schema = &sch
	case string(data) == "true":
		nw.Allows = true
	case string(data) == "false":
		nw.Allows = false
	default:
		return errBoolOrSchema
	}
	*s = nw
	return nil
}

// JSONSchemaPropsOrStringArray is one entry of "dependencies": a schema or
// a list of property names.
type JSONSchemaPropsOrStringArray struct {
	Schema   *JSONSchemaProps
	Property []string
}

// MarshalJSON writes the property list when there is one, else the schema
// (null when neither is set).
func (s JSONSchemaPropsOrStringArray) MarshalJSON() ([]byte, error) {
	if len(s.Property) > 0 {
		return json.Marshal(s.Property)
	}
	if s.Schema != nil {
		return json.Marshal(s.Schema)
	}
	return nullLiteral, nil
}

// UnmarshalJSON accepts an object (a schema) or an array (of names).
func (s *JSONSchemaPropsOrStringArray) UnmarshalJSON(data []byte) error {
	var nw JSONSchemaPropsOrStringArray
	switch first(data) {
	case '{':
		var sch JSONSchemaProps
		if err := json.Unmarshal(data, &sch); err != nil {
			return err
		}
		nw.Schema = &sch
	case '[':
		if err := json.Unmarshal(data, &nw.Property); err != nil {
			return err
		}
	}
	*s = nw
	return nil
}

// first is the first byte of a JSON value longer than one byte, as
// Kubernetes' decoders look at it (a one-byte value is neither an object
// nor an array).
func first(data []byte) byte {
	if len(data) > 1 {
		return data[0]
	}
	return 0
}
