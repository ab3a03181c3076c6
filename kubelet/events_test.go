package kubelet

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/cri/fake"
)

// wantEvent is an Event expected about a pod: its reason, a part of its
// message, and its field path.
type wantEvent struct {
	typ, reason, msg, fieldPath string
}

func (w wantEvent) matches(ev core.Event) bool {
	return ev.Reason == w.reason && strings.Contains(ev.Message, w.msg) && ev.InvolvedObject.FieldPath == w.fieldPath &&
		(w.typ == "" || ev.Type == w.typ)
}

// podEvents lists the Events about pod name, in recording order (their
// names sort that way).
func podEvents(t testing.TB, c *client.Client, name string) []core.Event {
	t.Helper()
	l, err := client.For[core.Event](c, "default").List(context.Background(),
		client.ListOptions{FieldSelector: "involvedObject.kind=Pod,involvedObject.name=" + name})
	require.NoError(t, err)
	slices.SortFunc(l.Items, func(a, b core.Event) int { return strings.Compare(a.Name, b.Name) })
	return l.Items
}

// inOrder reports whether want occur in evs in that order (others may
// come between).
func inOrder(evs []core.Event, want []wantEvent) bool {
	i := 0
	for _, ev := range evs {
		if i < len(want) && want[i].matches(ev) {
			i++
		}
	}
	return i == len(want)
}

func formatEvents(evs []core.Event) string {
	var b strings.Builder
	for _, ev := range evs {
		fmt.Fprintf(&b, "\n  %s %s %s (x%d) %s: %s", ev.Name, ev.Type, ev.Reason, ev.Count, ev.InvolvedObject.FieldPath, ev.Message)
	}
	return b.String()
}

// waitEvents polls the Events of pod name until want occur in order.
func waitEvents(t testing.TB, c *client.Client, name string, d time.Duration, want ...wantEvent) []core.Event {
	t.Helper()
	deadline := time.Now().Add(d)
	var evs []core.Event
	for time.Now().Before(deadline) {
		if evs = podEvents(t, c, name); inOrder(evs, want) {
			return evs
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatalf("pod %s: want Events %+v in order, have:%s", name, want, formatEvents(evs))
	return nil
}

// TestFakeKubeletEvents runs pods through a kubelet over cri/fake with
// its own recorder and checks the Events Kubernetes' kubelet records.
func TestFakeKubeletEvents(t *testing.T) {
	tc := startCluster(t)
	tc.startFakeKubelet(t, "node-ev", nil)
	tc.startFakeKubelet(t, "node-ev-nopull", func(c *Config) {
		c.Runtime = mustFake(t, fake.WithRegistry(func(string) bool { return false }))
		c.ImagePullBackOff = 200 * time.Millisecond
	})
	app := "spec.containers{app}"
	exec := func(cmd ...string) core.ProbeHandler { return core.ProbeHandler{Exec: &core.ExecAction{Command: cmd}} }
	for _, tc2 := range []struct {
		name  string
		pod   string
		node  string
		setup func(p *core.Pod)
		want  []wantEvent
	}{
		{"running pod: image present, created, started", "ev-run", "node-ev", nil, []wantEvent{
			{"Normal", EventPulled, `Container image "orkit.local/hello:v1" already present on machine`, app},
			{"Normal", EventCreated, "Created container: app", app},
			{"Normal", EventStarted, "Started container app", app},
		}},
		{"init container first", "ev-init", "node-ev", func(p *core.Pod) {
			p.Spec.InitContainers = []core.Container{{Name: "init", Image: "orkit.local/hello:v1", ImagePullPolicy: core.PullIfNotPresent,
				Command: []string{"/hello", "exit", "0"}}}
		}, []wantEvent{
			{"Normal", EventCreated, "Created container: init", "spec.initContainers{init}"},
			{"Normal", EventStarted, "Started container init", "spec.initContainers{init}"},
			{"Normal", EventStarted, "Started container app", app},
		}},
		{"pull failure backs off", "ev-pull", "node-ev-nopull", func(p *core.Pod) { p.Spec.Containers[0].Image = "registry.invalid/nothing:v1" }, []wantEvent{
			{"Normal", EventPulling, `Pulling image "registry.invalid/nothing:v1"`, app},
			{"Warning", EventFailed, `Failed to pull image "registry.invalid/nothing:v1"`, app},
			{"Warning", EventFailed, "Error: ErrImagePull", app},
			{"Normal", EventBackOff, `Back-off pulling image "registry.invalid/nothing:v1"`, app},
			{"Warning", EventFailed, "Error: ImagePullBackOff", app},
		}},
		{"never pull", "ev-never", "node-ev-nopull", func(p *core.Pod) {
			p.Spec.Containers[0].Image, p.Spec.Containers[0].ImagePullPolicy = "registry.invalid/absent:v1", core.PullNever
		}, []wantEvent{
			{"Warning", EventErrImageNeverPull, `Container image "registry.invalid/absent:v1" is not present with pull policy of Never`, app},
		}},
		{"missing configMap is Failed", "ev-config", "node-ev", func(p *core.Pod) {
			p.Spec.Containers[0].EnvFrom = []core.EnvFromSource{{ConfigMapRef: &core.ConfigMapEnvSource{LocalObjectReference: core.LocalObjectReference{Name: "nope"}}}}
		}, []wantEvent{
			{"Normal", EventPulled, "already present on machine", app},
			{"Warning", EventFailed, "Error: ", app},
		}},
		{"liveness failure: Unhealthy, Killing, restart", "ev-live", "node-ev", func(p *core.Pod) {
			p.Spec.Containers[0].LivenessProbe = &core.Probe{ProbeHandler: exec("/hello", "exit", "1"), PeriodSeconds: 1, FailureThreshold: 1}
		}, []wantEvent{
			{"Normal", EventStarted, "Started container app", app},
			{"Warning", EventUnhealthy, "Liveness probe failed: ", app},
			{"Normal", EventKilling, "Container app failed liveness probe, will be restarted", app},
		}},
		{"postStart failure", "ev-hook", "node-ev", func(p *core.Pod) {
			p.Spec.Containers[0].Lifecycle = &core.Lifecycle{PostStart: &core.LifecycleHandler{Exec: &core.ExecAction{Command: []string{"/hello", "exit", "1"}}}}
		}, []wantEvent{
			{"Normal", EventStarted, "Started container app", app},
			{"Warning", EventFailedPostStartHook, "PostStartHook failed", app},
			{"Normal", EventKilling, "FailedPostStartHook", app},
		}},
	} {
		t.Run(tc2.name, func(t *testing.T) {
			name := tc2.pod
			p := simplePod(name, tc2.node)
			if tc2.setup != nil {
				tc2.setup(p)
			}
			_, err := pods(tc.admin, "default").Create(context.Background(), p)
			require.NoError(t, err)
			evs := waitEvents(t, tc.admin, name, 20*time.Second, tc2.want...)
			for _, ev := range evs {
				require.Equal(t, "kubelet", ev.Source.Component)
				require.Equal(t, tc2.node, ev.Source.Host)
				require.Equal(t, "v1", ev.InvolvedObject.APIVersion)
				require.NotEmpty(t, ev.InvolvedObject.UID)
			}
		})
	}

	t.Run("deletion stops the container", func(t *testing.T) {
		evs := podEvents(t, tc.admin, "ev-run")
		require.NotEmpty(t, evs, "the running pod of the first case")
		require.NoError(t, pods(tc.admin, "default").Delete(context.Background(), "ev-run", nil))
		waitEvents(t, tc.admin, "ev-run", 20*time.Second, wantEvent{"Normal", EventKilling, "Stopping container app", app})
	})
}
