package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"

	"github.com/orkit/orkit/api/meta"
)

// Unstructured is an object of any kind, for untyped access (DynamicFor):
// apiVersion, kind and metadata decoded into their typed forms, and every
// other top-level field (spec, status, data, ...) kept as decoded JSON in
// Content (map[string]any, []any, string, float64, bool, nil). It
// implements meta.Object, so it goes everywhere a typed object goes.
// Encoding writes apiVersion, kind and metadata over Content's keys of the
// same name. Values are plain data with no synchronisation.
type Unstructured struct {
	meta.TypeMeta
	meta.ObjectMeta
	Content map[string]any
}

var _ meta.Object = (*Unstructured)(nil)

// MarshalJSON writes Content with apiVersion, kind and metadata set from
// the typed fields.
func (u Unstructured) MarshalJSON() ([]byte, error) {
	m := make(map[string]any, len(u.Content)+3)
	maps.Copy(m, u.Content)
	delete(m, "apiVersion")
	delete(m, "kind")
	if u.APIVersion != "" {
		m["apiVersion"] = u.APIVersion
	}
	if u.Kind != "" {
		m["kind"] = u.Kind
	}
	m["metadata"] = &u.ObjectMeta
	return json.Marshal(m)
}

// UnmarshalJSON reads a JSON object; anything else is an error.
func (u *Unstructured) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return fmt.Errorf("unstructured object: %w", err)
	}
	if raw == nil {
		return fmt.Errorf("unstructured object: null is not an object")
	}
	*u = Unstructured{Content: make(map[string]any, len(raw))}
	for k, v := range raw {
		var err error
		switch k {
		case "apiVersion":
			err = json.Unmarshal(v, &u.APIVersion)
		case "kind":
			err = json.Unmarshal(v, &u.Kind)
		case "metadata":
			err = json.Unmarshal(v, &u.ObjectMeta)
		default:
			var x any
			d := json.NewDecoder(bytes.NewReader(v))
			err = d.Decode(&x)
			u.Content[k] = x
		}
		if err != nil {
			return fmt.Errorf("unstructured object: field %q: %w", k, err)
		}
	}
	return nil
}

// Field returns the value at the path of keys (Field("spec", "replicas")),
// and whether every step was there.
func (u *Unstructured) Field(path ...string) (any, bool) {
	var cur any = u.Content
	for _, k := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[k]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// SetField sets the value at the path of keys, creating maps on the way;
// it fails when a step on the path holds something other than a map.
func (u *Unstructured) SetField(value any, path ...string) error {
	if len(path) == 0 {
		return fmt.Errorf("%w: empty field path", ErrRequest)
	}
	if u.Content == nil {
		u.Content = map[string]any{}
	}
	m := u.Content
	for i, k := range path[:len(path)-1] {
		next, ok := m[k]
		if !ok || next == nil {
			nm := map[string]any{}
			m[k], m = nm, nm
			continue
		}
		if m, ok = next.(map[string]any); !ok {
			return fmt.Errorf("%w: field %v is not an object", ErrRequest, path[:i+1])
		}
	}
	m[path[len(path)-1]] = value
	return nil
}
