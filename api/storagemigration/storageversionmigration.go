package storagemigration

import "github.com/orkit/orkit/api/meta"

// GroupName and Version name the API group.
const (
	GroupName = "storagemigration.k8s.io"
	Version   = "v1"
)

// GroupVersion returns storagemigration.k8s.io/v1.
func GroupVersion() meta.GroupVersion { return meta.GroupVersion{Group: GroupName, Version: Version} }

// StorageVersionMigration asks for every object of one resource to be
// rewritten through the API server. Its spec is immutable.
type StorageVersionMigration struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            StorageVersionMigrationSpec   `json:"spec,omitempty"`
	Status          StorageVersionMigrationStatus `json:"status,omitempty"`
}

// StorageVersionMigrationList is a list of StorageVersionMigrations.
type StorageVersionMigrationList = meta.List[StorageVersionMigration]

// StorageVersionMigrationSpec names the resource to migrate.
type StorageVersionMigrationSpec struct {
	Resource GroupResource `json:"resource"`
}

// GroupResource is a resource in an API group ("" for the core group),
// as meta/v1 GroupResource marshals.
type GroupResource struct {
	Group    string `json:"group"`
	Resource string `json:"resource"`
}

// MigrationConditionType names a migration condition.
type MigrationConditionType string

// The migration conditions. Succeeded and Failed are final and never
// both True.
const (
	MigrationRunning   MigrationConditionType = "Running"
	MigrationSucceeded MigrationConditionType = "Succeeded"
	MigrationFailed    MigrationConditionType = "Failed"
)

// StorageVersionMigrationStatus is the progress of a migration.
type StorageVersionMigrationStatus struct {
	// Conditions are Running, Succeeded and Failed.
	Conditions []meta.Condition `json:"conditions,omitempty"`
	// ResourceVersion is the resource's list resourceVersion when the
	// migration started: objects at or below it are rewritten. Once set
	// it never changes.
	ResourceVersion string `json:"resourceVersion,omitempty"`
}

// Condition returns the condition of type t, or nil.
func (s *StorageVersionMigrationStatus) Condition(t MigrationConditionType) *meta.Condition {
	for i := range s.Conditions {
		if s.Conditions[i].Type == string(t) {
			return &s.Conditions[i]
		}
	}
	return nil
}

// IsTrue reports whether condition t is True.
func (s *StorageVersionMigrationStatus) IsTrue(t MigrationConditionType) bool {
	c := s.Condition(t)
	return c != nil && c.Status == meta.ConditionTrue
}

// SetCondition adds c or replaces the condition of its type, keeping the
// old LastTransitionTime when the status did not change (as meta/v1
// SetStatusCondition). It reports whether anything changed.
func (s *StorageVersionMigrationStatus) SetCondition(c meta.Condition) bool {
	old := s.Condition(MigrationConditionType(c.Type))
	if old == nil {
		s.Conditions = append(s.Conditions, c)
		return true
	}
	if old.Status == c.Status && old.Reason == c.Reason && old.Message == c.Message && old.ObservedGeneration == c.ObservedGeneration {
		return false
	}
	if old.Status == c.Status {
		c.LastTransitionTime = old.LastTransitionTime
	}
	*old = c
	return true
}
