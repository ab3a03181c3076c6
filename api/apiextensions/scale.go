package apiextensions

import (
	"fmt"
	"math"
	"strings"

	"github.com/orkit/orkit/api/field"
)

// Scale is what the scale subresource of a custom resource reads and
// writes, at the paths of CustomResourceSubresourceScale.
type Scale struct {
	// SpecReplicas is the value at specReplicasPath (0 when unset).
	SpecReplicas int32
	// StatusReplicas is the value at statusReplicasPath (0 when unset).
	StatusReplicas int32
	// Selector is the string at labelSelectorPath ("" when unset).
	Selector string
}

// ValidateScale checks the replica counts and selector of a custom
// resource whose version has a scale subresource, as kube-apiserver does
// on every write: the counts must be non-negative int32 integers and the
// selector a string. Errors are at the JSON paths (".spec.replicas").
func ValidateScale(obj map[string]any, sc *CustomResourceSubresourceScale) field.ErrorList {
	if sc == nil {
		return nil
	}
	var errs field.ErrorList
	for _, path := range []string{sc.SpecReplicasPath, sc.StatusReplicasPath} {
		v, found := lookupPath(obj, path)
		if !found {
			continue
		}
		i, ok := v.(int64)
		switch {
		case !ok:
			errs = append(errs, field.Invalid(field.NewPath(path), 0, fmt.Sprintf("%s accessor error: %v is of the type %T, expected int64", path, v, v)))
		case i < 0:
			errs = append(errs, field.Invalid(field.NewPath(path), i, "should be a non-negative integer"))
		case i > math.MaxInt32:
			errs = append(errs, field.Invalid(field.NewPath(path), i, fmt.Sprintf("should be less than or equal to %v", math.MaxInt32)))
		}
	}
	if sc.LabelSelectorPath != nil && *sc.LabelSelectorPath != "" {
		if v, found := lookupPath(obj, *sc.LabelSelectorPath); found {
			if _, ok := v.(string); !ok {
				errs = append(errs, field.Invalid(field.NewPath(*sc.LabelSelectorPath), "", fmt.Sprintf("%s accessor error: %v is of the type %T, expected string", *sc.LabelSelectorPath, v, v)))
			}
		}
	}
	return errs
}

// ScaleOf reads the scale of a custom resource.
func ScaleOf(obj map[string]any, sc *CustomResourceSubresourceScale) Scale {
	var s Scale
	if v, ok := lookupPath(obj, sc.SpecReplicasPath); ok {
		s.SpecReplicas = toInt32(v)
	}
	if v, ok := lookupPath(obj, sc.StatusReplicasPath); ok {
		s.StatusReplicas = toInt32(v)
	}
	if sc.LabelSelectorPath != nil {
		if v, ok := lookupPath(obj, *sc.LabelSelectorPath); ok {
			s.Selector, _ = v.(string)
		}
	}
	return s
}

// SetSpecReplicas writes n at specReplicasPath, creating the objects on
// the way; it fails when a value on the way is not an object.
func SetSpecReplicas(obj map[string]any, sc *CustomResourceSubresourceScale, n int32) error {
	parts := splitPath(sc.SpecReplicasPath)
	m := obj
	for _, p := range parts[:len(parts)-1] {
		next, ok := m[p]
		if !ok || next == nil {
			child := map[string]any{}
			m[p], m = child, child
			continue
		}
		if m, ok = next.(map[string]any); !ok {
			return fmt.Errorf("set %s: %s is not an object", sc.SpecReplicasPath, p)
		}
	}
	m[parts[len(parts)-1]] = int64(n)
	return nil
}

func splitPath(path string) []string {
	return strings.Split(strings.TrimPrefix(path, "."), ".")
}

// lookupPath finds the value at a simple JSON path (".status.replicas").
func lookupPath(obj map[string]any, path string) (any, bool) {
	var cur any = obj
	for _, p := range splitPath(path) {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[p]; !ok {
			return nil, false
		}
	}
	return cur, true
}

func toInt32(v any) int32 {
	switch x := v.(type) {
	case int64:
		return int32(max(min(x, math.MaxInt32), math.MinInt32))
	case float64:
		return int32(max(min(x, math.MaxInt32), math.MinInt32))
	}
	return 0
}
