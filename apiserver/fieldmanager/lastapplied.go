package fieldmanager

import (
	"bytes"
	"encoding/json"
	"errors"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/merge"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// LastAppliedAnnotation is where client-side apply (kubectl apply without
// --server-side) keeps the configuration it applied last.
const LastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"

// maxLastApplied is the largest last-applied configuration kept: the
// limit Kubernetes puts on all annotations of an object together.
const maxLastApplied = 256 * 1024

// forgiveLastApplied retries an apply that conflicted, for the migration
// from client-side apply: when every conflicting field is in the live
// object's last-applied configuration (the user applied it before, so
// the user may change it), the apply goes ahead as if forced, as
// kube-apiserver does. Otherwise the conflicts not in last-applied stay.
func (f *FieldManager) forgiveLastApplied(live map[string]any, liveTV, configTV *typed.TypedValue, managed fieldpath.ManagedFields, key string, conflicts merge.Conflicts) (*typed.TypedValue, fieldpath.ManagedFields, error) {
	lastApplied, ok := lastAppliedOf(live)
	if !ok {
		return nil, nil, conflicts
	}
	var cfg map[string]any
	if json.Unmarshal([]byte(lastApplied), &cfg) != nil {
		return nil, nil, conflicts
	}
	lastTV, err := f.cfg.TypeConverter.FromUnstructured(withoutManagedFields(canonical(cfg)), true)
	if err != nil {
		return nil, nil, conflicts
	}
	lastSet, err := lastTV.ToFieldSet()
	if err != nil {
		return nil, nil, conflicts
	}
	var remaining merge.Conflicts
	for _, c := range conflicts {
		if !lastSet.Has(c.Path) {
			remaining = append(remaining, c)
		}
	}
	if len(remaining) > 0 {
		return nil, nil, remaining
	}
	return f.updater.Apply(liveTV, configTV, f.version, managed, key, true)
}

// syncLastApplied keeps the client-side apply annotation in step with
// what kubectl applies server-side, so that a later client-side apply
// computes the right patch: when manager is "kubectl" and the live object
// has the annotation, merged gets the applied configuration (without the
// annotation) as its new value, or loses the annotation when that is too
// large.
func syncLastApplied(live, config, merged map[string]any, manager string) error {
	if _, ok := lastAppliedOf(live); !ok || manager != "kubectl" {
		return nil
	}
	cfg := withoutAnnotation(config, LastAppliedAnnotation)
	b, err := json.Marshal(cfg)
	if err != nil {
		return errors.Join(ErrInvalidObject, err)
	}
	// Copy what changes: merged may share maps with live and config.
	md := copyMap(merged["metadata"])
	merged["metadata"] = md
	ann := copyMap(md["annotations"])
	md["annotations"] = ann
	if len(b) > maxLastApplied {
		delete(ann, LastAppliedAnnotation)
		return nil
	}
	ann[LastAppliedAnnotation] = string(b)
	return nil
}

// lastAppliedOf returns the last-applied annotation of obj.
func lastAppliedOf(obj map[string]any) (string, bool) {
	md, _ := obj["metadata"].(map[string]any)
	ann, _ := md["annotations"].(map[string]any)
	s, ok := ann[LastAppliedAnnotation].(string)
	return s, ok && s != ""
}

// withoutAnnotation returns obj without annotation name, copying only
// what it changes.
func withoutAnnotation(obj map[string]any, name string) map[string]any {
	md, _ := obj["metadata"].(map[string]any)
	ann, _ := md["annotations"].(map[string]any)
	if _, ok := ann[name]; !ok {
		return obj
	}
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		out[k] = v
	}
	m := make(map[string]any, len(md))
	for k, v := range md {
		m[k] = v
	}
	a := make(map[string]any, len(ann))
	for k, v := range ann {
		if k != name {
			a[k] = v
		}
	}
	if len(a) == 0 {
		delete(m, "annotations")
	} else {
		m["annotations"] = a
	}
	out["metadata"] = m
	return out
}

// canonical turns float64 numbers that are whole into int64, as the
// schema's canonical form has them.
func canonical(v map[string]any) map[string]any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if dec.Decode(&out) != nil {
		return v
	}
	m, _ := numbers(out).(map[string]any)
	return m
}

// numbers converts json.Number values to int64 or float64.
func numbers(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = numbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = numbers(e)
		}
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	}
	return v
}

// copyMap returns a shallow copy of v if it is a map, else a new map.
func copyMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	out := make(map[string]any, len(m)+1)
	for k, e := range m {
		out[k] = e
	}
	return out
}
