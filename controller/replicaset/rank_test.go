package replicaset

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

type podOpt func(*core.Pod)

func mkPod(name string, opts ...podOpt) *core.Pod {
	p := &core.Pod{ObjectMeta: meta.ObjectMeta{Name: name, CreationTimestamp: meta.NewTime(t0)},
		Spec: core.PodSpec{NodeName: "n1"}, Status: core.PodStatus{Phase: core.PodRunning}}
	for _, o := range opts {
		o(p)
	}
	return p
}

func unscheduled(p *core.Pod)       { p.Spec.NodeName = "" }
func phase(ph core.PodPhase) podOpt { return func(p *core.Pod) { p.Status.Phase = ph } }
func created(d time.Duration) podOpt {
	return func(p *core.Pod) { p.CreationTimestamp = meta.NewTime(t0.Add(d)) }
}
func readyAt(d time.Duration) podOpt {
	return func(p *core.Pod) {
		p.Status.Conditions = append(p.Status.Conditions, core.PodCondition{Type: core.PodReady, Status: meta.ConditionTrue,
			LastTransitionTime: meta.NewTime(t0.Add(d))})
	}
}
func restarted(n int32) podOpt {
	return func(p *core.Pod) { p.Status.ContainerStatuses = []core.ContainerStatus{{Name: "c", RestartCount: n}} }
}

func TestDeleteFirst(t *testing.T) {
	tests := []struct {
		name string
		a, b *core.Pod
	}{
		{"unscheduled before scheduled", mkPod("a", unscheduled, readyAt(0)), mkPod("b", readyAt(0))},
		{"pending before running", mkPod("a", phase(core.PodPending)), mkPod("b", readyAt(0))},
		{"unknown before running", mkPod("a", phase(core.PodUnknown)), mkPod("b")},
		{"not ready before ready", mkPod("a"), mkPod("b", readyAt(0))},
		{"ready for less time first", mkPod("a", readyAt(time.Minute)), mkPod("b", readyAt(0))},
		{"more restarts first", mkPod("a", readyAt(0), restarted(3)), mkPod("b", readyAt(0), restarted(1))},
		{"newer first", mkPod("a", readyAt(0), created(time.Hour)), mkPod("b", readyAt(0))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.True(t, DeleteFirst(tt.a, tt.b))
			assert.False(t, DeleteFirst(tt.b, tt.a))
		})
	}
}

func TestPodsToDelete(t *testing.T) {
	pods := []*core.Pod{mkPod("old-ready", readyAt(0)), mkPod("pending", phase(core.PodPending)),
		mkPod("new-ready", readyAt(0), created(time.Hour)), mkPod("unscheduled", unscheduled, phase(core.PodPending))}
	got := PodsToDelete(pods, 3)
	names := []string{}
	for _, p := range got {
		names = append(names, p.Name)
	}
	assert.Equal(t, []string{"unscheduled", "pending", "new-ready"}, names)
	assert.Len(t, PodsToDelete(pods, 10), 4)
	assert.Empty(t, PodsToDelete(pods, -1))
	assert.Equal(t, "old-ready", pods[0].Name, "input untouched")
}

func TestSlowStartBatches(t *testing.T) {
	tests := []struct {
		n, burst int
		want     []int
	}{
		{0, 500, nil},
		{1, 500, []int{1}},
		{3, 500, []int{1, 2}},
		{10, 500, []int{1, 2, 4, 3}},
		{20, 4, []int{1, 2, 4, 4, 4, 4, 1}},
		{7, 0, []int{1, 2, 4}},
	}
	for _, tt := range tests {
		got := SlowStartBatches(tt.n, tt.burst)
		assert.Equal(t, tt.want, got, "n=%d burst=%d", tt.n, tt.burst)
	}
}

func TestComputeStatus(t *testing.T) {
	rs := &apps.ReplicaSet{ObjectMeta: meta.ObjectMeta{Generation: 4},
		Spec: apps.ReplicaSetSpec{MinReadySeconds: 30, Template: core.PodTemplateSpec{ObjectMeta: meta.ObjectMeta{Labels: map[string]string{"app": "web", "tier": "fe"}}}}}
	full := func(p *core.Pod) { p.Labels = map[string]string{"app": "web", "tier": "fe"} }
	pods := []*core.Pod{
		mkPod("a", full, readyAt(0)),              // available
		mkPod("b", full, readyAt(20*time.Second)), // ready, available in 20s
		mkPod("c", phase(core.PodPending)),        // not fully labeled
		mkPod("d", full, readyAt(-time.Hour)),     // available
	}
	st, wait := ComputeStatus(rs, pods, nil, t0.Add(30*time.Second))
	assert.Equal(t, apps.ReplicaSetStatus{Replicas: 4, FullyLabeledReplicas: 3, ReadyReplicas: 3, AvailableReplicas: 2, ObservedGeneration: 4}, st)
	assert.Equal(t, 20*time.Second, wait)

	st, _ = ComputeStatus(rs, nil, errors.New("quota exceeded"), t0)
	if assert.Len(t, st.Conditions, 1) {
		assert.Equal(t, apps.ReplicaSetReplicaFailure, st.Conditions[0].Type)
		assert.Equal(t, "FailedCreate", st.Conditions[0].Reason)
	}
	rs.Status = st
	st, _ = ComputeStatus(rs, nil, nil, t0)
	assert.Empty(t, st.Conditions, "cleared once creates succeed")
}
