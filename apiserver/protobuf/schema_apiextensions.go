package protobuf

// Field numbers in this file are data taken from
// k8s.io/apiextensions-apiserver apiextensions/v1 generated.proto; the JSON
// names and omitempty rules are the Go json tags of api/apiextensions and
// api/apiextensions/schema (which follow Kubernetes').

// Names of the apiextensions message types the special forms refer to.
const (
	typeJSONSchemaProps = "apiext.JSONSchemaProps"
	typeSchemaJSON      = "apiext.JSON"
)

// apiextensionsMessages covers CustomResourceDefinition with every nested
// message, JSONSchemaProps included. Its wrappers (JSON,
// JSONSchemaPropsOrArray, JSONSchemaPropsOrBool,
// JSONSchemaPropsOrStringArray) are special types, see newSchema.
func apiextensionsMessages() map[string]fields {
	return map[string]fields{
		"apiext.CustomResourceDefinition": {
			1: objectMeta(), 2: msg("spec", "apiext.CustomResourceDefinitionSpec"), 3: msg("status", "apiext.CustomResourceDefinitionStatus"),
		},
		"apiext.CustomResourceDefinitionSpec": {
			1: strp("group"), 3: msg("names", "apiext.CustomResourceDefinitionNames"), 4: strp("scope"),
			7: required(msgs("versions", "apiext.CustomResourceDefinitionVersion")),
			9: msg("conversion", "apiext.CustomResourceConversion"), 10: bln("preserveUnknownFields"),
		},
		"apiext.CustomResourceDefinitionNames": {
			1: strp("plural"), 2: str("singular"), 3: strs("shortNames"), 4: strp("kind"), 5: str("listKind"), 6: strs("categories"),
		},
		"apiext.CustomResourceDefinitionVersion": {
			1: strp("name"), 2: blnp("served"), 3: blnp("storage"), 7: bln("deprecated"), 8: strp("deprecationWarning"),
			4: msg("schema", "apiext.CustomResourceValidation"), 5: msg("subresources", "apiext.CustomResourceSubresources"),
			6: msgs("additionalPrinterColumns", "apiext.CustomResourceColumnDefinition"),
			9: msgs("selectableFields", "apiext.SelectableField"),
		},
		"apiext.CustomResourceValidation": {1: msg("openAPIV3Schema", typeJSONSchemaProps)},
		"apiext.CustomResourceSubresources": {
			1: msg("status", "apiext.CustomResourceSubresourceStatus"), 2: msg("scale", "apiext.CustomResourceSubresourceScale"),
		},
		"apiext.CustomResourceSubresourceStatus": {},
		"apiext.CustomResourceSubresourceScale": {
			1: strp("specReplicasPath"), 2: strp("statusReplicasPath"), 3: strp("labelSelectorPath"),
		},
		"apiext.CustomResourceColumnDefinition": {
			1: strp("name"), 2: strp("type"), 3: str("format"), 4: str("description"), 5: i32("priority"), 6: strp("jsonPath"),
		},
		"apiext.SelectableField":          {1: strp("jsonPath")},
		"apiext.CustomResourceConversion": {1: strp("strategy"), 2: msg("webhook", "apiext.WebhookConversion")},
		"apiext.WebhookConversion": {
			2: msg("clientConfig", "apiext.WebhookClientConfig"), 3: required(strs("conversionReviewVersions")),
		},
		"apiext.WebhookClientConfig": {3: strp("url"), 1: msg("service", "apiext.ServiceReference"), 2: byt("caBundle")},
		"apiext.ServiceReference":    {1: strp("namespace"), 2: strp("name"), 3: strp("path"), 4: i32p("port")},
		"apiext.CustomResourceDefinitionStatus": {
			1: required(msgs("conditions", "apiext.CustomResourceDefinitionCondition")),
			2: msg("acceptedNames", "apiext.CustomResourceDefinitionNames"), 3: required(strs("storedVersions")),
			4: i64("observedGeneration"),
		},
		"apiext.CustomResourceDefinitionCondition": {
			1: strp("type"), 2: strp("status"), 3: timeField("lastTransitionTime"), 4: str("reason"), 5: str("message"),
			6: i64("observedGeneration"),
		},
		typeJSONSchemaProps:            jsonSchemaPropsFields(),
		"apiext.ExternalDocumentation": {1: str("description"), 2: str("url")},
		"apiext.ValidationRule": {
			1: strp("rule"), 2: str("message"), 3: str("messageExpression"), 4: strp("reason"), 5: str("fieldPath"),
			6: blnp("optionalOldSelf"),
		},
	}
}

// jsonSchemaPropsFields is JSONSchemaProps: one node of an OpenAPI v3
// schema. Pointer fields in Go (maximum, maxLength, $ref,
// x-kubernetes-preserve-unknown-fields, ...) keep a present zero.
func jsonSchemaPropsFields() fields {
	const (
		orArray       = "apiext.JSONSchemaPropsOrArray"
		orBool        = "apiext.JSONSchemaPropsOrBool"
		orStringArray = "apiext.JSONSchemaPropsOrStringArray"
	)
	return fields{
		1: str("id"), 2: str("$schema"), 3: strp("$ref"), 4: str("description"), 5: str("type"), 6: str("format"),
		7: str("title"), 8: msg("default", typeSchemaJSON), 9: dbl("maximum"), 10: bln("exclusiveMaximum"),
		11: dbl("minimum"), 12: bln("exclusiveMinimum"), 13: i64p("maxLength"), 14: i64p("minLength"), 15: str("pattern"),
		16: i64p("maxItems"), 17: i64p("minItems"), 18: bln("uniqueItems"), 19: dbl("multipleOf"),
		20: msgs("enum", typeSchemaJSON), 21: i64p("maxProperties"), 22: i64p("minProperties"), 23: strs("required"),
		24: msg("items", orArray), 25: msgs("allOf", typeJSONSchemaProps), 26: msgs("oneOf", typeJSONSchemaProps),
		27: msgs("anyOf", typeJSONSchemaProps), 28: msg("not", typeJSONSchemaProps),
		29: mapMsg("properties", typeJSONSchemaProps), 30: msg("additionalProperties", orBool),
		31: mapMsg("patternProperties", typeJSONSchemaProps), 32: mapMsg("dependencies", orStringArray),
		33: msg("additionalItems", orBool), 34: mapMsg("definitions", typeJSONSchemaProps),
		35: msg("externalDocs", "apiext.ExternalDocumentation"), 36: msg("example", typeSchemaJSON), 37: bln("nullable"),
		38: blnp("x-kubernetes-preserve-unknown-fields"), 39: bln("x-kubernetes-embedded-resource"),
		40: bln("x-kubernetes-int-or-string"), 41: strs("x-kubernetes-list-map-keys"), 42: strp("x-kubernetes-list-type"),
		43: strp("x-kubernetes-map-type"), 44: msgs("x-kubernetes-validations", "apiext.ValidationRule"),
	}
}
