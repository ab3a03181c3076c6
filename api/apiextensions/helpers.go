package apiextensions

import "github.com/orkit/orkit/api/meta"

// Condition returns the condition of type t, or nil.
func (crd *CustomResourceDefinition) Condition(t CustomResourceDefinitionConditionType) *CustomResourceDefinitionCondition {
	for i := range crd.Status.Conditions {
		if crd.Status.Conditions[i].Type == t {
			return &crd.Status.Conditions[i]
		}
	}
	return nil
}

// IsConditionTrue reports whether condition t is True.
func (crd *CustomResourceDefinition) IsConditionTrue(t CustomResourceDefinitionConditionType) bool {
	c := crd.Condition(t)
	return c != nil && c.Status == meta.ConditionTrue
}

// SetCondition adds or replaces the condition of c's type; the transition
// time is kept when the status does not change, and set to now (or c's
// own time) when it does.
func (crd *CustomResourceDefinition) SetCondition(c CustomResourceDefinitionCondition) {
	if c.LastTransitionTime.IsZero() {
		c.LastTransitionTime = meta.Now()
	}
	old := crd.Condition(c.Type)
	if old == nil {
		crd.Status.Conditions = append(crd.Status.Conditions, c)
		return
	}
	if old.Status == c.Status {
		c.LastTransitionTime = old.LastTransitionTime
	}
	*old = c
}

// RemoveCondition drops the condition of type t.
func (crd *CustomResourceDefinition) RemoveCondition(t CustomResourceDefinitionConditionType) {
	out := crd.Status.Conditions[:0]
	for _, c := range crd.Status.Conditions {
		if c.Type != t {
			out = append(out, c)
		}
	}
	crd.Status.Conditions = out
}

// StorageVersion returns the name of the version marked storage, or "".
func (crd *CustomResourceDefinition) StorageVersion() string {
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			return v.Name
		}
	}
	return ""
}

// Version returns the version named name, or nil.
func (crd *CustomResourceDefinition) Version(name string) *CustomResourceDefinitionVersion {
	for i := range crd.Spec.Versions {
		if crd.Spec.Versions[i].Name == name {
			return &crd.Spec.Versions[i]
		}
	}
	return nil
}

// HasServedVersion reports whether version name exists and is served.
func (crd *CustomResourceDefinition) HasServedVersion(name string) bool {
	v := crd.Version(name)
	return v != nil && v.Served
}
