package apps

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

func podTemplate(labels map[string]string) core.PodTemplateSpec {
	return core.PodTemplateSpec{
		ObjectMeta: meta.ObjectMeta{Labels: labels},
		Spec:       core.PodSpec{Containers: []core.Container{{Name: "c", Image: "orkit.local/hello:v1"}}},
	}
}

func TestDefaultDeployment(t *testing.T) {
	pct := func(s string) *meta.IntOrString { v := meta.FromString(s); return &v }
	tests := []struct {
		name    string
		in      DeploymentSpec
		replica int32
		strat   DeploymentStrategy
		history int32
		pds     int32
	}{
		{"empty", DeploymentSpec{}, 1,
			DeploymentStrategy{Type: RollingUpdateDeploymentStrategyType,
				RollingUpdate: &RollingUpdateDeployment{MaxUnavailable: pct("25%"), MaxSurge: pct("25%")}}, 10, 600},
		{"kept", DeploymentSpec{Replicas: int32Ptr(0), RevisionHistoryLimit: int32Ptr(0), ProgressDeadlineSeconds: int32Ptr(30),
			Strategy: DeploymentStrategy{RollingUpdate: &RollingUpdateDeployment{MaxSurge: intOrStrPtr(meta.FromInt(0))}}}, 0,
			DeploymentStrategy{Type: RollingUpdateDeploymentStrategyType,
				RollingUpdate: &RollingUpdateDeployment{MaxUnavailable: pct("25%"), MaxSurge: intOrStrPtr(meta.FromInt(0))}}, 0, 30},
		{"recreate gets no rolling update", DeploymentSpec{Strategy: DeploymentStrategy{Type: RecreateDeploymentStrategyType}}, 1,
			DeploymentStrategy{Type: RecreateDeploymentStrategyType}, 10, 600},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &Deployment{Spec: tt.in}
			d.Spec.Template = podTemplate(map[string]string{"app": "x"})
			DefaultDeployment(d)
			assert.Equal(t, tt.replica, *d.Spec.Replicas)
			assert.Equal(t, tt.strat, d.Spec.Strategy)
			assert.Equal(t, tt.history, *d.Spec.RevisionHistoryLimit)
			assert.Equal(t, tt.pds, *d.Spec.ProgressDeadlineSeconds)
			// The pod template is defaulted by core.
			assert.Equal(t, core.RestartPolicyAlways, d.Spec.Template.Spec.RestartPolicy)
			assert.Equal(t, core.PullIfNotPresent, d.Spec.Template.Spec.Containers[0].ImagePullPolicy)
		})
	}
}

func TestDefaultReplicaSet(t *testing.T) {
	rs := &ReplicaSet{Spec: ReplicaSetSpec{Template: podTemplate(nil)}}
	DefaultReplicaSet(rs)
	assert.Equal(t, int32(1), *rs.Spec.Replicas)
	assert.Equal(t, core.RestartPolicyAlways, rs.Spec.Template.Spec.RestartPolicy)
}

func TestDefaultStatefulSet(t *testing.T) {
	s := &StatefulSet{Spec: StatefulSetSpec{
		Template:             podTemplate(nil),
		VolumeClaimTemplates: []core.PersistentVolumeClaim{{ObjectMeta: meta.ObjectMeta{Name: "data"}}},
	}}
	DefaultStatefulSet(s)
	assert.Equal(t, int32(1), *s.Spec.Replicas)
	assert.Equal(t, OrderedReadyPodManagement, s.Spec.PodManagementPolicy)
	assert.Equal(t, StatefulSetUpdateStrategy{Type: RollingUpdateStatefulSetStrategyType,
		RollingUpdate: &RollingUpdateStatefulSetStrategy{Partition: int32Ptr(0)}}, s.Spec.UpdateStrategy)
	assert.Equal(t, int32(10), *s.Spec.RevisionHistoryLimit)
	assert.Equal(t, &StatefulSetPersistentVolumeClaimRetentionPolicy{
		WhenDeleted: RetainPersistentVolumeClaimRetentionPolicyType,
		WhenScaled:  RetainPersistentVolumeClaimRetentionPolicyType}, s.Spec.PersistentVolumeClaimRetentionPolicy)
	require.NotNil(t, s.Spec.VolumeClaimTemplates[0].Spec.VolumeMode)
	assert.Equal(t, core.PersistentVolumeFilesystem, *s.Spec.VolumeClaimTemplates[0].Spec.VolumeMode)

	onDelete := &StatefulSet{Spec: StatefulSetSpec{UpdateStrategy: StatefulSetUpdateStrategy{Type: OnDeleteStatefulSetStrategyType}}}
	DefaultStatefulSet(onDelete)
	assert.Nil(t, onDelete.Spec.UpdateStrategy.RollingUpdate)

	explicit := &StatefulSet{Spec: StatefulSetSpec{UpdateStrategy: StatefulSetUpdateStrategy{
		Type: RollingUpdateStatefulSetStrategyType, RollingUpdate: &RollingUpdateStatefulSetStrategy{}}}}
	DefaultStatefulSet(explicit)
	assert.Equal(t, int32(0), *explicit.Spec.UpdateStrategy.RollingUpdate.Partition)
}

func TestDefaultDaemonSet(t *testing.T) {
	d := &DaemonSet{Spec: DaemonSetSpec{Template: podTemplate(nil)}}
	DefaultDaemonSet(d)
	assert.Equal(t, DaemonSetUpdateStrategy{Type: RollingUpdateDaemonSetStrategyType, RollingUpdate: &RollingUpdateDaemonSet{
		MaxUnavailable: intOrStrPtr(meta.FromInt(1)), MaxSurge: intOrStrPtr(meta.FromInt(0))}}, d.Spec.UpdateStrategy)
	assert.Equal(t, int32(10), *d.Spec.RevisionHistoryLimit)

	onDelete := &DaemonSet{Spec: DaemonSetSpec{UpdateStrategy: DaemonSetUpdateStrategy{Type: OnDeleteDaemonSetStrategyType}}}
	DefaultDaemonSet(onDelete)
	assert.Nil(t, onDelete.Spec.UpdateStrategy.RollingUpdate)
}
