package cluster

import (
	"os"
	"os/exec"
	"testing"
)

// RequireKubectl skips t when kubectl is not on PATH, and fails it
// instead under CI=true, where every prerequisite must be present.
func RequireKubectl(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("kubectl"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("kubectl is missing (CI=true, so this fails instead of skipping): %v", err)
		}
		t.Skip("kubectl is missing")
	}
}
