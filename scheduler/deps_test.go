package scheduler_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNoServerDependency: the scheduler talks to the API server only
// through client; outside its _test files nothing under scheduler/
// depends on the API server, the store or the control plane (the test
// harness internal/simcluster is imported by _test files only).
func TestNoServerDependency(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/orkit/orkit/scheduler/...").CombinedOutput()
	require.NoError(t, err, "%s", out)
	for _, pkg := range strings.Fields(string(out)) {
		for _, banned := range []string{"github.com/orkit/orkit/apiserver", "github.com/orkit/orkit/store", "github.com/orkit/orkit/controlplane"} {
			if pkg == banned || strings.HasPrefix(pkg, banned+"/") {
				t.Errorf("scheduler depends on %s", pkg)
			}
		}
	}
}
