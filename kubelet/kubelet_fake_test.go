package kubelet

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/coordination"
	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/resource"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/cri"
)

func TestNodeRegistrationAndLease(t *testing.T) {
	tc := startCluster(t)
	tc.startFakeKubelet(t, "node-a", func(c *Config) {
		c.Capacity = core.ResourceList{core.ResourceCPU: resource.MustParse("4"), core.ResourceMemory: resource.MustParse("8Gi")}
		c.Reserved = core.ResourceList{core.ResourceCPU: resource.MustParse("500m")}
		c.Labels = map[string]string{"zone": "a"}
		c.LeaseRenewInterval = 200 * time.Millisecond
	})
	ctx := context.Background()
	nodes := client.For[core.Node](tc.admin, "")
	var n *core.Node
	waitFor(t, 10*time.Second, "node ready", func() bool {
		var err error
		n, err = nodes.Get(ctx, "node-a")
		return err == nil && core.IsNodeReady(n)
	})
	assert.Equal(t, "node-a", n.Labels[LabelHostname])
	assert.Equal(t, "linux", n.Labels[LabelOS])
	assert.Equal(t, "a", n.Labels["zone"])
	cpu := n.Status.Allocatable[core.ResourceCPU]
	assert.Equal(t, int64(3500), cpu.MilliValue())
	capCPU := n.Status.Capacity[core.ResourceCPU]
	assert.Equal(t, int64(4), capCPU.Value())
	assert.Equal(t, Version, n.Status.NodeInfo.KubeletVersion)
	assert.NotEmpty(t, n.Status.NodeInfo.ContainerRuntimeVersion)
	assert.Contains(t, n.Status.Addresses, core.NodeAddress{Type: core.NodeInternalIP, Address: "127.0.0.1"})

	leases := client.For[coordination.Lease](tc.admin, coordination.NodeLeaseNamespace)
	var l1 *coordination.Lease
	waitFor(t, 5*time.Second, "lease created", func() bool {
		var err error
		l1, err = leases.Get(ctx, "node-a")
		return err == nil
	})
	require.NotNil(t, l1.Spec.RenewTime)
	assert.Equal(t, "node-a", *l1.Spec.HolderIdentity)
	waitFor(t, 5*time.Second, "lease renewed", func() bool {
		l2, err := leases.Get(ctx, "node-a")
		return err == nil && l2.Spec.RenewTime.After(l1.Spec.RenewTime.Time)
	})
}

func TestNodeNotReadyWhenRuntimeDown(t *testing.T) {
	tc := startCluster(t)
	_, rt := tc.startFakeKubelet(t, "node-b", func(c *Config) { c.NodeStatusInterval = 100 * time.Millisecond })
	nodes := client.For[core.Node](tc.admin, "")
	ready := func() bool {
		n, err := nodes.Get(context.Background(), "node-b")
		return err == nil && core.IsNodeReady(n)
	}
	waitFor(t, 10*time.Second, "node ready", ready)
	rt.SetDown(true)
	waitFor(t, 10*time.Second, "node not ready", func() bool { return !ready() })
	rt.SetDown(false)
	waitFor(t, 10*time.Second, "node ready again", ready)
}

func TestFakePodLifecycle(t *testing.T) {
	tc := startCluster(t)
	_, rt := tc.startFakeKubelet(t, "node-c", nil)
	ctx := context.Background()
	p, err := pods(tc.admin, "default").Create(ctx, simplePod("web", "node-c"))
	require.NoError(t, err)
	got := waitPod(t, tc.admin, "default", "web", 10*time.Second, "Running and Ready", func(p *core.Pod) bool {
		return running(p) && isReady(p) && p.Status.PodIP != ""
	})
	assert.Equal(t, core.PodQOSBestEffort, got.Status.QOSClass)
	require.Len(t, got.Status.ContainerStatuses, 1)
	assert.NotNil(t, got.Status.ContainerStatuses[0].State.Running)
	for _, ct := range []core.PodConditionType{core.PodScheduled, core.PodInitialized, core.ContainersReady, core.PodReady} {
		_, c := core.GetPodCondition(&got.Status, ct)
		require.NotNil(t, c, ct)
		assert.Equal(t, meta.ConditionTrue, c.Status, ct)
	}
	require.NoError(t, pods(tc.admin, "default").Delete(ctx, "web", nil))
	waitFor(t, 10*time.Second, "pod gone", func() bool {
		_, err := pods(tc.admin, "default").Get(ctx, "web")
		return apierrors.IsNotFound(err)
	})
	waitFor(t, 5*time.Second, "sandboxes removed", func() bool {
		sbs, err := rt.ListPodSandbox(ctx, cri.PodSandboxFilter{LabelSelector: map[string]string{labelPodUID: string(p.UID)}})
		return err == nil && len(sbs) == 0
	})
}

func TestFakeRestartPolicies(t *testing.T) {
	tc := startCluster(t)
	tc.startFakeKubelet(t, "node-d", nil)
	ctx := context.Background()
	cases := []struct {
		name   string
		policy core.RestartPolicy
		cmd    []string
		check  func(*core.Pod) bool
	}{
		{"always-crashloop", core.RestartPolicyAlways, []string{"/hello", "exit", "1"}, func(p *core.Pod) bool {
			return len(p.Status.ContainerStatuses) == 1 && p.Status.ContainerStatuses[0].RestartCount >= 2
		}},
		{"never-fails", core.RestartPolicyNever, []string{"/hello", "exit", "3"}, func(p *core.Pod) bool {
			return p.Status.Phase == core.PodFailed && p.Status.ContainerStatuses[0].State.Terminated != nil &&
				p.Status.ContainerStatuses[0].State.Terminated.ExitCode == 3
		}},
		{"onfailure-succeeds", core.RestartPolicyOnFailure, []string{"/hello", "exit", "0"}, func(p *core.Pod) bool {
			return p.Status.Phase == core.PodSucceeded
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := simplePod(c.name, "node-d")
			p.Spec.RestartPolicy = c.policy
			p.Spec.Containers[0].Command = c.cmd
			_, err := pods(tc.admin, "default").Create(ctx, p)
			require.NoError(t, err)
			waitPod(t, tc.admin, "default", c.name, 15*time.Second, c.name, c.check)
		})
	}
}

func TestFakeAdmissionOutOfCPU(t *testing.T) {
	tc := startCluster(t)
	tc.startFakeKubelet(t, "node-e", func(c *Config) {
		c.Capacity = core.ResourceList{core.ResourceCPU: resource.MustParse("1")}
	})
	p := simplePod("big", "node-e")
	p.Spec.Containers[0].Resources.Requests = core.ResourceList{core.ResourceCPU: resource.MustParse("2")}
	_, err := pods(tc.admin, "default").Create(context.Background(), p)
	require.NoError(t, err)
	got := waitPod(t, tc.admin, "default", "big", 10*time.Second, "Failed", func(p *core.Pod) bool { return p.Status.Phase == core.PodFailed })
	assert.Equal(t, "OutOfcpu", got.Status.Reason)
}

func TestFakeSecurityProfileSoftRefusal(t *testing.T) {
	tc := startCluster(t)
	tc.startFakeKubelet(t, "node-f", func(c *Config) {
		c.AdmitHandlers = append(DefaultAdmitHandlers(), SecurityProfile{Allowed: map[string]bool{"ok.json": true}})
	})
	name := "missing.json"
	p := simplePod("sec", "node-f")
	p.Spec.SecurityContext = &core.PodSecurityContext{SeccompProfile: &core.SeccompProfile{Type: core.SeccompProfileTypeLocalhost, LocalhostProfile: &name}}
	_, err := pods(tc.admin, "default").Create(context.Background(), p)
	require.NoError(t, err)
	got := waitPod(t, tc.admin, "default", "sec", 10*time.Second, "refused", func(p *core.Pod) bool { return p.Status.Reason != "" })
	assert.Equal(t, core.PodPending, got.Status.Phase)
	assert.Equal(t, "SecurityProfileUnavailable", got.Status.Reason)
}

func TestFakeActiveDeadline(t *testing.T) {
	tc := startCluster(t)
	tc.startFakeKubelet(t, "node-g", nil)
	p := simplePod("deadline", "node-g")
	d := int64(1)
	p.Spec.ActiveDeadlineSeconds = &d
	_, err := pods(tc.admin, "default").Create(context.Background(), p)
	require.NoError(t, err)
	got := waitPod(t, tc.admin, "default", "deadline", 10*time.Second, "DeadlineExceeded", func(p *core.Pod) bool { return p.Status.Phase == core.PodFailed })
	assert.Equal(t, "DeadlineExceeded", got.Status.Reason)
}

// TestFakeObservedGeneration: the kubelet reports the generation it acted
// on in status.observedGeneration and on the conditions it writes, and
// catches up after spec updates (pod generation, Kubernetes 1.35).
func TestFakeObservedGeneration(t *testing.T) {
	tc := startCluster(t)
	tc.startFakeKubelet(t, "node-og", nil)
	ctx := context.Background()
	p := simplePod("gen", "node-og")
	p.Generation = 100 // a client's generation is ignored on create
	_, err := pods(tc.admin, "default").Create(ctx, p)
	require.NoError(t, err)
	got := waitPod(t, tc.admin, "default", "gen", 10*time.Second, "running at generation 1", func(p *core.Pod) bool {
		return running(p) && p.Status.ObservedGeneration == 1
	})
	assert.Equal(t, int64(1), got.Generation)
	tests := []struct {
		name   string
		update func(*core.Pod)
		want   int64
	}{
		{"metadata only: no bump", func(p *core.Pod) { p.Annotations = map[string]string{"k": "v"} }, 1},
		{"activeDeadlineSeconds", func(p *core.Pod) { d := int64(5000); p.Spec.ActiveDeadlineSeconds = &d }, 2},
		{"tolerations", func(p *core.Pod) {
			p.Spec.Tolerations = append(p.Spec.Tolerations, core.Toleration{Key: "k", Operator: core.TolerationOpExists})
		}, 3},
		{"client-set generation ignored", func(p *core.Pod) { p.Generation = 1 }, 3},
	}
	for _, tt := range tests {
		cur, err := pods(tc.admin, "default").Get(ctx, "gen")
		require.NoError(t, err, tt.name)
		tt.update(cur)
		upd, err := pods(tc.admin, "default").Update(ctx, cur)
		require.NoError(t, err, tt.name)
		assert.Equal(t, tt.want, upd.Generation, tt.name)
		got = waitPod(t, tc.admin, "default", "gen", 10*time.Second, tt.name, func(p *core.Pod) bool {
			return p.Status.ObservedGeneration == tt.want
		})
		for _, ct := range []core.PodConditionType{core.PodReadyToStartContainers, core.PodInitialized, core.ContainersReady, core.PodReady} {
			_, c := core.GetPodCondition(&got.Status, ct)
			require.NotNil(t, c, ct)
			assert.Equal(t, tt.want, c.ObservedGeneration, "%s: %s", tt.name, ct)
		}
	}
}

// TestFakeDeletedPodGetsTerminalPhase: a deleted pod that a finalizer
// keeps gets a terminal phase once its containers are stopped, as kube's
// kubelet writes it (the Job controller waits for it with
// podReplacementPolicy Failed), and goes once the finalizer does.
func TestFakeDeletedPodGetsTerminalPhase(t *testing.T) {
	tc := startCluster(t)
	tc.startFakeKubelet(t, "node-tp", nil)
	ctx := context.Background()
	p := simplePod("held", "node-tp")
	p.Finalizers = []string{"example.com/hold"}
	p.Spec.RestartPolicy = core.RestartPolicyNever
	_, err := pods(tc.admin, "default").Create(ctx, p)
	require.NoError(t, err)
	waitPod(t, tc.admin, "default", "held", 10*time.Second, "running", running)
	require.NoError(t, pods(tc.admin, "default").Delete(ctx, "held", nil))
	got := waitPod(t, tc.admin, "default", "held", 15*time.Second, "terminal while held", func(p *core.Pod) bool {
		return core.IsPodTerminal(p)
	})
	assert.NotNil(t, got.DeletionTimestamp)
	require.NotEmpty(t, got.Status.ContainerStatuses)
	assert.NotNil(t, got.Status.ContainerStatuses[0].State.Terminated)
	waitFor(t, 10*time.Second, "finalizer removed", func() bool { // the kubelet may still be writing the pod
		cur, err := pods(tc.admin, "default").Get(ctx, "held")
		if err != nil {
			return apierrors.IsNotFound(err)
		}
		cur.Finalizers = nil
		_, err = pods(tc.admin, "default").Update(ctx, cur)
		return err == nil
	})
	waitFor(t, 10*time.Second, "pod gone", func() bool {
		_, err := pods(tc.admin, "default").Get(ctx, "held")
		return apierrors.IsNotFound(err)
	})
}

// A pod status another writer changed (the node lifecycle controller sets
// Ready=False while the node is not reporting) is written back by the
// kubelet (TestStatusManagerRewritesOthersWrites checks it writes once).
func TestFakeStatusRestoredAfterOtherWriter(t *testing.T) {
	tc := startCluster(t)
	tc.startFakeKubelet(t, "node-r", nil)
	ctx := context.Background()
	_, err := pods(tc.admin, "default").Create(ctx, simplePod("web", "node-r"))
	require.NoError(t, err)
	got := waitPod(t, tc.admin, "default", "web", 10*time.Second, "Ready", isReady)

	core.UpdatePodCondition(&got.Status, core.PodCondition{Type: core.PodReady, Status: meta.ConditionFalse,
		Reason: "NodeNotReady", LastTransitionTime: meta.Now()})
	_, err = pods(tc.admin, "default").UpdateStatus(ctx, got)
	require.NoError(t, err)
	restored := waitPod(t, tc.admin, "default", "web", 10*time.Second, "Ready again", isReady)
	_, c := core.GetPodCondition(&restored.Status, core.PodReady)
	assert.Empty(t, c.Reason)
}
