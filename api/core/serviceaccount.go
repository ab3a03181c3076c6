package core

import "github.com/orkit/orkit/api/meta"

// ServiceAccount is an identity for processes in pods.
type ServiceAccount struct {
	meta.TypeMeta                `json:",inline"`
	meta.ObjectMeta              `json:"metadata,omitempty"`
	Secrets                      []ObjectReference      `json:"secrets,omitempty"`
	ImagePullSecrets             []LocalObjectReference `json:"imagePullSecrets,omitempty"`
	AutomountServiceAccountToken *bool                  `json:"automountServiceAccountToken,omitempty"`
}

// ServiceAccountList is a list of service accounts.
type ServiceAccountList = meta.List[ServiceAccount]
