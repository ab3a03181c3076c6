package apiserver

// customSchemaV2 turns the OpenAPI v3 schema a custom resource publishes
// (schema.OpenAPI: the CRD version's schema plus apiVersion, kind and
// metadata) into what kube-apiserver publishes for it in /openapi/v2,
// which kubectl's client-side validation reads:
//   - a root that preserves unknown fields is {"type":"object"} with only
//     its extensions (x-kubernetes-group-version-kind): Swagger 2.0 cannot
//     say "and anything else", and kubectl would refuse unknown fields;
//   - otherwise, below the root's apiVersion, kind and metadata, allOf,
//     oneOf, anyOf and not are dropped; a nullable node loses its type,
//     items and properties (and leaves its parent's required list); a
//     node that preserves unknown fields loses items and properties, and
//     its type when it is an object; an array without items loses its
//     type.
//
// root is modified in place (the schemas schema.OpenAPI returns are
// fresh) and returned.
func customSchemaV2(root map[string]any) map[string]any {
	if b, _ := root["x-kubernetes-preserve-unknown-fields"].(bool); b {
		out := map[string]any{"type": "object"}
		for k, v := range root {
			if k == "x-kubernetes-group-version-kind" || k == "x-kubernetes-selectable-fields" {
				out[k] = v
			}
		}
		return out
	}
	// apiVersion, kind and metadata are kube-apiserver's, added after the
	// conversion: set them aside.
	props, _ := root["properties"].(map[string]any)
	kept := map[string]any{}
	for _, name := range []string{"apiVersion", "kind", "metadata"} {
		if p, ok := props[name]; ok {
			kept[name] = p
			delete(props, name)
		}
	}
	structuralV2(root)
	if len(kept) > 0 {
		props, _ = root["properties"].(map[string]any)
		if props == nil {
			props = map[string]any{}
			root["properties"] = props
		}
		for name, p := range kept {
			props[name] = p
		}
	}
	return root
}

// structuralV2 applies the Swagger 2.0 restrictions of customSchemaV2 to
// one node, then to everything below it.
func structuralV2(s map[string]any) {
	for _, k := range []string{"allOf", "oneOf", "anyOf", "not"} {
		delete(s, k)
	}
	if b, _ := s["nullable"].(bool); b {
		delete(s, "type")
		delete(s, "items")
		delete(s, "properties")
		delete(s, "nullable")
	}
	if b, _ := s["x-kubernetes-preserve-unknown-fields"].(bool); b {
		delete(s, "items")
		delete(s, "properties")
		if s["type"] == "object" {
			delete(s, "type")
		}
	}
	if _, ok := s["items"]; !ok && s["type"] == "array" {
		delete(s, "type")
	}
	dropNullableRequired(s)
	props, _ := s["properties"].(map[string]any)
	for _, p := range props {
		if sub, ok := p.(map[string]any); ok {
			structuralV2(sub)
		}
	}
	for _, k := range []string{"items", "additionalProperties"} {
		if sub, ok := s[k].(map[string]any); ok {
			structuralV2(sub)
		}
	}
}

// dropNullableRequired removes from s's required list its nullable
// properties, and the whole list when additionalProperties is nullable
// (runs before the children lose their nullable member).
func dropNullableRequired(s map[string]any) {
	req, ok := s["required"].([]any)
	if !ok {
		return
	}
	if ap, ok := s["additionalProperties"].(map[string]any); ok && ap["nullable"] == true {
		delete(s, "required")
		return
	}
	props, _ := s["properties"].(map[string]any)
	kept := req[:0:0]
	for _, r := range req {
		name, _ := r.(string)
		if p, ok := props[name].(map[string]any); ok && p["nullable"] == true {
			continue
		}
		kept = append(kept, r)
	}
	if len(kept) == 0 {
		delete(s, "required")
		return
	}
	s["required"] = kept
}
