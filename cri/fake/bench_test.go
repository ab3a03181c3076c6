package fake_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/cri"
	"github.com/orkit/orkit/cri/fake"
)

// BenchmarkNodeMemory measures the heap one simulated node costs: a
// Runtime with the default images and 10 running pods of one container
// each. It reports bytes/node.
func BenchmarkNodeMemory(b *testing.B) {
	ctx := context.Background()
	const nodes, pods = 1000, 10
	for range b.N {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		all := make([]*fake.Runtime, nodes)
		for i := range all {
			r, err := fake.New(fake.WithDeterministicIDs(fmt.Sprintf("n%d-", i)))
			require.NoError(b, err)
			all[i] = r
			for p := range pods {
				cfg := cri.PodSandboxConfig{Metadata: cri.PodSandboxMetadata{Name: fmt.Sprint("p", p), Namespace: "default",
					UID: fmt.Sprint("u", p)}, Labels: map[string]string{"app": "web"}}
				sb, err := r.RunPodSandbox(ctx, cfg)
				require.NoError(b, err)
				c, err := r.CreateContainer(ctx, sb, cri.ContainerConfig{Metadata: cri.ContainerMetadata{Name: "c"},
					Image: cri.ImageSpec{Image: fake.DefaultHelloImage}, Labels: map[string]string{"app": "web"}}, cfg)
				require.NoError(b, err)
				require.NoError(b, r.StartContainer(ctx, c))
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/nodes, "bytes/node")
		runtime.KeepAlive(all)
	}
}

// BenchmarkPodLifecycle measures one pod's full round trip through the fake.
func BenchmarkPodLifecycle(b *testing.B) {
	r, err := fake.New()
	require.NoError(b, err)
	defer r.Close()
	ctx := context.Background()
	b.ReportAllocs()
	for i := range b.N {
		cfg := cri.PodSandboxConfig{Metadata: cri.PodSandboxMetadata{Name: "p", Namespace: "default", UID: fmt.Sprint(i)}}
		sb, _ := r.RunPodSandbox(ctx, cfg)
		c, _ := r.CreateContainer(ctx, sb, cri.ContainerConfig{Metadata: cri.ContainerMetadata{Name: "c"},
			Image: cri.ImageSpec{Image: fake.DefaultHelloImage}}, cfg)
		_ = r.StartContainer(ctx, c)
		_ = r.StopContainer(ctx, c, 0)
		_ = r.RemovePodSandbox(ctx, sb)
	}
}
