package containerd_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/orkit/orkit/cri"
	ctrd "github.com/orkit/orkit/cri/containerd"
)

func ExampleCopyLog() {
	var out bytes.Buffer
	now := func() time.Time { return time.Date(2016, 10, 6, 0, 17, 9, 669794202, time.UTC) }
	ctrd.CopyLog(&out, strings.NewReader("hello\nworld"), "stdout", now)
	fmt.Print(out.String())
	// Output:
	// 2016-10-06T00:17:09.669794202Z stdout F hello
	// 2016-10-06T00:17:09.669794202Z stdout P world
}

func ExampleParseLogLine() {
	e, err := ctrd.ParseLogLine([]byte("2016-10-06T00:17:09.669794202Z stderr P part"))
	if err != nil {
		panic(err)
	}
	fmt.Println(e.Stream, e.Partial, string(e.Text))
	// Output: stderr true part
}

// Example shows the kubelet's use of the runtime: a sandbox, its network
// namespace handed to CNI, one container, and the teardown. (Not run: it
// needs root and a containerd; see the package's integration tests.)
func Example() {
	ctx := context.Background()
	rt, err := ctrd.New(ctx, "/run/orkit/containerd/containerd.sock", ctrd.WithStateDir("/run/orkit/cri"))
	if err != nil {
		panic(err)
	}
	defer rt.Close()
	pod := cri.PodSandboxConfig{
		Metadata:     cri.PodSandboxMetadata{Name: "web", UID: "5f1c", Namespace: "default"},
		LogDirectory: "/var/log/pods/default_web_5f1c",
	}
	sb, err := rt.RunPodSandbox(ctx, pod)
	if err != nil {
		panic(err)
	}
	st, _ := rt.PodSandboxStatus(ctx, sb)
	fmt.Println("set up networking in", st.NetworkNamespacePath)
	// ... cni SetUp, then rt.UpdatePodSandboxNetwork(ctx, sb, ...)
	id, err := rt.CreateContainer(ctx, sb, cri.ContainerConfig{
		Metadata: cri.ContainerMetadata{Name: "hello"},
		Image:    cri.ImageSpec{Image: "orkit.local/hello:v1"},
		LogPath:  "hello/0.log",
	}, pod)
	if err != nil {
		panic(err)
	}
	if err := rt.StartContainer(ctx, id); err != nil {
		panic(err)
	}
	_ = rt.StopPodSandbox(ctx, sb)
	// ... cni TearDown
	_ = rt.RemovePodSandbox(ctx, sb)
}
