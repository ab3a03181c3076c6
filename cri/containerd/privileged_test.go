package containerd_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/cri"
	ctrd "github.com/orkit/orkit/cri/containerd"
	"github.com/orkit/orkit/internal/testenv"
)

// TestPrivilegedContainerRuns: with WithAllowPrivileged a privileged pod
// and container start and run to completion, with the capabilities this
// process has (a host whose bounding set lacks some must not make runc
// refuse the container, as a fixed "every known capability" set did).
func TestPrivilegedContainerRuns(t *testing.T) {
	env := testenv.New(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rt, err := ctrd.New(ctx, env.Address, ctrd.WithNamespace(env.Namespace), ctrd.WithStateDir(env.StateDir), ctrd.WithAllowPrivileged(true))
	require.NoError(t, err)
	t.Cleanup(func() { rt.Close() })

	sbCfg := podConfig("priv", t.TempDir())
	sbCfg.Linux.Security.Privileged = true
	sb, err := rt.RunPodSandbox(ctxT(t), sbCfg)
	require.NoError(t, err)
	c := helloConfig("priv", "exit", "0")
	c.Linux.Security.Privileged = true
	id := startContainer(t, rt, sb, sbCfg, c)
	st := waitStatus(t, rt, id, exited)
	assert.Equal(t, int32(0), st.ExitCode, "%s: %s", st.Reason, st.Message)
	assert.Equal(t, cri.ReasonCompleted, st.Reason)
}
