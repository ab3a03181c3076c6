package clientgo_test

import (
	"os"
	"testing"

	"k8s.io/klog/v2"
)

// klog's flags on the test binary: `go test ./clientgo -args -v=4` shows
// what client-go's reflectors do.
func init() { klog.InitFlags(nil) }

// TestMain runs the tests, or, in the child TestInClusterConfig starts,
// the in-cluster program.
func TestMain(m *testing.M) {
	if os.Getenv(envChild) != "" {
		os.Exit(inClusterChild())
	}
	os.Exit(m.Run())
}
