package client

import (
	"fmt"
	"os"
	"path/filepath"

	"sigs.k8s.io/yaml"
)

// Kubeconfig is the file format kubectl uses (*-data fields are []byte,
// base64 in the file as kubectl writes them): clusters, users and contexts
// by name, and the current context.
type Kubeconfig struct {
	APIVersion     string         `json:"apiVersion"`
	Kind           string         `json:"kind"`
	Clusters       []NamedCluster `json:"clusters"`
	Users          []NamedUser    `json:"users"`
	Contexts       []NamedContext `json:"contexts"`
	CurrentContext string         `json:"current-context"`
	Preferences    struct{}       `json:"preferences"`
}

// NamedCluster is a cluster entry.
type NamedCluster struct {
	Name    string  `json:"name"`
	Cluster Cluster `json:"cluster"`
}

// Cluster is where the API server is and how to trust it.
type Cluster struct {
	Server                   string `json:"server"`
	CertificateAuthority     string `json:"certificate-authority,omitempty"`
	CertificateAuthorityData []byte `json:"certificate-authority-data,omitempty"`
	InsecureSkipTLSVerify    bool   `json:"insecure-skip-tls-verify,omitempty"`
	TLSServerName            string `json:"tls-server-name,omitempty"`
}

// NamedUser is a user entry.
type NamedUser struct {
	Name string   `json:"name"`
	User AuthInfo `json:"user"`
}

// AuthInfo holds one user's credentials.
type AuthInfo struct {
	ClientCertificate     string        `json:"client-certificate,omitempty"`
	ClientCertificateData []byte        `json:"client-certificate-data,omitempty"`
	ClientKey             string        `json:"client-key,omitempty"`
	ClientKeyData         []byte        `json:"client-key-data,omitempty"`
	Token                 string        `json:"token,omitempty"`
	TokenFile             string        `json:"tokenFile,omitempty"`
	Username              string        `json:"username,omitempty"`
	Password              string        `json:"password,omitempty"`
	AuthProvider          *AuthProvider `json:"auth-provider,omitempty"`
}

// AuthProvider carries OIDC credentials (id-token) as kubectl stores them.
type AuthProvider struct {
	Name   string            `json:"name"`
	Config map[string]string `json:"config,omitempty"`
}

// NamedContext is a context entry.
type NamedContext struct {
	Name    string  `json:"name"`
	Context Context `json:"context"`
}

// Context pairs a cluster with a user and a default namespace.
type Context struct {
	Cluster   string `json:"cluster"`
	User      string `json:"user"`
	Namespace string `json:"namespace,omitempty"`
}

// NewKubeconfig returns a kubeconfig with one cluster, one user and one
// current context named after them.
func NewKubeconfig(server string, caPEM []byte, userName string, user AuthInfo) *Kubeconfig {
	return &Kubeconfig{
		APIVersion:     "v1",
		Kind:           "Config",
		Clusters:       []NamedCluster{{Name: "orkit", Cluster: Cluster{Server: server, CertificateAuthorityData: caPEM}}},
		Users:          []NamedUser{{Name: userName, User: user}},
		Contexts:       []NamedContext{{Name: userName + "@orkit", Context: Context{Cluster: "orkit", User: userName}}},
		CurrentContext: userName + "@orkit",
	}
}

// Write stores the kubeconfig at path (mode 0600: it holds credentials).
func (k *Kubeconfig) Write(path string) error {
	b, err := yaml.Marshal(k)
	if err != nil {
		return fmt.Errorf("encode kubeconfig: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o600)
}

// LoadKubeconfig reads a kubeconfig file.
func LoadKubeconfig(path string) (*Kubeconfig, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read kubeconfig: %w", err)
	}
	k := &Kubeconfig{}
	if err := yaml.Unmarshal(b, k); err != nil {
		return nil, fmt.Errorf("parse kubeconfig %s: %w", path, err)
	}
	return k, nil
}
