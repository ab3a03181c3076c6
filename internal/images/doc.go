// Package images holds the Go programs baked into orkit's bundled container
// images: pause (orkit.local/pause:v1), the process that holds a pod
// sandbox's namespaces, and hello (orkit.local/hello:v1), a small HTTP server
// and multi-call tool used by tests, examples and the minicluster. The
// images are built by internal/imagebuild; Refs lists them.
package images

// Image refs of the bundled images.
const (
	// PauseRef is the sandbox image.
	PauseRef = "orkit.local/pause:v1"
	// HelloRef is the HTTP server / tool image.
	HelloRef = "orkit.local/hello:v1"
)

// Packages of the bundled images' programs, relative to the module root.
const (
	PausePackage = "./internal/images/pause"
	HelloPackage = "./internal/images/hello"
)
