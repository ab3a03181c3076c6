package imagebuild

import (
	"fmt"
	"path"
	"strings"

	"github.com/orkit/orkit/internal/images"
)

// Spec describes an image made of one Go program.
type Spec struct {
	// Ref is the image reference the archive names ("orkit.local/hello:v1").
	Ref string
	// Package is the Go package to build, relative to the module root
	// ("./internal/images/hello").
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
var helloTools = []string{"wget", "cat", "write", "sleep", "exit", "env", "ls", "resolve", "echo", "echo-err", "print", "alloc"}

// PauseSpec is the sandbox image orkit.local/pause:v1.
func PauseSpec() Spec {
	return Spec{Ref: images.PauseRef, Package: images.PausePackage, Binary: "/pause"}
}

// HelloSpec is orkit.local/hello:v1: the hello server on port 8080, its
// tools linked as /bin/<tool>.
func HelloSpec() Spec {
	links := make([]string, 0, len(helloTools))
	for _, t := range helloTools {
		links = append(links, "/bin/"+t)
	}
	return Spec{Ref: images.HelloRef, Package: images.HelloPackage, Binary: "/hello",
		Links: links, ExposedPorts: []string{"8080/tcp"}}
}

// Bundled returns the specs of the images every node imports at start.
func Bundled() []Spec { return []Spec{PauseSpec(), HelloSpec()} }
