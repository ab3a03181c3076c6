package core

import "github.com/orkit/orkit/api/meta"

// ConfigMap holds configuration data: text in Data, bytes (base64 in JSON)
// in BinaryData; a key may appear in only one of them.
type ConfigMap struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Immutable       *bool             `json:"immutable,omitempty"`
	Data            map[string]string `json:"data,omitempty"`
	BinaryData      map[string][]byte `json:"binaryData,omitempty"`
}

// ConfigMapList is a list of config maps.
type ConfigMapList = meta.List[ConfigMap]
