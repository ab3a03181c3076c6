package fake_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/cri"
	"github.com/orkit/orkit/cri/fake"
)

// runningHello starts a hello server container and returns its ID.
func runningHello(t testing.TB, rt *fake.Runtime) string {
	ctx := context.Background()
	sbCfg := cri.PodSandboxConfig{Metadata: cri.PodSandboxMetadata{Name: "web", Namespace: "default", UID: "u1"}}
	sb, err := rt.RunPodSandbox(ctx, sbCfg)
	require.NoError(t, err)
	ctr, err := rt.CreateContainer(ctx, sb, cri.ContainerConfig{Metadata: cri.ContainerMetadata{Name: "app"},
		Image: cri.ImageSpec{Image: fake.DefaultHelloImage}}, sbCfg)
	require.NoError(t, err)
	require.NoError(t, rt.StartContainer(ctx, ctr))
	return ctr
}

func ExampleRuntime_Exec() {
	rt, _ := fake.New()
	defer rt.Close()
	ctx := context.Background()
	sbCfg := cri.PodSandboxConfig{Metadata: cri.PodSandboxMetadata{Name: "web", Namespace: "default", UID: "u1"}}
	sb, _ := rt.RunPodSandbox(ctx, sbCfg)
	ctr, _ := rt.CreateContainer(ctx, sb, cri.ContainerConfig{Metadata: cri.ContainerMetadata{Name: "app"},
		Image: cri.ImageSpec{Image: fake.DefaultHelloImage}}, sbCfg)
	_ = rt.StartContainer(ctx, ctr)
	code, err := rt.Exec(ctx, ctr, cri.ExecRequest{
		Cmd:   []string{"/hello", "cat", "-"}, // copies stdin to stdout
		Stdin: strings.NewReader("hello from stdin\n"), Stdout: os.Stdout,
	})
	fmt.Println(code, err)
	// Output:
	// hello from stdin
	// 0 <nil>
}

func TestExecFailureAndClosedResize(t *testing.T) {
	rt, err := fake.New(fake.WithFailure("Exec", cri.ErrUnavailable))
	require.NoError(t, err)
	defer rt.Close()
	ctr := runningHello(t, rt)
	_, err = rt.Exec(context.Background(), ctr, cri.ExecRequest{Cmd: []string{"/hello", "echo"}})
	require.ErrorIs(t, err, cri.ErrUnavailable, "failure injection names Exec")

	rt2, err := fake.New()
	require.NoError(t, err)
	defer rt2.Close()
	ctr = runningHello(t, rt2)
	sizes := make(chan cri.TerminalSize)
	close(sizes) // a closed Resize channel ends nothing
	var out strings.Builder
	code, err := rt2.Exec(context.Background(), ctr, cri.ExecRequest{Cmd: []string{"/hello", "ttysize"}, TTY: true,
		Stdin: strings.NewReader("\nq\n"), Stdout: &out, Resize: sizes})
	require.NoError(t, err)
	assert.Equal(t, int32(0), code)
	assert.Equal(t, "0 0\r\n", out.String())
}
