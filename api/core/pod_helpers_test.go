package core

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/resource"
)

func rl(kv ...string) ResourceList {
	out := ResourceList{}
	for i := 0; i < len(kv); i += 2 {
		out[ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return out
}

func ctr(req, lim ResourceList) Container {
	return Container{Name: "c", Resources: ResourceRequirements{Requests: req, Limits: lim}}
}

func TestComputePodQOS(t *testing.T) {
	tests := []struct {
		name string
		init []Container
		app  []Container
		want PodQOSClass
	}{
		{"no resources", nil, []Container{ctr(nil, nil)}, PodQOSBestEffort},
		{"zero requests", nil, []Container{ctr(rl("cpu", "0"), nil)}, PodQOSBestEffort},
		{"only extended resources", nil, []Container{ctr(rl("example.com/gpu", "1"), rl("example.com/gpu", "1"))}, PodQOSBestEffort},
		{"equal requests and limits", nil, []Container{ctr(rl("cpu", "1", "memory", "1Gi"), rl("cpu", "1", "memory", "1Gi"))}, PodQOSGuaranteed},
		{"limits only (requests defaulted)", nil, []Container{ctr(rl("cpu", "1", "memory", "1Gi"), rl("cpu", "1", "memory", "1Gi"))}, PodQOSGuaranteed},
		{"canonical forms compare equal", nil, []Container{ctr(rl("cpu", "1000m", "memory", "1024Mi"), rl("cpu", "1", "memory", "1Gi"))}, PodQOSGuaranteed},
		{"cpu limit only", nil, []Container{ctr(rl("cpu", "1"), rl("cpu", "1"))}, PodQOSBurstable},
		{"request below limit", nil, []Container{ctr(rl("cpu", "500m", "memory", "1Gi"), rl("cpu", "1", "memory", "1Gi"))}, PodQOSBurstable},
		{"one guaranteed one best effort", nil, []Container{
			ctr(rl("cpu", "1", "memory", "1Gi"), rl("cpu", "1", "memory", "1Gi")), ctr(nil, nil)}, PodQOSBurstable},
		{"init container counts", []Container{ctr(rl("memory", "64Mi"), nil)}, []Container{ctr(nil, nil)}, PodQOSBurstable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := &Pod{Spec: PodSpec{InitContainers: tt.init, Containers: tt.app}}
			assert.Equal(t, tt.want, ComputePodQOS(pod))
			assert.Equal(t, tt.want, GetPodQOS(pod))
		})
	}
	t.Run("status wins", func(t *testing.T) {
		pod := &Pod{Status: PodStatus{QOSClass: PodQOSGuaranteed}}
		assert.Equal(t, PodQOSGuaranteed, GetPodQOS(pod))
	})
}

func TestPodRequests(t *testing.T) {
	always := ContainerRestartPolicyAlways
	sidecar := func(req ResourceList) Container {
		c := ctr(req, nil)
		c.RestartPolicy = &always
		return c
	}
	tests := []struct {
		name     string
		init     []Container
		app      []Container
		overhead ResourceList
		want     ResourceList
	}{
		{"sum of containers", nil, []Container{ctr(rl("cpu", "100m", "memory", "64Mi"), nil), ctr(rl("cpu", "200m"), nil)},
			nil, rl("cpu", "300m", "memory", "64Mi")},
		{"init container larger", []Container{ctr(rl("cpu", "1"), nil)}, []Container{ctr(rl("cpu", "100m", "memory", "1Gi"), nil)},
			nil, rl("cpu", "1", "memory", "1Gi")},
		{"overhead added", nil, []Container{ctr(rl("cpu", "100m"), nil)}, rl("cpu", "10m", "memory", "8Mi"),
			rl("cpu", "110m", "memory", "8Mi")},
		{"sidecar runs alongside", []Container{sidecar(rl("cpu", "50m")), ctr(rl("cpu", "500m"), nil)},
			[]Container{ctr(rl("cpu", "100m"), nil)}, nil, rl("cpu", "550m")},
		{"sidecar plus app larger than init", []Container{sidecar(rl("cpu", "300m")), ctr(rl("cpu", "200m"), nil)},
			[]Container{ctr(rl("cpu", "400m"), nil)}, nil, rl("cpu", "700m")},
		{"empty pod", nil, nil, nil, ResourceList{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := &Pod{Spec: PodSpec{InitContainers: tt.init, Containers: tt.app, Overhead: tt.overhead}}
			got := PodRequests(pod)
			require.Len(t, got, len(tt.want))
			for name, q := range tt.want {
				g := got[name]
				assert.Zero(t, q.Cmp(g), "%s: want %s, got %s", name, q.String(), g.String())
			}
		})
	}
	t.Run("does not alias the pod", func(t *testing.T) {
		pod := &Pod{Spec: PodSpec{Containers: []Container{ctr(rl("cpu", "1"), nil)}}}
		got := PodRequests(pod)
		q := got[ResourceCPU]
		q.Add(resource.MustParse("1"))
		got[ResourceCPU] = q
		assert.Equal(t, "1", pod.Spec.Containers[0].Resources.Requests.Cpu().String())
	})
}

func TestResourceListAccessors(t *testing.T) {
	list := rl("cpu", "250m", "memory", "1Gi", "pods", "110", "storage", "5Gi", "ephemeral-storage", "10Gi")
	assert.Equal(t, int64(250), list.Cpu().MilliValue())
	assert.Equal(t, int64(1<<30), list.Memory().Value())
	assert.Equal(t, int64(110), list.Pods().Value())
	assert.Equal(t, "5Gi", list.Storage().String())
	assert.Equal(t, "10Gi", list.StorageEphemeral().String())
	var empty ResourceList
	assert.True(t, empty.Cpu().IsZero())
	assert.Equal(t, resource.BinarySI, empty.Memory().Format())
	c := list.Cpu()
	c.Add(resource.MustParse("1"))
	assert.Equal(t, "250m", list.Cpu().String(), "accessors return copies")
}

func TestToleratesTaint(t *testing.T) {
	noExec := &Taint{Key: TaintNodeUnreachable, Effect: TaintEffectNoExecute}
	dedicated := &Taint{Key: "dedicated", Value: "web", Effect: TaintEffectNoSchedule}
	tests := []struct {
		name  string
		tol   Toleration
		taint *Taint
		want  bool
	}{
		{"exists matches key", Toleration{Key: TaintNodeUnreachable, Operator: TolerationOpExists, Effect: TaintEffectNoExecute}, noExec, true},
		{"empty effect matches all", Toleration{Key: TaintNodeUnreachable, Operator: TolerationOpExists}, noExec, true},
		{"wrong effect", Toleration{Key: TaintNodeUnreachable, Operator: TolerationOpExists, Effect: TaintEffectNoSchedule}, noExec, false},
		{"empty key exists matches everything", Toleration{Operator: TolerationOpExists}, dedicated, true},
		{"equal value", Toleration{Key: "dedicated", Value: "web"}, dedicated, true},
		{"equal wrong value", Toleration{Key: "dedicated", Operator: TolerationOpEqual, Value: "db"}, dedicated, false},
		{"other key", Toleration{Key: "other", Operator: TolerationOpExists}, dedicated, false},
		{"unknown operator", Toleration{Key: "dedicated", Operator: "Gt", Value: "web"}, dedicated, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.tol.ToleratesTaint(tt.taint))
			assert.Equal(t, tt.want, TolerationsTolerateTaint([]Toleration{{Key: "unrelated"}, tt.tol}, tt.taint))
		})
	}
	assert.Equal(t, "dedicated=web:NoSchedule", dedicated.ToString())
	assert.True(t, dedicated.MatchTaint(&Taint{Key: "dedicated", Effect: TaintEffectNoSchedule}))
}

func TestPodMatchesNodeAffinity(t *testing.T) {
	node := &Node{ObjectMeta: meta.ObjectMeta{Name: "n1", Labels: map[string]string{"zone": "a", "gen": "5", "ssd": ""}}}
	withTerms := func(terms ...NodeSelectorTerm) *Pod {
		return &Pod{Spec: PodSpec{Affinity: &Affinity{NodeAffinity: &NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &NodeSelector{NodeSelectorTerms: terms}}}}}
	}
	expr := func(key string, op NodeSelectorOperator, vals ...string) NodeSelectorTerm {
		return NodeSelectorTerm{MatchExpressions: []NodeSelectorRequirement{{Key: key, Operator: op, Values: vals}}}
	}
	field := func(op NodeSelectorOperator, vals ...string) NodeSelectorTerm {
		return NodeSelectorTerm{MatchFields: []NodeSelectorRequirement{{Key: "metadata.name", Operator: op, Values: vals}}}
	}
	selector := func(kv map[string]string) *Pod { return &Pod{Spec: PodSpec{NodeSelector: kv}} }
	tests := []struct {
		name string
		pod  *Pod
		want bool
	}{
		{"no constraints", &Pod{}, true},
		{"nodeSelector match", selector(map[string]string{"zone": "a", "ssd": ""}), true},
		{"nodeSelector wrong value", selector(map[string]string{"zone": "b"}), false},
		{"nodeSelector missing label", selector(map[string]string{"rack": "1"}), false},
		{"In", withTerms(expr("zone", NodeSelectorOpIn, "a", "b")), true},
		{"In miss", withTerms(expr("zone", NodeSelectorOpIn, "b")), false},
		{"NotIn", withTerms(expr("zone", NodeSelectorOpNotIn, "b")), true},
		{"NotIn miss", withTerms(expr("zone", NodeSelectorOpNotIn, "a")), false},
		{"NotIn absent key", withTerms(expr("rack", NodeSelectorOpNotIn, "a")), true},
		{"Exists", withTerms(expr("ssd", NodeSelectorOpExists)), true},
		{"Exists miss", withTerms(expr("gpu", NodeSelectorOpExists)), false},
		{"DoesNotExist", withTerms(expr("gpu", NodeSelectorOpDoesNotExist)), true},
		{"DoesNotExist miss", withTerms(expr("ssd", NodeSelectorOpDoesNotExist)), false},
		{"Gt", withTerms(expr("gen", NodeSelectorOpGt, "4")), true},
		{"Gt equal", withTerms(expr("gen", NodeSelectorOpGt, "5")), false},
		{"Lt", withTerms(expr("gen", NodeSelectorOpLt, "6")), true},
		{"Lt not a number", withTerms(expr("zone", NodeSelectorOpLt, "6")), false},
		{"Gt two bounds", withTerms(expr("gen", NodeSelectorOpGt, "1", "2")), false},
		{"unknown operator", withTerms(expr("zone", "Matches", "a")), false},
		{"matchFields In", withTerms(field(NodeSelectorOpIn, "n1")), true},
		{"matchFields NotIn", withTerms(field(NodeSelectorOpNotIn, "n1")), false},
		{"matchFields Exists unsupported", withTerms(field(NodeSelectorOpExists)), false},
		{"any term matches", withTerms(expr("zone", NodeSelectorOpIn, "b"), field(NodeSelectorOpIn, "n1")), true},
		{"empty term matches nothing", withTerms(NodeSelectorTerm{}), false},
		{"no terms match nothing", withTerms(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, PodMatchesNodeAffinity(tt.pod, node))
		})
	}
}

func TestConditions(t *testing.T) {
	pod := &Pod{}
	assert.False(t, IsPodReady(pod))
	i, c := GetPodCondition(&pod.Status, PodReady)
	assert.Equal(t, -1, i)
	assert.Nil(t, c)

	t0 := meta.NewTime(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
	assert.True(t, UpdatePodCondition(&pod.Status, PodCondition{Type: PodReady, Status: meta.ConditionTrue, LastTransitionTime: t0}))
	assert.True(t, IsPodReady(pod))
	assert.False(t, UpdatePodCondition(&pod.Status, PodCondition{Type: PodReady, Status: meta.ConditionTrue}), "no change")
	_, c = GetPodCondition(&pod.Status, PodReady)
	assert.True(t, c.LastTransitionTime.Equal(t0.Time), "transition time kept when status is unchanged")
	assert.True(t, UpdatePodCondition(&pod.Status, PodCondition{Type: PodReady, Status: meta.ConditionFalse, Reason: "ContainersNotReady"}))
	_, c = GetPodCondition(&pod.Status, PodReady)
	assert.False(t, c.LastTransitionTime.Equal(t0.Time))
	assert.False(t, IsPodReady(pod))
	assert.Len(t, pod.Status.Conditions, 1)

	node := &Node{Status: NodeStatus{Conditions: []NodeCondition{
		{Type: NodeMemoryPressure, Status: meta.ConditionFalse}, {Type: NodeReady, Status: meta.ConditionTrue}}}}
	i, nc := GetNodeCondition(&node.Status, NodeReady)
	assert.Equal(t, 1, i)
	assert.Equal(t, NodeReady, nc.Type)
	assert.True(t, IsNodeReady(node))
	_, nc = GetNodeCondition(nil, NodeReady)
	assert.Nil(t, nc)
}

func TestObjectReference(t *testing.T) {
	pod := &Pod{TypeMeta: meta.TypeMeta{Kind: "Pod", APIVersion: "v1"},
		ObjectMeta: meta.ObjectMeta{Name: "p", Namespace: "demo", UID: "u1", ResourceVersion: "7"}}
	assert.Equal(t, ObjectReference{Kind: "Pod", APIVersion: "v1", Namespace: "demo", Name: "p", UID: "u1", ResourceVersion: "7"},
		NewObjectReference(pod))
}
