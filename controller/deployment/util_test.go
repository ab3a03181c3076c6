package deployment

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

func dep(replicas int32, surge, unavailable string) *apps.Deployment {
	parse := func(s string) *meta.IntOrString {
		var v meta.IntOrString
		if err := v.UnmarshalJSON([]byte(s)); err != nil {
			panic(err)
		}
		return &v
	}
	return &apps.Deployment{Spec: apps.DeploymentSpec{Replicas: &replicas, Strategy: apps.DeploymentStrategy{
		Type:          apps.RollingUpdateDeploymentStrategyType,
		RollingUpdate: &apps.RollingUpdateDeployment{MaxSurge: parse(surge), MaxUnavailable: parse(unavailable)}}}}
}

func rs(name string, spec, status, available int32, age time.Duration) *apps.ReplicaSet {
	return &apps.ReplicaSet{ObjectMeta: meta.ObjectMeta{Name: name, CreationTimestamp: meta.NewTime(time.Unix(1e9, 0).Add(-age))},
		Spec: apps.ReplicaSetSpec{Replicas: &spec}, Status: apps.ReplicaSetStatus{Replicas: status, AvailableReplicas: available}}
}

func TestResolveFenceposts(t *testing.T) {
	tests := []struct {
		name                string
		d                   *apps.Deployment
		surge, unavailable  int32
		maxUnavailableTotal int32
	}{
		{"numbers", dep(3, "1", "0"), 1, 0, 0},
		{"percent rounds surge up, unavailable down", dep(10, `"25%"`, `"25%"`), 3, 2, 2},
		{"both zero: one unavailable", dep(3, "0", "0"), 0, 1, 1},
		{"small percentages", dep(1, `"25%"`, `"25%"`), 1, 0, 0},
		{"unavailable capped at replicas", dep(2, "0", "5"), 0, 5, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, u := ResolveFenceposts(tt.d)
			assert.Equal(t, tt.surge, s)
			assert.Equal(t, tt.unavailable, u)
			assert.Equal(t, tt.maxUnavailableTotal, MaxUnavailable(tt.d))
		})
	}
	recreate := dep(3, "1", "1")
	recreate.Spec.Strategy = apps.DeploymentStrategy{Type: apps.RecreateDeploymentStrategyType}
	assert.Zero(t, MaxSurge(recreate))
	assert.Zero(t, MaxUnavailable(recreate))
}

func TestNewRSNewReplicas(t *testing.T) {
	tests := []struct {
		name string
		d    *apps.Deployment
		old  *apps.ReplicaSet
		new  *apps.ReplicaSet
		want int32
	}{
		{"surge one", dep(3, "1", "0"), rs("old", 3, 3, 3, time.Hour), rs("new", 0, 0, 0, 0), 1},
		{"no room", dep(3, "1", "0"), rs("old", 3, 3, 3, time.Hour), rs("new", 1, 1, 0, 0), 1},
		{"old still terminating counts", dep(3, "1", "0"), rs("old", 2, 3, 2, time.Hour), rs("new", 1, 1, 1, 0), 1},
		{"room after scale-down", dep(3, "1", "0"), rs("old", 2, 2, 2, time.Hour), rs("new", 1, 1, 1, 0), 2},
		{"never above replicas", dep(3, "5", "0"), rs("old", 0, 0, 0, time.Hour), rs("new", 2, 2, 2, 0), 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, NewRSNewReplicas(tt.d, []*apps.ReplicaSet{tt.old, tt.new}, tt.new))
		})
	}
}

func TestProportionalSizes(t *testing.T) {
	// A rollout of 10 (surge 3) half way: old 5, new 8 (of max 13). Scale
	// to 20 (max 25): +12 spread about 5:8.
	d := dep(20, `"25%"`, `"25%"`)
	old, nw := rs("old", 5, 5, 5, time.Hour), rs("new", 8, 8, 3, 0)
	for _, x := range []*apps.ReplicaSet{old, nw} {
		x.Annotations = map[string]string{apps.MaxReplicasAnnotation: "13"}
	}
	got := ProportionalSizes(d, []*apps.ReplicaSet{old, nw})
	assert.Equal(t, int32(25), got[0]+got[1])
	assert.Equal(t, []int32{10, 15}, got)

	// Scale down to 0: everything goes.
	d0 := dep(0, `"25%"`, `"25%"`)
	assert.Equal(t, []int32{0, 0}, ProportionalSizes(d0, []*apps.ReplicaSet{old, nw}))
}

func TestComputeHashAndEqualIgnoreHash(t *testing.T) {
	a := core.PodTemplateSpec{ObjectMeta: meta.ObjectMeta{Labels: map[string]string{"app": "web"}},
		Spec: core.PodSpec{Containers: []core.Container{{Name: "c", Image: "v1"}}}}
	b := *meta.DeepCopy(&a)
	b.Labels[apps.DefaultDeploymentUniqueLabelKey] = "abc"
	assert.True(t, EqualIgnoreHash(&a, &b))
	assert.Equal(t, ComputeHash(&a, nil), ComputeHash(meta.DeepCopy(&a), nil), "stable")
	c := *meta.DeepCopy(&a)
	c.Spec.Containers[0].Image = "v2"
	assert.False(t, EqualIgnoreHash(&a, &c))
	assert.NotEqual(t, ComputeHash(&a, nil), ComputeHash(&c, nil))
	one := int32(1)
	assert.NotEqual(t, ComputeHash(&a, nil), ComputeHash(&a, &one), "collisionCount changes the hash")
	for _, ch := range ComputeHash(&a, nil) {
		assert.Contains(t, hashAlphabet, string(ch))
	}
}

func TestConditionsAndProgress(t *testing.T) {
	now := time.Unix(1e9, 0)
	d := dep(3, "1", "0")
	deadline := int32(10)
	d.Spec.ProgressDeadlineSeconds = &deadline
	st := apps.DeploymentStatus{}
	SetCondition(&st, NewCondition(apps.DeploymentProgressing, meta.ConditionTrue, apps.ReplicaSetUpdatedReason, "x", now))
	assert.False(t, DeploymentTimedOut(d, &st, now.Add(5*time.Second)))
	assert.True(t, DeploymentTimedOut(d, &st, now.Add(11*time.Second)))
	first := GetCondition(&st, apps.DeploymentProgressing).LastTransitionTime
	SetCondition(&st, NewCondition(apps.DeploymentProgressing, meta.ConditionTrue, apps.NewRSAvailableReason, "y", now.Add(time.Minute)))
	assert.Equal(t, first, GetCondition(&st, apps.DeploymentProgressing).LastTransitionTime, "same status keeps the transition time")
	assert.False(t, DeploymentTimedOut(d, &st, now.Add(time.Hour)), "complete never times out")
	assert.Len(t, st.Conditions, 1)

	d.Status = apps.DeploymentStatus{Replicas: 4, UpdatedReplicas: 1, AvailableReplicas: 3}
	assert.True(t, DeploymentProgressing(d, &apps.DeploymentStatus{Replicas: 4, UpdatedReplicas: 2, AvailableReplicas: 3}))
	assert.False(t, DeploymentProgressing(d, &d.Status))
	assert.True(t, DeploymentComplete(d, &apps.DeploymentStatus{Replicas: 3, UpdatedReplicas: 3, AvailableReplicas: 3}))
}

func TestCalculateStatus(t *testing.T) {
	now := time.Unix(1e9, 0)
	d := dep(3, "1", "0")
	d.Generation = 7
	old, nw := rs("old", 1, 1, 1, time.Hour), rs("new", 3, 3, 2, 0)
	nw.Status.ReadyReplicas = 2
	nw.Status.Conditions = []apps.ReplicaSetCondition{{Type: apps.ReplicaSetReplicaFailure, Status: meta.ConditionTrue,
		Reason: "FailedCreate", Message: "pods exceeded quota"}}
	st := calculateStatus([]*apps.ReplicaSet{old, nw}, nw, d, now)
	assert.Equal(t, int64(7), st.ObservedGeneration)
	assert.Equal(t, int32(4), st.Replicas)
	assert.Equal(t, int32(3), st.UpdatedReplicas)
	assert.Equal(t, int32(3), st.AvailableReplicas)
	assert.Equal(t, int32(0), st.UnavailableReplicas)
	assert.Equal(t, apps.MinimumReplicasAvailable, GetCondition(&st, apps.DeploymentAvailable).Reason)
	f := GetCondition(&st, apps.DeploymentReplicaFailure)
	if assert.NotNil(t, f) {
		assert.Equal(t, "FailedCreate", f.Reason)
	}

	nw.Status.Conditions = nil
	nw.Status.AvailableReplicas = 0
	old.Status.AvailableReplicas = 0
	d.Status = st
	st = calculateStatus([]*apps.ReplicaSet{old, nw}, nw, d, now)
	assert.Nil(t, GetCondition(&st, apps.DeploymentReplicaFailure), "cleared")
	assert.Equal(t, apps.MinimumReplicasUnavailable, GetCondition(&st, apps.DeploymentAvailable).Reason)
	assert.Equal(t, int32(3), st.UnavailableReplicas)
}
