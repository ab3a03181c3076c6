package apps

import "github.com/orkit/orkit/api/meta"

// ControllerRevision is an immutable snapshot of a StatefulSet's or
// DaemonSet's template, kept for rollback.
type ControllerRevision struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	// Data is the serialised state (a strategic-merge patch of the owner),
	// carried as raw JSON and never interpreted here.
	Data meta.RawJSON `json:"data,omitempty"`
	// Revision is the revision number, increasing per owner.
	Revision int64 `json:"revision"`
}

// ControllerRevisionList is a list of ControllerRevisions.
type ControllerRevisionList = meta.List[ControllerRevision]
