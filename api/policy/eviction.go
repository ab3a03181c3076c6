package policy

import "github.com/orkit/orkit/api/meta"

// Eviction asks the API server to delete a pod if its
// PodDisruptionBudget allows: the body of POST pods/<name>/eviction.
// metadata.name is the pod's (it may be empty; the URL names the pod).
type Eviction struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	// DeleteOptions are used to delete the pod once the eviction is
	// allowed.
	DeleteOptions *meta.DeleteOptions `json:"deleteOptions,omitempty"`
}
