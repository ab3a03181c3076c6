package core

import "github.com/orkit/orkit/api/meta"

// Binding binds a pod to a node: the scheduler POSTs one to
// pods/{name}/binding, and the API server sets the pod's nodeName.
type Binding struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Target          ObjectReference `json:"target"`
}

// BindingList is a list of bindings (never served; the scheme needs one).
type BindingList = meta.List[Binding]
