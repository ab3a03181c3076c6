package plugins

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/scheduler/framework"
)

func TestNodeName(t *testing.T) {
	n := nodeInfo(node("a", nil, nil))
	tests := []struct {
		name, nodeName, want string
	}{
		{"unset", "", ""},
		{"match", "a", ""},
		{"other", "b", "UnschedulableAndUnresolvable: node(s) didn't match the requested node name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := pod("p", nil)
			p.Spec.NodeName = tt.nodeName
			assert.Equal(t, tt.want, msg(NodeName{}.Filter(ctx, nil, p, n)))
		})
	}
}

func TestNodeUnschedulable(t *testing.T) {
	cordoned := node("a", nil, nil)
	cordoned.Spec.Unschedulable = true
	tolerating := pod("t", nil)
	tolerating.Spec.Tolerations = []core.Toleration{{Key: core.TaintNodeUnschedulable, Operator: core.TolerationOpExists, Effect: core.TaintEffectNoSchedule}}
	tests := []struct {
		name string
		node *core.Node
		pod  *core.Pod
		want string
	}{
		{"schedulable", node("a", nil, nil), pod("p", nil), ""},
		{"cordoned", cordoned, pod("p", nil), "UnschedulableAndUnresolvable: node(s) were unschedulable"},
		{"cordoned but tolerated", cordoned, tolerating, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, msg(NodeUnschedulable{}.Filter(ctx, nil, tt.pod, nodeInfo(tt.node))))
		})
	}
}

func TestNodePorts(t *testing.T) {
	withPort := func(name string, port int32, ip string, proto core.Protocol) *core.Pod {
		p := pod(name, nil)
		p.Spec.Containers[0].Ports = []core.ContainerPort{{ContainerPort: 80, HostPort: port, HostIP: ip, Protocol: proto}}
		return p
	}
	n := node("n", nil, nil)
	tests := []struct {
		name string
		pod  *core.Pod
		on   []*core.Pod
		want string
	}{
		{"no ports", pod("p", nil), []*core.Pod{withPort("a", 8080, "", "")}, ""},
		{"free", withPort("p", 8080, "", ""), []*core.Pod{withPort("a", 8081, "", "")}, ""},
		{"taken", withPort("p", 8080, "", ""), []*core.Pod{withPort("a", 8080, "", "")}, "Unschedulable: node(s) didn't have free ports for the requested pod ports"},
		{"other protocol", withPort("p", 8080, "", core.ProtocolUDP), []*core.Pod{withPort("a", 8080, "", "")}, ""},
		{"different IPs", withPort("p", 8080, "10.0.0.1", ""), []*core.Pod{withPort("a", 8080, "10.0.0.2", "")}, ""},
		{"wildcard conflicts with an IP", withPort("p", 8080, "", ""), []*core.Pod{withPort("a", 8080, "10.0.0.2", "")}, "Unschedulable: node(s) didn't have free ports for the requested pod ports"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, msg(runFilter(NodePorts{}, tt.pod, nodeInfo(n, tt.on...), nil)))
		})
	}
}

func TestNodeAffinityFilter(t *testing.T) {
	n := node("n1", nil, map[string]string{"zone": "a", "gen": "5", "ssd": ""})
	req := func(key string, op core.NodeSelectorOperator, vals ...string) *core.Pod {
		p := pod("p", nil)
		p.Spec.Affinity = &core.Affinity{NodeAffinity: &core.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &core.NodeSelector{
			NodeSelectorTerms: []core.NodeSelectorTerm{{MatchExpressions: []core.NodeSelectorRequirement{{Key: key, Operator: op, Values: vals}}}}}}}
		return p
	}
	field := pod("f", nil)
	field.Spec.Affinity = &core.Affinity{NodeAffinity: &core.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &core.NodeSelector{
		NodeSelectorTerms: []core.NodeSelectorTerm{{MatchFields: []core.NodeSelectorRequirement{{Key: "metadata.name", Operator: core.NodeSelectorOpIn, Values: []string{"n1"}}}}}}}}
	sel := pod("s", nil)
	sel.Spec.NodeSelector = map[string]string{"zone": "b"}
	empty := pod("e", nil)
	empty.Spec.Affinity = &core.Affinity{NodeAffinity: &core.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &core.NodeSelector{
		NodeSelectorTerms: []core.NodeSelectorTerm{{}}}}}
	const no = "UnschedulableAndUnresolvable: node(s) didn't match Pod's node affinity/selector"
	tests := []struct {
		name string
		pod  *core.Pod
		want string
	}{
		{"none", pod("p", nil), ""},
		{"In", req("zone", core.NodeSelectorOpIn, "a", "b"), ""},
		{"In miss", req("zone", core.NodeSelectorOpIn, "b"), no},
		{"NotIn", req("zone", core.NodeSelectorOpNotIn, "b"), ""},
		{"NotIn miss", req("zone", core.NodeSelectorOpNotIn, "a"), no},
		{"NotIn absent key", req("rack", core.NodeSelectorOpNotIn, "a"), ""},
		{"Exists", req("ssd", core.NodeSelectorOpExists), ""},
		{"Exists miss", req("gpu", core.NodeSelectorOpExists), no},
		{"DoesNotExist", req("gpu", core.NodeSelectorOpDoesNotExist), ""},
		{"DoesNotExist miss", req("ssd", core.NodeSelectorOpDoesNotExist), no},
		{"Gt", req("gen", core.NodeSelectorOpGt, "4"), ""},
		{"Gt miss", req("gen", core.NodeSelectorOpGt, "5"), no},
		{"Lt", req("gen", core.NodeSelectorOpLt, "6"), ""},
		{"Lt not a number", req("zone", core.NodeSelectorOpLt, "6"), no},
		{"matchFields name", field, ""},
		{"nodeSelector miss", sel, no},
		{"empty term matches nothing", empty, no},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, msg(NodeAffinity{}.Filter(ctx, nil, tt.pod, nodeInfo(n))))
		})
	}
}

func TestNodeAffinityScore(t *testing.T) {
	p := pod("p", nil)
	p.Spec.Affinity = &core.Affinity{NodeAffinity: &core.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []core.PreferredSchedulingTerm{
		{Weight: 3, Preference: core.NodeSelectorTerm{MatchExpressions: []core.NodeSelectorRequirement{{Key: "zone", Operator: core.NodeSelectorOpIn, Values: []string{"a"}}}}},
		{Weight: 1, Preference: core.NodeSelectorTerm{MatchExpressions: []core.NodeSelectorRequirement{{Key: "ssd", Operator: core.NodeSelectorOpExists}}}},
	}}}
	nodes := []*core.Node{
		node("both", nil, map[string]string{"zone": "a", "ssd": ""}),
		node("zone", nil, map[string]string{"zone": "a"}),
		node("none", nil, nil),
	}
	assert.True(t, NodeAffinity{}.PreScore(ctx, nil, pod("q", nil), nil).IsSkip(), "no preferences: skipped")
	assert.Nil(t, NodeAffinity{}.PreScore(ctx, nil, p, nil))
	scores := make([]framework.NodeScore, len(nodes))
	for i, n := range nodes {
		v, _ := NodeAffinity{}.Score(ctx, nil, p, nodeInfo(n))
		scores[i] = framework.NodeScore{Name: n.Name, Score: v}
	}
	NodeAffinity{}.NormalizeScore(ctx, nil, p, scores)
	assert.Equal(t, []int64{100, 75, 0}, []int64{scores[0].Score, scores[1].Score, scores[2].Score})
}

func TestTaintToleration(t *testing.T) {
	taint := func(k, v string, e core.TaintEffect) core.Taint { return core.Taint{Key: k, Value: v, Effect: e} }
	withTaints := func(ts ...core.Taint) *core.Node {
		n := node("n", nil, nil)
		n.Spec.Taints = ts
		return n
	}
	tol := func(tols ...core.Toleration) *core.Pod {
		p := pod("p", nil)
		p.Spec.Tolerations = tols
		return p
	}
	tests := []struct {
		name string
		node *core.Node
		pod  *core.Pod
		want string
	}{
		{"no taints", withTaints(), tol(), ""},
		{"NoSchedule", withTaints(taint("dedicated", "infra", core.TaintEffectNoSchedule)), tol(),
			"UnschedulableAndUnresolvable: node(s) had untolerated taint {dedicated: infra}"},
		{"NoExecute", withTaints(taint("k", "", core.TaintEffectNoExecute)), tol(),
			"UnschedulableAndUnresolvable: node(s) had untolerated taint {k: }"},
		{"PreferNoSchedule passes", withTaints(taint("k", "v", core.TaintEffectPreferNoSchedule)), tol(), ""},
		{"tolerated Equal", withTaints(taint("k", "v", core.TaintEffectNoSchedule)),
			tol(core.Toleration{Key: "k", Operator: core.TolerationOpEqual, Value: "v", Effect: core.TaintEffectNoSchedule}), ""},
		{"wrong value", withTaints(taint("k", "v", core.TaintEffectNoSchedule)),
			tol(core.Toleration{Key: "k", Value: "w"}), "UnschedulableAndUnresolvable: node(s) had untolerated taint {k: v}"},
		{"Exists with any effect", withTaints(taint("k", "v", core.TaintEffectNoExecute)),
			tol(core.Toleration{Key: "k", Operator: core.TolerationOpExists}), ""},
		{"empty key Exists tolerates all", withTaints(taint("a", "1", core.TaintEffectNoSchedule), taint("b", "2", core.TaintEffectNoExecute)),
			tol(core.Toleration{Operator: core.TolerationOpExists}), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, msg(TaintToleration{}.Filter(ctx, nil, tt.pod, nodeInfo(tt.node))))
		})
	}
	nodes := []*core.Node{withTaints(), withTaints(taint("a", "", core.TaintEffectPreferNoSchedule)),
		withTaints(taint("a", "", core.TaintEffectPreferNoSchedule), taint("b", "", core.TaintEffectPreferNoSchedule))}
	p := tol(core.Toleration{Key: "b", Operator: core.TolerationOpExists, Effect: core.TaintEffectPreferNoSchedule})
	scores := make([]framework.NodeScore, len(nodes))
	for i, n := range nodes {
		v, _ := TaintToleration{}.Score(ctx, nil, p, nodeInfo(n))
		scores[i].Score = v
	}
	assert.Equal(t, []int64{0, 1, 1}, []int64{scores[0].Score, scores[1].Score, scores[2].Score})
	TaintToleration{}.NormalizeScore(ctx, nil, p, scores)
	assert.Equal(t, []int64{100, 0, 0}, []int64{scores[0].Score, scores[1].Score, scores[2].Score})
}

func TestImageLocality(t *testing.T) {
	const mb = 1024 * 1024
	n := node("n", nil, nil)
	n.Status.Images = []core.ContainerImage{{Names: []string{"big:v1"}, SizeBytes: 500 * mb}, {Names: []string{"small"}, SizeBytes: 10 * mb}}
	ni := nodeInfo(n)
	withImage := func(img string) *core.Pod {
		p := pod("p", nil)
		p.Spec.Containers[0].Image = img
		return p
	}
	all := func(string) int { return 2 }
	half := func(string) int { return 1 }
	assert.Equal(t, int64(0), ImageLocalityScore(withImage("absent:v1"), ni, all, 2))
	assert.Equal(t, int64(0), ImageLocalityScore(withImage("small"), ni, all, 2), "below the 23MiB floor; 'small' normalizes to small:latest")
	assert.Equal(t, int64(48), ImageLocalityScore(withImage("big:v1"), ni, all, 2))
	assert.Equal(t, int64(23), ImageLocalityScore(withImage("big:v1"), ni, half, 2), "scaled by the share of nodes having it")
}

func TestSelectorSpread(t *testing.T) {
	yes := true
	owned := func(name, uid string) *core.Pod {
		p := pod(name, nil)
		p.OwnerReferences = []meta.OwnerReference{{Kind: "ReplicaSet", Name: "rs", UID: meta.UID(uid), Controller: &yes}}
		return p
	}
	p := owned("new", "rs-1")
	n := node("n", nil, nil)
	assert.True(t, SelectorSpread{}.PreScore(ctx, nil, pod("orphan", nil), nil).IsSkip())
	assert.Equal(t, int64(2), CountSiblings(p, nodeInfo(n, owned("a", "rs-1"), owned("b", "rs-1"), owned("c", "rs-2"), pod("d", nil))))
	gone := owned("e", "rs-1")
	gone.DeletionTimestamp = &meta.Time{}
	elsewhere := owned("f", "rs-1")
	elsewhere.Namespace = "other"
	assert.Equal(t, int64(1), CountSiblings(p, nodeInfo(n, owned("a", "rs-1"), gone, elsewhere)),
		"terminating pods and other namespaces' do not count")
	scores := []framework.NodeScore{{Score: 2}, {Score: 0}, {Score: 1}}
	SelectorSpread{}.NormalizeScore(ctx, nil, p, scores)
	assert.Equal(t, []int64{0, 100, 50}, []int64{scores[0].Score, scores[1].Score, scores[2].Score})
}

// BenchmarkCountSiblings: SelectorSpread's score on one node holding 110
// pods of 30 controllers, as on every scored node of a crowded cluster.
func BenchmarkCountSiblings(b *testing.B) {
	yes := true
	var pods []*core.Pod
	for i := range 110 {
		p := pod(fmt.Sprintf("p%d", i), nil)
		p.OwnerReferences = []meta.OwnerReference{{Kind: "ReplicaSet", Name: "rs", UID: meta.UID(fmt.Sprintf("%08x-0d4f-4a51-9c3e-2b7c6a3e0d4f", uint32(i%30)*2654435761)), Controller: &yes}}
		pods = append(pods, p)
	}
	ni := nodeInfo(node("n", nil, nil), pods...)
	target := pods[7]
	b.ReportAllocs()
	for b.Loop() {
		if CountSiblings(target, ni) == 0 {
			b.Fatal("no siblings")
		}
	}
}
