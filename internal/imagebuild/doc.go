// Package imagebuild turns a Go program of this module into a deterministic
// OCI image tarball that containerd can import: the program is built with
// CGO_ENABLED=0, -trimpath and an empty build ID, placed in a single
// uncompressed layer with fixed modes, owners and mtimes and sorted entries,
// and written as an OCI image layout (oci-layout, index.json with the
// org.opencontainers.image.ref.name and io.containerd.image.name
// annotations, blobs) plus a docker-save style manifest.json. The same
// source gives the same bytes, so the same manifest digest.
//
// Builder caches built tarballs by a hash of the program's sources, the Go
// version and the image spec. It is used by tests (internal/testenv) and at
// run time by the minicluster, which import the bundled images (Bundled).
package imagebuild
