package meta

import "encoding/json"

// DeletionPropagation says what happens to an object's dependents.
type DeletionPropagation string

// The propagation policies the garbage collector honours.
const (
	DeletePropagationOrphan     DeletionPropagation = "Orphan"
	DeletePropagationBackground DeletionPropagation = "Background"
	DeletePropagationForeground DeletionPropagation = "Foreground"
)

// Finalizers the garbage collector uses for the non-background policies.
const (
	FinalizerOrphanDependents = "orphan"
	FinalizerDeleteDependents = "foregroundDeletion"
)

// DeleteOptions is the body of a DELETE.
type DeleteOptions struct {
	TypeMeta           `json:",inline"`
	GracePeriodSeconds *int64               `json:"gracePeriodSeconds,omitempty"`
	Preconditions      *Preconditions       `json:"preconditions,omitempty"`
	OrphanDependents   *bool                `json:"orphanDependents,omitempty"`
	PropagationPolicy  *DeletionPropagation `json:"propagationPolicy,omitempty"`
	DryRun             []string             `json:"dryRun,omitempty"`
}

// Preconditions must hold for a delete to go ahead.
type Preconditions struct {
	UID             *UID    `json:"uid,omitempty"`
	ResourceVersion *string `json:"resourceVersion,omitempty"`
}

// Watch event types.
const (
	Added    = "ADDED"
	Modified = "MODIFIED"
	Deleted  = "DELETED"
	Bookmark = "BOOKMARK"
	Error    = "ERROR"
)

// WatchEvent is one frame of a watch stream: {"type":..., "object":...}.
// Object holds the encoded object (a Status for ERROR).
type WatchEvent struct {
	Type   string          `json:"type"`
	Object json.RawMessage `json:"object"`
}

// RawJSON is an opaque JSON value carried through unchanged.
type RawJSON = json.RawMessage
