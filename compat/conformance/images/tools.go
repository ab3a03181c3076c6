//go:build tools

// Package images only pins the programs compat/conformance/images.sh
// builds into images, so that go mod tidy records their modules; nothing
// here is compiled.
package images

import (
	_ "github.com/orkit/orkit/images/hello"
	_ "github.com/orkit/orkit/images/pause"
	_ "k8s.io/kubernetes/test/images/agnhost"
	_ "k8s.io/sample-apiserver"
)
