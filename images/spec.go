package images

import (
	"fmt"
	"path"
	"strings"
)

// Refs of the bundled images. cri/containerd's default sandbox image is
// PauseRef.
const (
	// PauseRef is the sandbox image: the process that holds a pod
	// sandbox's namespaces.
	PauseRef = "orkit.local/pause:v1"
	// HelloRef is the HTTP server and multi-call tool image.
	HelloRef = "orkit.local/hello:v1"
)

// Import paths of the bundled images' programs. Built by import path,
// they build from any module that requires orkit, not only from orkit's
// own checkout.
const (
	PausePackage = "github.com/orkit/orkit/images/pause"
	HelloPackage = "github.com/orkit/orkit/images/hello"
)

// Spec describes an image made of one Go program.
type Spec struct {
	// Ref is the image reference the archive names ("orkit.local/hello:v1").
	Ref string
	// Package is the Go main package to build: an import path
	// (HelloPackage, "example.com/my/cmd/tool") or a path relative to the
	// Builder's module directory ("./cmd/tool").
	Package string
	// Binary is the program's absolute path in the image; default
	// "/" + the package's last element.
	Binary string
	// Links are extra names (absolute paths) that symlink to Binary, for
	// multi-call programs ("/bin/wget").
	Links []string
	// Entrypoint defaults to [Binary].
	Entrypoint []string
	Cmd        []string
	// Env defaults to ["PATH=/bin:/"].
	Env        []string
	WorkingDir string
	// ExposedPorts are "8080/tcp" style ports.
	ExposedPorts []string
	Labels       map[string]string
}

// withDefaults fills the documented defaults and validates.
func (s Spec) withDefaults() (Spec, error) {
	if s.Ref == "" || s.Package == "" {
		return s, fmt.Errorf("spec needs a ref and a package (got %q, %q): %w", s.Ref, s.Package, ErrInvalidSpec)
	}
	if s.Binary == "" {
		s.Binary = "/" + path.Base(s.Package)
	}
	for _, p := range append([]string{s.Binary}, s.Links...) {
		if !path.IsAbs(p) || path.Clean(p) != p || p == "/" || strings.Contains(p, "..") {
			return s, fmt.Errorf("image path %q must be a clean absolute file path: %w", p, ErrInvalidSpec)
		}
	}
	if len(s.Entrypoint) == 0 {
		s.Entrypoint = []string{s.Binary}
	}
	if len(s.Env) == 0 {
		s.Env = []string{"PATH=/bin:/"}
	}
	return s, nil
}

// helloTools are the hello program's subcommands, linked under /bin.
var helloTools = []string{"wget", "cat", "write", "sleep", "exit", "env", "ls", "resolve", "echo", "echo-err", "print", "alloc", "tar", "test"}

// PauseSpec is the sandbox image orkit.local/pause:v1.
func PauseSpec() Spec {
	return Spec{Ref: PauseRef, Package: PausePackage, Binary: "/pause"}
}

// HelloSpec is orkit.local/hello:v1: the hello server on port 8080, its
// tools linked as /bin/<tool>.
func HelloSpec() Spec {
	links := make([]string, 0, len(helloTools))
	for _, t := range helloTools {
		links = append(links, "/bin/"+t)
	}
	return Spec{Ref: HelloRef, Package: HelloPackage, Binary: "/hello",
		Links: links, ExposedPorts: []string{"8080/tcp"}}
}

// Bundled returns the specs of the images every real node imports at
// start: PauseSpec and HelloSpec.
func Bundled() []Spec { return []Spec{PauseSpec(), HelloSpec()} }
