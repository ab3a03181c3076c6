package core

import "github.com/orkit/orkit/api/meta"

// Secret holds sensitive data. Data values are bytes and travel as base64
// in JSON; StringData is a write-only convenience merged into Data by the
// API server.
type Secret struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Immutable       *bool             `json:"immutable,omitempty"`
	Data            map[string][]byte `json:"data,omitempty"`
	StringData      map[string]string `json:"stringData,omitempty"`
	Type            SecretType        `json:"type,omitempty"`
}

// SecretList is a list of secrets.
type SecretList = meta.List[Secret]

// SecretType says what a Secret holds and which keys it must have.
type SecretType string

// The secret types and their required keys.
const (
	SecretTypeOpaque              SecretType = "Opaque"
	SecretTypeServiceAccountToken SecretType = "kubernetes.io/service-account-token"
	SecretTypeDockercfg           SecretType = "kubernetes.io/dockercfg"
	SecretTypeDockerConfigJSON    SecretType = "kubernetes.io/dockerconfigjson"
	SecretTypeBasicAuth           SecretType = "kubernetes.io/basic-auth"
	SecretTypeSSHAuth             SecretType = "kubernetes.io/ssh-auth"
	SecretTypeTLS                 SecretType = "kubernetes.io/tls"
	SecretTypeBootstrapToken      SecretType = "bootstrap.kubernetes.io/token"

	ServiceAccountTokenKey      = "token"
	ServiceAccountKubeconfigKey = "kubernetes.kubeconfig"
	ServiceAccountRootCAKey     = "ca.crt"
	ServiceAccountNamespaceKey  = "namespace"
	DockerConfigKey             = ".dockercfg"
	DockerConfigJSONKey         = ".dockerconfigjson"
	BasicAuthUsernameKey        = "username"
	BasicAuthPasswordKey        = "password"
	SSHAuthPrivateKey           = "ssh-privatekey"
	TLSCertKey                  = "tls.crt"
	TLSPrivateKeyKey            = "tls.key"
)
