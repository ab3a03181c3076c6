// Package images builds the container images a node needs from Go
// programs, with no registry: the bundled orkit.local/pause:v1 (PauseRef,
// the sandbox image and cri/containerd's default) and orkit.local/hello:v1
// (HelloRef, a small HTTP server and multi-call tool for tests and
// examples), whose programs are the sub-packages images/pause and
// images/hello, and any other Go main package an embedder names in a
// Spec.
//
// A program is built with CGO_ENABLED=0, -trimpath and an empty build ID,
// placed in a single uncompressed layer with fixed modes, owners and
// mtimes and sorted entries, and written as an OCI image layout tarball
// (oci-layout, index.json with the org.opencontainers.image.ref.name and
// io.containerd.image.name annotations, blobs) plus a docker-save style
// manifest.json, which containerd imports. The same source gives the same
// bytes, so the same manifest digest. Builder caches the tarballs by a
// hash of the program's sources, the Go version and the Spec.
//
// An embedder running real nodes imports the bundled images into each
// node's runtime before its kubelet starts, from the directory of a
// module that requires orkit (the go command builds the programs there):
//
//	b, err := images.New("", "")                  // the module of the working directory
//	_, err = b.BuildAndImport(ctx, rt, images.Bundled()...) // rt: a cri/containerd Runtime
//
// or, with containerd's own tools, from an archive:
//
//	res, err := b.Build(ctx, images.PauseSpec())  // res.Path is the tarball
//	// ctr -n k8s.io images import <res.Path>
//
// The minicluster and the test helper (internal/testenv) do the former.
// Errors wrap the sentinels in errors.go.
package images
