package critest

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/cri"
)

// Run runs the conformance suite against the runtime h makes, one subtest
// per behaviour, each with a fresh runtime.
func Run(t *testing.T, h Harness) {
	t.Helper()
	require.NotNil(t, h.New, "Harness.New is required")
	require.NotEmpty(t, h.PauseImage, "Harness.PauseImage is required")
	require.NotEmpty(t, h.HelloImage, "Harness.HelloImage is required")
	tests := []struct {
		name string
		run  func(t *testing.T, e *env)
	}{
		{"VersionAndStatus", testVersionAndStatus},
		{"SandboxLifecycle", testSandboxLifecycle},
		{"SandboxErrors", testSandboxErrors},
		{"ContainerLifecycle", testContainerLifecycle},
		{"ExitCodeAndReason", testExitCodeAndReason},
		{"StopTimeoutKills", testStopTimeoutKills},
		{"MissingObjects", testMissingObjects},
		{"CreateContainerErrors", testCreateContainerErrors},
		{"ListFilters", testListFilters},
		{"ExecSync", testExecSync},
		{"Exec", testExec},
		{"StopAndRemoveSandboxWithContainers", testStopAndRemoveSandbox},
		{"UpdateContainerResources", testUpdateResources},
		{"Images", testImages},
		{"ImportAndRemoveImage", testImportAndRemoveImage},
		{"EventStreamEndsWithContext", testEventStreamEnds},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.run(t, newEnv(t, h))
		})
	}
}

// env is one subtest's runtime and helpers.
type env struct {
	h   Harness
	rt  cri.Runtime
	ctx context.Context
	seq atomic.Int64
}

func newEnv(t *testing.T, h Harness) *env {
	rt := h.New(t)
	require.NotNil(t, rt)
	return &env{h: h, rt: rt, ctx: t.Context()}
}

// sandboxConfig returns a config with metadata unique to this subtest.
func (e *env) sandboxConfig(t *testing.T, name string) cri.PodSandboxConfig {
	n := e.seq.Add(1)
	cfg := cri.PodSandboxConfig{
		Metadata: cri.PodSandboxMetadata{Name: name, Namespace: "critest",
			UID: fmt.Sprintf("uid-%s-%d-%d", name, time.Now().UnixNano(), n)},
		Hostname:    name,
		Labels:      map[string]string{"critest": "yes", "pod": name},
		Annotations: map[string]string{"critest/annotation": name},
	}
	if e.h.Sandbox != nil {
		e.h.Sandbox(t, &cfg)
	}
	return cfg
}

func (e *env) runSandbox(t *testing.T, name string) (string, cri.PodSandboxConfig) {
	t.Helper()
	cfg := e.sandboxConfig(t, name)
	id, err := e.rt.RunPodSandbox(e.ctx, cfg)
	require.NoError(t, err)
	require.NotEmpty(t, id)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), e.h.timeout())
		defer cancel()
		_ = e.rt.StopPodSandbox(ctx, id)
		_ = e.rt.RemovePodSandbox(ctx, id)
	})
	return id, cfg
}

// containerConfig runs the hello tool with args ("" args: the server).
func (e *env) containerConfig(name string, args ...string) cri.ContainerConfig {
	cfg := cri.ContainerConfig{
		Metadata:    cri.ContainerMetadata{Name: name},
		Image:       cri.ImageSpec{Image: e.h.HelloImage},
		Labels:      map[string]string{"container": name},
		Annotations: map[string]string{"critest/container": name},
		LogPath:     name + ".log",
	}
	if len(args) > 0 {
		cfg.Command = append([]string{e.h.hello()}, args...)
	}
	return cfg
}

func (e *env) create(t *testing.T, sandboxID string, sbCfg cri.PodSandboxConfig, cfg cri.ContainerConfig) string {
	t.Helper()
	id, err := e.rt.CreateContainer(e.ctx, sandboxID, cfg, sbCfg)
	require.NoError(t, err)
	require.NotEmpty(t, id)
	return id
}

func (e *env) createAndStart(t *testing.T, sandboxID string, sbCfg cri.PodSandboxConfig, cfg cri.ContainerConfig) string {
	t.Helper()
	id := e.create(t, sandboxID, sbCfg, cfg)
	require.NoError(t, e.rt.StartContainer(e.ctx, id))
	return id
}

// waitState polls the container's status until it reaches state.
func (e *env) waitState(t *testing.T, id string, state cri.ContainerState) cri.ContainerStatus {
	t.Helper()
	deadline := time.Now().Add(e.h.timeout())
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		st, err := e.rt.ContainerStatus(e.ctx, id)
		require.NoError(t, err)
		if st.State == state {
			return st
		}
		if time.Now().After(deadline) {
			require.Failf(t, "container did not reach state", "container %s is %s, want %s", id, st.State, state)
		}
		<-tick.C
	}
}

// collectEvents reads events of container id until one of type last
// arrives, and returns their types in order.
func (e *env) collectEvents(t *testing.T, ch <-chan cri.ContainerEvent, id string,
	last cri.ContainerEventType) []cri.ContainerEvent {
	t.Helper()
	timer := time.NewTimer(e.h.timeout())
	defer timer.Stop()
	var got []cri.ContainerEvent
	for {
		select {
		case ev, ok := <-ch:
			require.True(t, ok, "event stream closed early; got %v", got)
			if ev.ContainerID != id {
				continue
			}
			got = append(got, ev)
			if ev.Type == last {
				return got
			}
		case <-timer.C:
			require.Failf(t, "missing event", "no %s event for %s; got %v", last, id, got)
		}
	}
}

func eventTypes(evs []cri.ContainerEvent) []cri.ContainerEventType {
	out := make([]cri.ContainerEventType, 0, len(evs))
	for _, ev := range evs {
		out = append(out, ev.Type)
	}
	return out
}

func testVersionAndStatus(t *testing.T, e *env) {
	v, err := e.rt.Version(e.ctx)
	require.NoError(t, err)
	assert.NotEmpty(t, v.RuntimeName)
	assert.NotEmpty(t, v.RuntimeVersion)
	assert.Equal(t, "v1", v.APIVersion)
	st, err := e.rt.Status(e.ctx)
	require.NoError(t, err)
	ready, ok := st.Condition(cri.RuntimeReady)
	require.True(t, ok, "RuntimeReady reported")
	assert.True(t, ready.Status, "RuntimeReady: %s %s", ready.Reason, ready.Message)
}

func testSandboxLifecycle(t *testing.T, e *env) {
	id, cfg := e.runSandbox(t, "lifecycle")
	st, err := e.rt.PodSandboxStatus(e.ctx, id)
	require.NoError(t, err)
	assert.Equal(t, id, st.ID)
	assert.Equal(t, cfg.Metadata, st.Metadata)
	assert.Equal(t, cri.SandboxReady, st.State)
	assert.False(t, st.CreatedAt.IsZero())
	assert.NotEmpty(t, st.NetworkNamespacePath, "a pod-network sandbox has a netns")
	assert.Equal(t, "lifecycle", st.Labels["pod"])
	assert.Equal(t, "lifecycle", st.Annotations["critest/annotation"])

	list, err := e.rt.ListPodSandbox(e.ctx, cri.PodSandboxFilter{ID: id})
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, cri.SandboxReady, list[0].State)

	net := cri.PodSandboxNetworkStatus{IP: "10.244.9.7", AdditionalIPs: []string{"fd00::7"}}
	require.NoError(t, e.rt.UpdatePodSandboxNetwork(e.ctx, id, net))
	st, err = e.rt.PodSandboxStatus(e.ctx, id)
	require.NoError(t, err)
	assert.Equal(t, net, st.Network)

	require.NoError(t, e.rt.StopPodSandbox(e.ctx, id))
	st, err = e.rt.PodSandboxStatus(e.ctx, id)
	require.NoError(t, err)
	assert.Equal(t, cri.SandboxNotReady, st.State)
	require.NoError(t, e.rt.StopPodSandbox(e.ctx, id), "stop twice")

	require.NoError(t, e.rt.RemovePodSandbox(e.ctx, id))
	_, err = e.rt.PodSandboxStatus(e.ctx, id)
	require.ErrorIs(t, err, cri.ErrNotFound)
	require.NoError(t, e.rt.RemovePodSandbox(e.ctx, id), "remove twice")
	list, err = e.rt.ListPodSandbox(e.ctx, cri.PodSandboxFilter{ID: id})
	require.NoError(t, err)
	assert.Empty(t, list)
}

func testSandboxErrors(t *testing.T, e *env) {
	_, err := e.rt.RunPodSandbox(e.ctx, cri.PodSandboxConfig{})
	require.ErrorIs(t, err, cri.ErrInvalidArgument)

	_, cfg := e.runSandbox(t, "dup")
	_, err = e.rt.RunPodSandbox(e.ctx, cfg)
	require.ErrorIs(t, err, cri.ErrAlreadyExists)
	cfg.Metadata.Attempt++
	id2, err := e.rt.RunPodSandbox(e.ctx, cfg)
	require.NoError(t, err, "a new attempt is a new sandbox")
	require.NoError(t, e.rt.StopPodSandbox(e.ctx, id2))
	require.NoError(t, e.rt.RemovePodSandbox(e.ctx, id2))

	_, err = e.rt.PodSandboxStatus(e.ctx, "no-such-sandbox")
	require.ErrorIs(t, err, cri.ErrNotFound)
	require.NoError(t, e.rt.StopPodSandbox(e.ctx, "no-such-sandbox"))
	require.NoError(t, e.rt.RemovePodSandbox(e.ctx, "no-such-sandbox"))
	err = e.rt.UpdatePodSandboxNetwork(e.ctx, "no-such-sandbox", cri.PodSandboxNetworkStatus{IP: "10.244.0.9"})
	require.ErrorIs(t, err, cri.ErrNotFound)
}

func testContainerLifecycle(t *testing.T, e *env) {
	sb, sbCfg := e.runSandbox(t, "ctr-lifecycle")
	events := e.rt.Events(e.ctx)
	cfg := e.containerConfig("server")
	id := e.create(t, sb, sbCfg, cfg)

	st, err := e.rt.ContainerStatus(e.ctx, id)
	require.NoError(t, err)
	assert.Equal(t, id, st.ID)
	assert.Equal(t, sb, st.PodSandboxID)
	assert.Equal(t, cfg.Metadata, st.Metadata)
	assert.Equal(t, cri.ContainerCreated, st.State)
	assert.False(t, st.CreatedAt.IsZero())
	assert.True(t, st.StartedAt.IsZero())
	assert.NotEmpty(t, st.ImageRef)
	assert.Equal(t, "server", st.Labels["container"])
	assert.Equal(t, "server", st.Annotations["critest/container"])

	require.NoError(t, e.rt.StartContainer(e.ctx, id))
	st = e.waitState(t, id, cri.ContainerRunning)
	assert.False(t, st.StartedAt.IsZero())
	require.ErrorIs(t, e.rt.StartContainer(e.ctx, id), cri.ErrFailedPrecondition, "start twice")

	require.NoError(t, e.rt.StopContainer(e.ctx, id, 10*time.Second))
	st = e.waitState(t, id, cri.ContainerExited)
	assert.Equal(t, int32(0), st.ExitCode, "SIGTERM ends the hello server with 0")
	assert.Equal(t, cri.ReasonCompleted, st.Reason)
	assert.False(t, st.FinishedAt.Before(st.StartedAt))
	require.NoError(t, e.rt.StopContainer(e.ctx, id, time.Second), "stop an exited container")
	require.ErrorIs(t, e.rt.StartContainer(e.ctx, id), cri.ErrFailedPrecondition, "start an exited container")

	require.NoError(t, e.rt.RemoveContainer(e.ctx, id))
	_, err = e.rt.ContainerStatus(e.ctx, id)
	require.ErrorIs(t, err, cri.ErrNotFound)
	require.NoError(t, e.rt.RemoveContainer(e.ctx, id), "remove twice")
	require.NoError(t, e.rt.StopContainer(e.ctx, id, time.Second), "stop a removed container")

	evs := e.collectEvents(t, events, id, cri.ContainerEventDeleted)
	types := eventTypes(evs)
	assert.Equal(t, []cri.ContainerEventType{cri.ContainerEventCreated, cri.ContainerEventStarted,
		cri.ContainerEventExited, cri.ContainerEventDeleted}, types)
	for _, ev := range evs {
		assert.Equal(t, sb, ev.PodSandboxID)
		assert.False(t, ev.Time.IsZero())
	}
}

func testExitCodeAndReason(t *testing.T, e *env) {
	sb, sbCfg := e.runSandbox(t, "exit-code")
	events := e.rt.Events(e.ctx)
	failing := e.createAndStart(t, sb, sbCfg, e.containerConfig("failing", "exit", "3"))
	st := e.waitState(t, failing, cri.ContainerExited)
	assert.Equal(t, int32(3), st.ExitCode)
	assert.Equal(t, cri.ReasonError, st.Reason)
	assert.False(t, st.FinishedAt.IsZero())

	evs := e.collectEvents(t, events, failing, cri.ContainerEventExited)
	types := eventTypes(evs)
	started := slices.Index(types, cri.ContainerEventStarted)
	require.GreaterOrEqual(t, started, 0, "a STARTED event: %v", types)
	assert.Equal(t, cri.ContainerEventExited, types[len(types)-1], "EXITED comes after STARTED: %v", types)
	assert.Less(t, started, len(types)-1)
	assert.Equal(t, int32(3), evs[len(evs)-1].ExitCode)

	cfg := e.containerConfig("timed")
	cfg.Envs = []cri.KeyValue{{Key: "HELLO_EXIT_AFTER", Value: "200ms"}, {Key: "HELLO_EXIT_CODE", Value: "0"}}
	timed := e.createAndStart(t, sb, sbCfg, cfg)
	st = e.waitState(t, timed, cri.ContainerExited)
	assert.Equal(t, int32(0), st.ExitCode)
	assert.Equal(t, cri.ReasonCompleted, st.Reason)
}

func testStopTimeoutKills(t *testing.T, e *env) {
	sb, sbCfg := e.runSandbox(t, "stop-timeout")
	stubborn := e.createAndStart(t, sb, sbCfg, e.containerConfig("stubborn", "sleep-ignore-term", "1h"))
	e.waitState(t, stubborn, cri.ContainerRunning)
	require.NoError(t, e.rt.StopContainer(e.ctx, stubborn, time.Second))
	st := e.waitState(t, stubborn, cri.ContainerExited)
	assert.Equal(t, int32(137), st.ExitCode, "killed after the timeout")
	assert.Equal(t, cri.ReasonError, st.Reason)

	now := e.createAndStart(t, sb, sbCfg, e.containerConfig("killed-now", "sleep-ignore-term", "1h"))
	e.waitState(t, now, cri.ContainerRunning)
	require.NoError(t, e.rt.StopContainer(e.ctx, now, 0))
	st = e.waitState(t, now, cri.ContainerExited)
	assert.Equal(t, int32(137), st.ExitCode, "timeout 0 kills at once")
}

func testMissingObjects(t *testing.T, e *env) {
	const missing = "no-such-container"
	require.NoError(t, e.rt.StopContainer(e.ctx, missing, time.Second))
	require.NoError(t, e.rt.RemoveContainer(e.ctx, missing))
	require.ErrorIs(t, e.rt.StartContainer(e.ctx, missing), cri.ErrNotFound)
	_, err := e.rt.ContainerStatus(e.ctx, missing)
	require.ErrorIs(t, err, cri.ErrNotFound)
	_, err = e.rt.ExecSync(e.ctx, missing, []string{e.h.hello(), "echo", "x"}, time.Second)
	require.ErrorIs(t, err, cri.ErrNotFound)
	err = e.rt.UpdateContainerResources(e.ctx, missing, cri.LinuxContainerResources{MemoryLimitInBytes: 64 << 20})
	require.ErrorIs(t, err, cri.ErrNotFound)
	list, err := e.rt.ListContainers(e.ctx, cri.ContainerFilter{ID: missing})
	require.NoError(t, err)
	assert.Empty(t, list)
}

func testCreateContainerErrors(t *testing.T, e *env) {
	sb, sbCfg := e.runSandbox(t, "create-errors")
	_, err := e.rt.CreateContainer(e.ctx, "no-such-sandbox", e.containerConfig("c"), sbCfg)
	require.ErrorIs(t, err, cri.ErrNotFound, "create in a missing sandbox")

	noName := e.containerConfig("")
	_, err = e.rt.CreateContainer(e.ctx, sb, noName, sbCfg)
	require.ErrorIs(t, err, cri.ErrInvalidArgument)

	missingImage := e.containerConfig("c")
	missingImage.Image.Image = "orkit.local/critest-missing:v0"
	_, err = e.rt.CreateContainer(e.ctx, sb, missingImage, sbCfg)
	require.ErrorIs(t, err, cri.ErrImageNotFound)

	e.create(t, sb, sbCfg, e.containerConfig("dup"))
	_, err = e.rt.CreateContainer(e.ctx, sb, e.containerConfig("dup"), sbCfg)
	require.ErrorIs(t, err, cri.ErrAlreadyExists)
	next := e.containerConfig("dup")
	next.Metadata.Attempt = 1
	e.create(t, sb, sbCfg, next)

	require.NoError(t, e.rt.StopPodSandbox(e.ctx, sb))
	_, err = e.rt.CreateContainer(e.ctx, sb, e.containerConfig("late"), sbCfg)
	require.ErrorIs(t, err, cri.ErrFailedPrecondition, "create in a stopped sandbox")
}

func testListFilters(t *testing.T, e *env) {
	sbA, cfgA := e.runSandbox(t, "list-a")
	sbB, cfgB := e.runSandbox(t, "list-b")
	created := e.create(t, sbA, cfgA, e.containerConfig("created"))
	running := e.createAndStart(t, sbA, cfgA, e.containerConfig("running"))
	other := e.createAndStart(t, sbB, cfgB, e.containerConfig("other"))
	e.waitState(t, running, cri.ContainerRunning)
	e.waitState(t, other, cri.ContainerRunning)

	ids := func(f cri.ContainerFilter) []string {
		list, err := e.rt.ListContainers(e.ctx, f)
		require.NoError(t, err)
		out := []string{}
		for _, c := range list {
			if c.PodSandboxID == sbA || c.PodSandboxID == sbB {
				out = append(out, c.ID)
			}
		}
		return out
	}
	assert.Equal(t, []string{created, running, other}, ids(cri.ContainerFilter{}), "creation order")
	assert.Equal(t, []string{created, running}, ids(cri.ContainerFilter{PodSandboxID: sbA}))
	assert.Equal(t, []string{running, other}, ids(cri.ContainerFilter{State: cri.ContainerRunning}))
	assert.Equal(t, []string{created}, ids(cri.ContainerFilter{State: cri.ContainerCreated}))
	assert.Equal(t, []string{other}, ids(cri.ContainerFilter{ID: other}))
	assert.Equal(t, []string{running}, ids(cri.ContainerFilter{LabelSelector: map[string]string{"container": "running"}}))
	assert.Empty(t, ids(cri.ContainerFilter{PodSandboxID: sbB, State: cri.ContainerCreated}))

	list, err := e.rt.ListContainers(e.ctx, cri.ContainerFilter{ID: running})
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, cri.ContainerRunning, list[0].State)
	assert.Equal(t, "running", list[0].Metadata.Name)
	assert.Equal(t, "running", list[0].Labels["container"])
	assert.NotEmpty(t, list[0].ImageRef)

	sbIDs := func(f cri.PodSandboxFilter) []string {
		list, err := e.rt.ListPodSandbox(e.ctx, f)
		require.NoError(t, err)
		out := []string{}
		for _, s := range list {
			if s.ID == sbA || s.ID == sbB {
				out = append(out, s.ID)
			}
		}
		return out
	}
	assert.Equal(t, []string{sbA, sbB}, sbIDs(cri.PodSandboxFilter{}), "creation order")
	assert.Equal(t, []string{sbB}, sbIDs(cri.PodSandboxFilter{LabelSelector: map[string]string{"pod": "list-b"}}))
	require.NoError(t, e.rt.StopPodSandbox(e.ctx, sbB))
	assert.Equal(t, []string{sbA}, sbIDs(cri.PodSandboxFilter{State: cri.SandboxReady}))
	assert.Equal(t, []string{sbB}, sbIDs(cri.PodSandboxFilter{State: cri.SandboxNotReady}))
}

func testExecSync(t *testing.T, e *env) {
	sb, sbCfg := e.runSandbox(t, "exec")
	id := e.createAndStart(t, sb, sbCfg, e.containerConfig("server"))
	e.waitState(t, id, cri.ContainerRunning)
	hello := e.h.hello()

	res, err := e.rt.ExecSync(e.ctx, id, []string{hello, "echo", "hello", "critest"}, 10*time.Second)
	require.NoError(t, err)
	assert.Equal(t, "hello critest\n", string(res.Stdout))
	assert.Empty(t, res.Stderr)
	assert.Equal(t, int32(0), res.ExitCode)

	res, err = e.rt.ExecSync(e.ctx, id, []string{hello, "echo-err", "to stderr"}, 10*time.Second)
	require.NoError(t, err)
	assert.Equal(t, "to stderr\n", string(res.Stderr))

	res, err = e.rt.ExecSync(e.ctx, id, []string{hello, "exit", "7"}, 10*time.Second)
	require.NoError(t, err, "a non-zero exit is not an error")
	assert.Equal(t, int32(7), res.ExitCode)

	_, err = e.rt.ExecSync(e.ctx, id, []string{hello, "sleep", "1h"}, time.Second)
	require.ErrorIs(t, err, cri.ErrTimeout)

	require.NoError(t, e.rt.StopContainer(e.ctx, id, 10*time.Second))
	e.waitState(t, id, cri.ContainerExited)
	_, err = e.rt.ExecSync(e.ctx, id, []string{hello, "echo", "x"}, time.Second)
	require.ErrorIs(t, err, cri.ErrFailedPrecondition, "exec in an exited container")
}

func testStopAndRemoveSandbox(t *testing.T, e *env) {
	sb, sbCfg := e.runSandbox(t, "sandbox-with-containers")
	running := e.createAndStart(t, sb, sbCfg, e.containerConfig("running"))
	created := e.create(t, sb, sbCfg, e.containerConfig("created"))
	e.waitState(t, running, cri.ContainerRunning)

	require.NoError(t, e.rt.StopPodSandbox(e.ctx, sb))
	e.waitState(t, running, cri.ContainerExited)

	require.NoError(t, e.rt.RemovePodSandbox(e.ctx, sb))
	for _, id := range []string{running, created} {
		_, err := e.rt.ContainerStatus(e.ctx, id)
		require.ErrorIs(t, err, cri.ErrNotFound, "container %s removed with its sandbox", id)
	}
	list, err := e.rt.ListContainers(e.ctx, cri.ContainerFilter{PodSandboxID: sb})
	require.NoError(t, err)
	assert.Empty(t, list)
}

func testUpdateResources(t *testing.T, e *env) {
	sb, sbCfg := e.runSandbox(t, "resources")
	id := e.createAndStart(t, sb, sbCfg, e.containerConfig("server"))
	e.waitState(t, id, cri.ContainerRunning)
	require.NoError(t, e.rt.UpdateContainerResources(e.ctx, id,
		cri.LinuxContainerResources{MemoryLimitInBytes: 128 << 20, CPUShares: 512}))
	err := e.rt.UpdateContainerResources(e.ctx, id, cri.LinuxContainerResources{MemoryLimitInBytes: -1})
	require.ErrorIs(t, err, cri.ErrInvalidArgument)
}

func testImages(t *testing.T, e *env) {
	hello, err := e.rt.ImageStatus(e.ctx, cri.ImageSpec{Image: e.h.HelloImage})
	require.NoError(t, err)
	assert.NotEmpty(t, hello.ID)
	assert.Contains(t, hello.RepoTags, e.h.HelloImage)

	byID, err := e.rt.ImageStatus(e.ctx, cri.ImageSpec{Image: hello.ID})
	require.NoError(t, err)
	assert.Equal(t, hello.ID, byID.ID)

	all, err := e.rt.ListImages(e.ctx, cri.ImageFilter{})
	require.NoError(t, err)
	var tags []string
	for _, img := range all {
		tags = append(tags, img.RepoTags...)
	}
	assert.Contains(t, tags, e.h.HelloImage)
	assert.Contains(t, tags, e.h.PauseImage)

	only, err := e.rt.ListImages(e.ctx, cri.ImageFilter{Image: cri.ImageSpec{Image: e.h.HelloImage}})
	require.NoError(t, err)
	require.Len(t, only, 1)
	assert.Equal(t, hello.ID, only[0].ID)

	_, err = e.rt.ImageStatus(e.ctx, cri.ImageSpec{Image: "orkit.local/critest-missing:v0"})
	require.ErrorIs(t, err, cri.ErrImageNotFound)
	require.NoError(t, e.rt.RemoveImage(e.ctx, cri.ImageSpec{Image: "orkit.local/critest-missing:v0"}))
}

func testImportAndRemoveImage(t *testing.T, e *env) {
	if e.h.ImportArchive == nil {
		t.Skip("the harness supplies no removable image archive")
	}
	imgs, err := e.rt.ImportImage(e.ctx, e.h.ImportArchive(t))
	require.NoError(t, err)
	require.NotEmpty(t, imgs)
	st, err := e.rt.ImageStatus(e.ctx, cri.ImageSpec{Image: e.h.ImportRef})
	require.NoError(t, err)
	assert.Contains(t, st.RepoTags, e.h.ImportRef)

	require.NoError(t, e.rt.RemoveImage(e.ctx, cri.ImageSpec{Image: e.h.ImportRef}))
	_, err = e.rt.ImageStatus(e.ctx, cri.ImageSpec{Image: e.h.ImportRef})
	require.ErrorIs(t, err, cri.ErrImageNotFound)
	require.NoError(t, e.rt.RemoveImage(e.ctx, cri.ImageSpec{Image: e.h.ImportRef}), "remove twice")
}

func testEventStreamEnds(t *testing.T, e *env) {
	ctx, cancel := context.WithCancel(e.ctx)
	ch := e.rt.Events(ctx)
	cancel()
	timer := time.NewTimer(e.h.timeout())
	defer timer.Stop()
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return
			}
		case <-timer.C:
			require.Fail(t, "the event channel stays open after its context ended")
		}
	}
}
