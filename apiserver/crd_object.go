package apiserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/orkit/orkit/api/apiextensions/schema"
	"github.com/orkit/orkit/api/meta"
)

// CustomObject is one custom resource (an object of a kind a
// CustomResourceDefinition declares) as the API server holds it:
// apiVersion, kind and metadata in their typed forms, every other
// top-level field (spec, status, ...) in Content, in the canonical JSON
// form of package schema (nil, bool, int64, float64, string, []any,
// map[string]any). It encodes with apiVersion, kind and metadata first,
// the other fields in key order, so equal objects encode to equal bytes.
// Values are plain data with no synchronisation; the server never changes
// an object it has handed out (readers share them read-only).
type CustomObject struct {
	meta.TypeMeta
	meta.ObjectMeta
	// Content holds the top-level fields other than apiVersion, kind and
	// metadata.
	Content map[string]any
	// prune, set on objects the resource's Type.New makes, prunes a
	// decoded request body and returns the paths of the fields it
	// removed (decodeProblems); objects read from storage are not pruned.
	prune func(*CustomObject) []string
}

var _ meta.Object = (*CustomObject)(nil)

// MarshalJSON writes apiVersion, kind and metadata, then Content's fields
// in key order.
func (o *CustomObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	if o.APIVersion != "" {
		b.WriteString(`"apiVersion":`)
		b.WriteString(strconv.Quote(o.APIVersion))
		b.WriteByte(',')
	}
	if o.Kind != "" {
		b.WriteString(`"kind":`)
		b.WriteString(strconv.Quote(o.Kind))
		b.WriteByte(',')
	}
	m, err := json.Marshal(&o.ObjectMeta)
	if err != nil {
		return nil, err
	}
	b.WriteString(`"metadata":`)
	b.Write(m)
	keys := make([]string, 0, len(o.Content))
	for k := range o.Content {
		if k != "apiVersion" && k != "kind" && k != "metadata" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		kb, _ := json.Marshal(k)
		v, err := json.Marshal(o.Content[k])
		if err != nil {
			return nil, fmt.Errorf("custom object field %q: %w", k, err)
		}
		b.WriteByte(',')
		b.Write(kb)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads a JSON object (anything else is an error) into the
// canonical form; apiVersion and kind must be strings and metadata an
// ObjectMeta.
func (o *CustomObject) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	if raw == nil {
		return fmt.Errorf("null is not an object")
	}
	o.TypeMeta, o.ObjectMeta = meta.TypeMeta{}, meta.ObjectMeta{}
	o.Content = make(map[string]any, len(raw))
	for k, v := range raw {
		var err error
		switch k {
		case "apiVersion":
			err = json.Unmarshal(v, &o.APIVersion)
		case "kind":
			err = json.Unmarshal(v, &o.Kind)
		case "metadata":
			if !bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
				err = json.Unmarshal(v, &o.ObjectMeta)
			}
		default:
			o.Content[k], err = schema.DecodeJSON(v)
		}
		if err != nil {
			return fmt.Errorf("field %q: %w", k, err)
		}
	}
	return nil
}

// decodeProblems prunes an object just decoded from a request body (the
// API server's decoder calls it) and returns the fields it removed as
// strict field validation words them.
func (o *CustomObject) decodeProblems() []string {
	if o.prune == nil {
		return nil
	}
	unknown := o.prune(o)
	out := make([]string, 0, len(unknown))
	for _, p := range unknown {
		out = append(out, fmt.Sprintf("unknown field %q", p))
	}
	return out
}

// Object returns the whole object as one canonical JSON map (apiVersion,
// kind and metadata included), the form schemas, CEL rules and printer
// columns read. The map shares Content's values; metadata is a fresh map.
func (o *CustomObject) Object() map[string]any {
	out := make(map[string]any, len(o.Content)+3)
	for k, v := range o.Content {
		out[k] = v
	}
	out["apiVersion"], out["kind"] = o.APIVersion, o.Kind
	if b, err := json.Marshal(&o.ObjectMeta); err == nil {
		if m, err := schema.DecodeJSON(b); err == nil {
			out["metadata"] = m
		}
	}
	return out
}

// setObject takes back a map made by Object (after defaulting or pruning
// changed it): every field but apiVersion, kind and metadata goes to
// Content.
func (o *CustomObject) setObject(m map[string]any) {
	o.Content = make(map[string]any, len(m))
	for k, v := range m {
		if k != "apiVersion" && k != "kind" && k != "metadata" {
			o.Content[k] = v
		}
	}
}

// rewriteAPIVersion returns stored (a CustomObject's encoding, which
// starts with its apiVersion) with the apiVersion replaced by apiVersion;
// stored as it is when it has that one already or does not start so.
func rewriteAPIVersion(stored []byte, apiVersion string) []byte {
	const prefix = `{"apiVersion":"`
	if !bytes.HasPrefix(stored, []byte(prefix)) {
		return stored
	}
	end := bytes.IndexByte(stored[len(prefix):], '"')
	if end < 0 || string(stored[len(prefix):len(prefix)+end]) == apiVersion {
		return stored
	}
	out := make([]byte, 0, len(stored)+len(apiVersion))
	out = append(out, prefix...)
	out = append(out, apiVersion...)
	return append(out, stored[len(prefix)+end:]...)
}
