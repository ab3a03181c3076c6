package clientgo_test

import (
	"flag"
	"os"
	"testing"

	"k8s.io/klog/v2"
)

// klog's flags on the test binary: `go test ./clientgo -args -v=4` shows
// what client-go's reflectors do.
func init() { klog.InitFlags(nil) }

// TestMain runs the test binary as a leader-election candidate when
// TestLeaderElectionHandover starts it as one (candidateEnv set), and
// as the tests otherwise.
func TestMain(m *testing.M) {
	if id := os.Getenv(candidateEnv); id != "" {
		flag.Parse()
		os.Exit(runCandidate(id, os.Getenv("KUBECONFIG")))
	}
	os.Exit(m.Run())
}
