package fake_test

import (
	"context"
	"fmt"

	"github.com/orkit/orkit/cri"
	"github.com/orkit/orkit/cri/fake"
)

func ExampleNew() {
	rt, _ := fake.New(fake.WithDeterministicIDs("node-1/"))
	defer rt.Close()
	ctx := context.Background()
	sbCfg := cri.PodSandboxConfig{Metadata: cri.PodSandboxMetadata{Name: "web", Namespace: "default", UID: "u1"}}
	sb, _ := rt.RunPodSandbox(ctx, sbCfg)
	ctr, _ := rt.CreateContainer(ctx, sb, cri.ContainerConfig{
		Metadata: cri.ContainerMetadata{Name: "app"},
		Image:    cri.ImageSpec{Image: fake.DefaultHelloImage},
		Command:  []string{"/hello", "exit", "3"}, // the simulated hello tool exits at once
	}, sbCfg)
	_ = rt.StartContainer(ctx, ctr)
	st, _ := rt.ContainerStatus(ctx, ctr)
	fmt.Println(sb, ctr, st.State, st.ExitCode, st.Reason)
	// Output: node-1/s1 node-1/c2 CONTAINER_EXITED 3 Error
}

func ExampleRuntime_Exit() {
	rt, _ := fake.New()
	defer rt.Close()
	ctx := context.Background()
	events := rt.Events(ctx)
	sbCfg := cri.PodSandboxConfig{Metadata: cri.PodSandboxMetadata{Name: "web", Namespace: "default", UID: "u1"}}
	sb, _ := rt.RunPodSandbox(ctx, sbCfg)
	ctr, _ := rt.CreateContainer(ctx, sb, cri.ContainerConfig{
		Metadata: cri.ContainerMetadata{Name: "server"},
		Image:    cri.ImageSpec{Image: fake.DefaultHelloImage},
	}, sbCfg)
	_ = rt.StartContainer(ctx, ctr) // the server runs until stopped ...
	_ = rt.Exit(ctr, 1)             // ... or until the test says so
	for range 3 {
		ev := <-events
		fmt.Println(ev.Type, ev.ExitCode)
	}
	// Output:
	// CONTAINER_CREATED 0
	// CONTAINER_STARTED 0
	// CONTAINER_EXITED 1
}

func ExampleWithFailure() {
	rt, _ := fake.New(fake.WithFailure("RunPodSandbox", cri.ErrUnavailable))
	defer rt.Close()
	_, err := rt.RunPodSandbox(context.Background(),
		cri.PodSandboxConfig{Metadata: cri.PodSandboxMetadata{Name: "web", Namespace: "default", UID: "u1"}})
	fmt.Println(err)
	// Output: fake runtime RunPodSandbox: injected failure: runtime unavailable
}
