package apps

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
)

func validDeployment() *Deployment {
	d := &Deployment{
		ObjectMeta: meta.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: DeploymentSpec{
			Replicas: int32Ptr(3),
			Selector: &meta.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: podTemplate(map[string]string{"app": "web", "tier": "fe"}),
		},
	}
	DefaultDeployment(d)
	return d
}

func is(v meta.IntOrString) *meta.IntOrString { return &v }

func TestValidateDeployment(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*Deployment)
		want   []string
	}{
		{"valid", func(*Deployment) {}, nil},
		{"zero replicas", func(d *Deployment) { d.Spec.Replicas = int32Ptr(0) }, nil},
		{"negative replicas", func(d *Deployment) { d.Spec.Replicas = int32Ptr(-1) },
			[]string{"spec.replicas: Invalid value: -1: must be greater than or equal to 0"}},
		{"no selector", func(d *Deployment) { d.Spec.Selector = nil },
			[]string{"spec.selector: Required value"}},
		{"empty selector", func(d *Deployment) { d.Spec.Selector = &meta.LabelSelector{} },
			[]string{"spec.selector: Invalid value: &{map[] []}: empty selector is invalid for deployment"}},
		{"selector mismatch", func(d *Deployment) { d.Spec.Selector.MatchLabels = map[string]string{"app": "other"} },
			[]string{"spec.template.metadata.labels: Invalid value: map[app:web tier:fe]: `selector` does not match template `labels`"}},
		{"expression mismatch", func(d *Deployment) {
			d.Spec.Selector.MatchExpressions = []meta.LabelSelectorRequirement{{Key: "tier", Operator: meta.LabelSelectorOpNotIn, Values: []string{"fe"}}}
		}, []string{"spec.template.metadata.labels: Invalid value: map[app:web tier:fe]: `selector` does not match template `labels`"}},
		{"restart policy", func(d *Deployment) { d.Spec.Template.Spec.RestartPolicy = core.RestartPolicyNever },
			[]string{`spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"`}},
		{"active deadline", func(d *Deployment) { d.Spec.Template.Spec.ActiveDeadlineSeconds = new(int64(30)) },
			[]string{"spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in Deployment is not Supported"}},
		{"both zero", func(d *Deployment) {
			d.Spec.Strategy.RollingUpdate = &RollingUpdateDeployment{MaxUnavailable: is(meta.FromInt(0)), MaxSurge: is(meta.FromString("0%"))}
		}, []string{"spec.strategy.rollingUpdate.maxUnavailable: Invalid value: \"0\": may not be 0 when `maxSurge` is 0"}},
		{"bad percent", func(d *Deployment) { d.Spec.Strategy.RollingUpdate.MaxSurge = is(meta.FromString("1.5%")) },
			[]string{`spec.strategy.rollingUpdate.maxSurge: Invalid value: "1.5%": ` + msgPercent}},
		{"negative surge", func(d *Deployment) { d.Spec.Strategy.RollingUpdate.MaxSurge = is(meta.FromInt(-1)) },
			[]string{"spec.strategy.rollingUpdate.maxSurge: Invalid value: -1: must be greater than or equal to 0"}},
		{"unavailable over 100%", func(d *Deployment) { d.Spec.Strategy.RollingUpdate.MaxUnavailable = is(meta.FromString("101%")) },
			[]string{`spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "101%": must not be greater than 100%`}},
		{"surge over 100% is fine", func(d *Deployment) { d.Spec.Strategy.RollingUpdate.MaxSurge = is(meta.FromString("200%")) }, nil},
		{"recreate with rolling update", func(d *Deployment) { d.Spec.Strategy.Type = RecreateDeploymentStrategyType },
			[]string{"spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'"}},
		{"recreate", func(d *Deployment) { d.Spec.Strategy = DeploymentStrategy{Type: RecreateDeploymentStrategyType} }, nil},
		{"rolling update missing", func(d *Deployment) { d.Spec.Strategy.RollingUpdate = nil },
			[]string{"spec.strategy.rollingUpdate: Required value: this should be defaulted and never be nil"}},
		{"unknown strategy", func(d *Deployment) { d.Spec.Strategy = DeploymentStrategy{Type: "BlueGreen"} },
			[]string{`spec.strategy.type: Unsupported value: "BlueGreen": supported values: "Recreate", "RollingUpdate"`}},
		{"deadline not above min ready", func(d *Deployment) { d.Spec.MinReadySeconds = 600 },
			[]string{"spec.progressDeadlineSeconds: Invalid value: 600: must be greater than minReadySeconds"}},
		{"negative history", func(d *Deployment) { d.Spec.RevisionHistoryLimit = int32Ptr(-2) },
			[]string{"spec.revisionHistoryLimit: Invalid value: -2: must be greater than or equal to 0"}},
		{"bad name", func(d *Deployment) { d.Name = "Web_1" }, []string{"metadata.name: "}},
		{"no namespace", func(d *Deployment) { d.Namespace = "" }, []string{"metadata.namespace: Required value"}},
		{"template validated by core", func(d *Deployment) { d.Spec.Template.Spec.Containers[0].Image = "" },
			[]string{"spec.template.spec.containers[0].image: Required value"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := validDeployment()
			tt.mutate(d)
			assertMessages(t, tt.want, ValidateDeployment(d))
		})
	}
}

// assertMessages compares messages; a wanted message ending in ": " only
// has to prefix the actual one (for messages owned by other packages).
func assertMessages(t *testing.T, want []string, errs field.ErrorList) {
	t.Helper()
	got := messages(errs)
	require.Len(t, got, len(want), "got %q", got)
	for i := range want {
		if strings.HasSuffix(want[i], ": ") {
			assert.True(t, strings.HasPrefix(got[i], want[i]), "%q does not start with %q", got[i], want[i])
			continue
		}
		assert.Equal(t, want[i], got[i])
	}
}

func TestValidateDeploymentUpdate(t *testing.T) {
	old := validDeployment()
	old.ResourceVersion = "5"
	upd := meta.DeepCopy(old)
	upd.Spec.Replicas = int32Ptr(10)
	upd.Spec.Template.Spec.Containers[0].Image = "orkit.local/hello:v2"
	assert.Empty(t, messages(ValidateDeploymentUpdate(upd, old)))

	upd.Spec.Selector.MatchLabels["tier"] = "fe"
	errs := ValidateDeploymentUpdate(upd, old)
	require.Len(t, errs, 1)
	assert.Equal(t, "spec.selector", errs[0].Field)
	assert.Contains(t, errs[0].Error(), "field is immutable")
}

func validStatefulSet() *StatefulSet {
	s := &StatefulSet{
		ObjectMeta: meta.ObjectMeta{Name: "db", Namespace: "default"},
		Spec: StatefulSetSpec{
			ServiceName: "db",
			Selector:    &meta.LabelSelector{MatchLabels: map[string]string{"app": "db"}},
			Template:    podTemplate(map[string]string{"app": "db"}),
			VolumeClaimTemplates: []core.PersistentVolumeClaim{{ObjectMeta: meta.ObjectMeta{Name: "data"},
				Spec: core.PersistentVolumeClaimSpec{AccessModes: []core.PersistentVolumeAccessMode{core.ReadWriteOnce}}}},
		},
	}
	DefaultStatefulSet(s)
	return s
}

func TestValidateStatefulSet(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*StatefulSet)
		want   []string
	}{
		{"valid", func(*StatefulSet) {}, nil},
		{"parallel", func(s *StatefulSet) { s.Spec.PodManagementPolicy = ParallelPodManagement }, nil},
		{"bad policy", func(s *StatefulSet) { s.Spec.PodManagementPolicy = "Random" },
			[]string{`spec.podManagementPolicy: Invalid value: "Random": must be 'OrderedReady' or 'Parallel'`}},
		{"no policy", func(s *StatefulSet) { s.Spec.PodManagementPolicy = "" },
			[]string{"spec.podManagementPolicy: Required value"}},
		{"on delete with rolling update", func(s *StatefulSet) { s.Spec.UpdateStrategy.Type = OnDeleteStatefulSetStrategyType },
			[]string{"spec.updateStrategy.rollingUpdate: Invalid value: &{0x"}},
		{"negative partition", func(s *StatefulSet) { s.Spec.UpdateStrategy.RollingUpdate.Partition = int32Ptr(-1) },
			[]string{"spec.updateStrategy.rollingUpdate.partition: Invalid value: -1: must be greater than or equal to 0"}},
		{"zero max unavailable", func(s *StatefulSet) { s.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = is(meta.FromInt(0)) },
			[]string{`spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: "0": cannot be 0`}},
		{"bad strategy", func(s *StatefulSet) { s.Spec.UpdateStrategy = StatefulSetUpdateStrategy{Type: "Rolling"} },
			[]string{`spec.updateStrategy: Invalid value: "Rolling": must be 'RollingUpdate' or 'OnDelete'`}},
		{"bad retention", func(s *StatefulSet) { s.Spec.PersistentVolumeClaimRetentionPolicy.WhenScaled = "Keep" },
			[]string{`spec.persistentVolumeClaimRetentionPolicy.whenScaled: Unsupported value: "Keep": supported values: "Retain", "Delete"`}},
		{"negative ordinal", func(s *StatefulSet) { s.Spec.Ordinals = &StatefulSetOrdinals{Start: -1} },
			[]string{"spec.ordinals.start: Invalid value: -1: must be greater than or equal to 0"}},
		{"selector mismatch", func(s *StatefulSet) { s.Spec.Template.Labels = nil },
			[]string{"spec.template.metadata.labels: Invalid value: map[]: `selector` does not match template `labels`"}},
		{"empty selector", func(s *StatefulSet) { s.Spec.Selector = &meta.LabelSelector{} },
			[]string{"spec.selector: Invalid value: &{map[] []}: empty selector is invalid for statefulset"}},
		{"duplicate claim", func(s *StatefulSet) {
			s.Spec.VolumeClaimTemplates = append(s.Spec.VolumeClaimTemplates, s.Spec.VolumeClaimTemplates[0])
		}, []string{`spec.volumeClaimTemplates[1].metadata.name: Duplicate value: "data"`}},
		{"unnamed claim", func(s *StatefulSet) { s.Spec.VolumeClaimTemplates[0].Name = "" },
			[]string{"spec.volumeClaimTemplates[0].metadata.name: Required value"}},
		{"name must be a label", func(s *StatefulSet) { s.Name = "db.v1" }, []string{"metadata.name: "}},
		{"mount of a claim template", func(s *StatefulSet) {
			s.Spec.Template.Spec.Containers[0].VolumeMounts = []core.VolumeMount{{Name: "data", MountPath: "/data"}}
		}, nil},
		{"mount of an unknown volume", func(s *StatefulSet) {
			s.Spec.Template.Spec.Containers[0].VolumeMounts = []core.VolumeMount{{Name: "nope", MountPath: "/data"}}
		}, []string{`spec.template.spec.containers[0].volumeMounts[0].name: Not found: "nope"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := validStatefulSet()
			tt.mutate(s)
			errs := ValidateStatefulSet(s)
			if tt.name == "on delete with rolling update" {
				require.Len(t, errs, 1)
				assert.Equal(t, "spec.updateStrategy.rollingUpdate", errs[0].Field)
				assert.Contains(t, errs[0].Error(), "only allowed for updateStrategy 'RollingUpdate'")
				return
			}
			assertMessages(t, tt.want, errs)
		})
	}
}

func TestValidateStatefulSetUpdate(t *testing.T) {
	old := validStatefulSet()
	old.ResourceVersion = "3"
	upd := meta.DeepCopy(old)
	upd.Spec.Replicas = int32Ptr(5)
	upd.Spec.Template.Spec.Containers[0].Image = "orkit.local/hello:v2"
	upd.Spec.UpdateStrategy.RollingUpdate.Partition = int32Ptr(2)
	upd.Spec.MinReadySeconds = 3
	upd.Spec.PersistentVolumeClaimRetentionPolicy.WhenDeleted = DeletePersistentVolumeClaimRetentionPolicyType
	assert.Empty(t, messages(ValidateStatefulSetUpdate(upd, old)))

	upd.Spec.ServiceName = "other"
	errs := ValidateStatefulSetUpdate(upd, old)
	require.Len(t, errs, 1)
	assert.Equal(t, "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', "+
		"'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden", errs[0].Error())
}

func validDaemonSet() *DaemonSet {
	d := &DaemonSet{
		ObjectMeta: meta.ObjectMeta{Name: "agent", Namespace: "kube-system"},
		Spec: DaemonSetSpec{
			Selector: &meta.LabelSelector{MatchLabels: map[string]string{"k8s-app": "agent"}},
			Template: podTemplate(map[string]string{"k8s-app": "agent"}),
		},
	}
	DefaultDaemonSet(d)
	return d
}

func TestValidateDaemonSet(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*DaemonSet)
		want   []string
	}{
		{"valid", func(*DaemonSet) {}, nil},
		{"on delete", func(d *DaemonSet) {
			d.Spec.UpdateStrategy = DaemonSetUpdateStrategy{Type: OnDeleteDaemonSetStrategyType}
		}, nil},
		{"surge instead", func(d *DaemonSet) {
			d.Spec.UpdateStrategy.RollingUpdate = &RollingUpdateDaemonSet{MaxUnavailable: is(meta.FromInt(0)), MaxSurge: is(meta.FromString("10%"))}
		}, nil},
		{"both set", func(d *DaemonSet) { d.Spec.UpdateStrategy.RollingUpdate.MaxSurge = is(meta.FromInt(1)) },
			[]string{`spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: "1": may not be set when maxUnavailable is non-zero`}},
		{"both zero", func(d *DaemonSet) { d.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = is(meta.FromInt(0)) },
			[]string{"spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0"}},
		{"surge over 100%", func(d *DaemonSet) {
			d.Spec.UpdateStrategy.RollingUpdate = &RollingUpdateDaemonSet{MaxUnavailable: is(meta.FromInt(0)), MaxSurge: is(meta.FromString("150%"))}
		}, []string{`spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: "150%": must not be greater than 100%`}},
		{"missing rolling update", func(d *DaemonSet) { d.Spec.UpdateStrategy.RollingUpdate = nil },
			[]string{"spec.updateStrategy.rollingUpdate: Required value"}},
		{"unknown strategy", func(d *DaemonSet) { d.Spec.UpdateStrategy.Type = "Surge" },
			[]string{`spec.updateStrategy.type: Unsupported value: "Surge": supported values: "RollingUpdate", "OnDelete"`}},
		{"no selector", func(d *DaemonSet) { d.Spec.Selector = nil }, []string{"spec.selector: Required value"}},
		{"selector mismatch", func(d *DaemonSet) { d.Spec.Template.Labels = map[string]string{"k8s-app": "x"} },
			[]string{"spec.template.metadata.labels: Invalid value: map[k8s-app:x]: `selector` does not match template `labels`"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := validDaemonSet()
			tt.mutate(d)
			assertMessages(t, tt.want, ValidateDaemonSet(d))
		})
	}
	old := validDaemonSet()
	upd := meta.DeepCopy(old)
	upd.Spec.Selector.MatchLabels["x"] = "y"
	upd.Spec.Template.Labels["x"] = "y"
	errs := ValidateDaemonSetUpdate(upd, old)
	require.Len(t, errs, 1)
	assert.Equal(t, "spec.selector", errs[0].Field)
}

func TestValidateReplicaSet(t *testing.T) {
	rs := &ReplicaSet{
		ObjectMeta: meta.ObjectMeta{Name: "web-abc", Namespace: "default"},
		Spec: ReplicaSetSpec{
			Selector: &meta.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: podTemplate(map[string]string{"app": "web"}),
		},
	}
	DefaultReplicaSet(rs)
	assert.Empty(t, messages(ValidateReplicaSet(rs)))
	rs.Spec.Replicas = int32Ptr(-3)
	rs.Spec.MinReadySeconds = -1
	assertMessages(t, []string{
		"spec.replicas: Invalid value: -3: must be greater than or equal to 0",
		"spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0",
	}, ValidateReplicaSet(rs))

	old := meta.DeepCopy(rs)
	old.Spec.Replicas = int32Ptr(1)
	old.Spec.MinReadySeconds = 0
	upd := meta.DeepCopy(old)
	upd.Spec.Selector = &meta.LabelSelector{MatchLabels: map[string]string{"app": "web", "v": "2"}}
	upd.Spec.Template.Labels["v"] = "2"
	errs := ValidateReplicaSetUpdate(upd, old)
	require.Len(t, errs, 1)
	assert.Equal(t, "spec.selector", errs[0].Field)
}

func TestValidateControllerRevision(t *testing.T) {
	r := &ControllerRevision{ObjectMeta: meta.ObjectMeta{Name: "agent-1", Namespace: "ns"}, Data: meta.RawJSON(`{"a": 1}`), Revision: 1}
	assert.Empty(t, messages(ValidateControllerRevision(r)))
	upd := meta.DeepCopy(r)
	upd.Data = meta.RawJSON(`{"a":1}`)
	assert.Empty(t, messages(ValidateControllerRevisionUpdate(upd, r)), "whitespace is not a change")
	r.Data = meta.RawJSON(`{"spec":{"b":[1,{"y":2,"x":1.5}],"a":"z"}}`)
	upd.Data = meta.RawJSON(`{"spec":{"a":"z","b":[1,{"x":1.5,"y":2}]}}`)
	assert.Empty(t, messages(ValidateControllerRevisionUpdate(upd, r)), "key order is not a change (a metadata patch re-encodes data)")
	upd.Data = meta.RawJSON(`{"spec":{"a":"z","b":[{"x":1.5,"y":2},1]}}`)
	assert.Len(t, ValidateControllerRevisionUpdate(upd, r), 1, "array order is")
	r.Data = meta.RawJSON(`{"a": 1}`)
	upd.Data = meta.RawJSON(`{"a":2}`)
	assertMessages(t, []string{`data: Invalid value: "{\"a\":2}": field is immutable`}, ValidateControllerRevisionUpdate(upd, r))
	assertMessages(t, []string{"data: Required value: data is mandatory", "revision: Invalid value: -1: must be greater than or equal to 0"},
		ValidateControllerRevision(&ControllerRevision{ObjectMeta: r.ObjectMeta, Revision: -1}))
}

func TestValidateStatus(t *testing.T) {
	p := field.NewPath("status")
	assert.Empty(t, ValidateDeploymentStatus(&DeploymentStatus{Replicas: 3, ReadyReplicas: 3, AvailableReplicas: 2, UpdatedReplicas: 3}, p))
	assertMessages(t, []string{
		"status.unavailableReplicas: Invalid value: -1: must be greater than or equal to 0",
		"status.availableReplicas: Invalid value: 4: cannot be greater than status.replicas",
		"status.availableReplicas: Invalid value: 4: cannot be greater than readyReplicas",
	}, ValidateDeploymentStatus(&DeploymentStatus{Replicas: 3, ReadyReplicas: 3, AvailableReplicas: 4, UnavailableReplicas: -1}, p))
	assert.Empty(t, ValidateReplicaSetStatus(&ReplicaSetStatus{Replicas: 2, ReadyReplicas: 1}, p))
	assert.Len(t, ValidateReplicaSetStatus(&ReplicaSetStatus{Replicas: 1, FullyLabeledReplicas: 2}, p), 1)
	assert.Empty(t, ValidateStatefulSetStatus(&StatefulSetStatus{Replicas: 2, ReadyReplicas: 2, AvailableReplicas: 2}, p))
	assert.Len(t, ValidateStatefulSetStatus(&StatefulSetStatus{Replicas: 1, CurrentReplicas: 2}, p), 1)
	assert.Empty(t, ValidateDaemonSetStatus(&DaemonSetStatus{DesiredNumberScheduled: 1}, p))
	assert.Len(t, ValidateDaemonSetStatus(&DaemonSetStatus{NumberReady: -1}, p), 1)
}
