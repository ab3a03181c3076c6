//go:build tools

// Package suite only pins the conformance suite's packages so that go mod tidy
// records every module they need; nothing here is compiled.
package suite

import (
	_ "k8s.io/kubernetes/test/e2e"
	_ "k8s.io/kubernetes/test/images/agnhost"
)
