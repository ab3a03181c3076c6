// Package testenv is the one helper tests use to get a private containerd:
// New checks the prerequisites (root, containerd, the runc shim, runc, the
// CNI plugins), starts containerd as a child process on a temporary
// directory (cri/containerd/daemon), imports the bundled test images
// (built by the public package images) and, on t.Cleanup, stops it and removes
// everything it made, mounts included.
//
// Without the prerequisites a test is skipped with the exact reason; with
// the environment variable CI=true it fails instead.
package testenv
