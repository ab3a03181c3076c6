package protobuf

import "encoding/json"

// nullableValue reports whether a map value of special kind k may be JSON
// null: dependencies' JSONSchemaPropsOrStringArray writes an empty value
// as null, so null is its empty message, not an absent entry.
func nullableValue(k special) bool { return k == spSchemaOrStrings }

// schemaWrapper returns the message of one of apiextensions/v1's
// JSONSchemaProps wrappers from its JSON form, the inverse of
// decoder.rawJSON and decoder.schemaOr, as Kubernetes' UnmarshalJSON
// reads them:
//   - JSON: any value is its raw JSON {raw=1}; null is the empty message;
//   - JSONSchemaPropsOrArray: an object is {schema=1}, an array
//     {jSONSchemas=2 ...};
//   - JSONSchemaPropsOrBool: a boolean is {allows=1}, an object {allows=1
//     true, schema=2};
//   - JSONSchemaPropsOrStringArray: an object is {schema=1}, an array of
//     strings {property=2 ...}.
//
// null is the empty message for each; any other JSON type is ErrMalformed.
func (e *encoder) schemaWrapper(v any, typ string, k special) ([]byte, error) {
	bad := func() ([]byte, error) { return nil, malformed(typ, 0, "a %T does not fit", v) }
	if v == nil {
		return nil, nil
	}
	if k == spJSON {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, malformed(typ, 0, "%v", err)
		}
		return appendBytesField(nil, 1, b), nil
	}
	schema := func(dst []byte, num uint32, x any) ([]byte, error) {
		obj, ok := x.(map[string]any)
		if !ok {
			return nil, malformed(typ, num, "want an object, got %T", x)
		}
		sub, err := e.message(nil, obj, typeJSONSchemaProps)
		if err != nil {
			return nil, err
		}
		return appendBytesField(dst, num, sub), nil
	}
	switch x := v.(type) {
	case map[string]any:
		if k == spSchemaOrBool {
			return schema(appendVarintField(nil, 1, 1), 2, x)
		}
		return schema(nil, 1, x)
	case bool:
		if k != spSchemaOrBool {
			return bad()
		}
		var allows uint64
		if x {
			allows = 1
		}
		return appendVarintField(nil, 1, allows), nil
	case []any:
		if k == spSchemaOrBool {
			return bad()
		}
		var out []byte
		for _, it := range x {
			var err error
			switch k {
			case spSchemaOrArray:
				out, err = schema(out, 2, it)
			case spSchemaOrStrings:
				s, ok := it.(string)
				if !ok {
					return nil, malformed(typ, 2, "want a string, got %T", it)
				}
				out = appendBytesField(out, 2, []byte(s))
			}
			if err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return bad()
}
