package cri

// ImageSpec names an image: a reference ("orkit.local/hello:v1",
// "127.0.0.1:5000/x@sha256:...") or an image ID.
type ImageSpec struct {
	Image       string
	Annotations map[string]string
}

// AuthConfig is the credentials for a registry, as in a docker config
// file: Username and Password, or Auth (base64 "user:password"), or an
// IdentityToken (OAuth2 refresh token) or RegistryToken (bearer token).
type AuthConfig struct {
	Username      string
	Password      string
	Auth          string
	ServerAddress string
	IdentityToken string
	RegistryToken string
}

// Image is an image stored on the node.
type Image struct {
	// ID is the image's config digest ("sha256:...").
	ID string
	// RepoTags are the tagged names ("orkit.local/hello:v1").
	RepoTags []string
	// RepoDigests are the digested names ("repo@sha256:...").
	RepoDigests []string
	// Size is the size of the image's content in bytes.
	Size uint64
}

// ImageFilter selects images; the zero value matches all.
type ImageFilter struct {
	// Image, when set, matches images with that tag, digest or ID.
	Image ImageSpec
}
