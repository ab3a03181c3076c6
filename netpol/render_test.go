package netpol

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/networking"
)

func pod(ns, name, ip, node string, lbls map[string]string, ports ...core.ContainerPort) *core.Pod {
	return &core.Pod{ObjectMeta: meta.ObjectMeta{Namespace: ns, Name: name, Labels: lbls},
		Spec:   core.PodSpec{NodeName: node, Containers: []core.Container{{Name: "c", Ports: ports}}},
		Status: core.PodStatus{Phase: core.PodRunning, PodIP: ip}}
}

func namespace(name string, lbls map[string]string) *core.Namespace {
	return &core.Namespace{ObjectMeta: meta.ObjectMeta{Name: name, Labels: lbls}}
}

func policy(ns, name string, spec networking.NetworkPolicySpec) *networking.NetworkPolicy {
	return &networking.NetworkPolicy{ObjectMeta: meta.ObjectMeta{Namespace: ns, Name: name}, Spec: spec}
}

func sel(kv ...string) *meta.LabelSelector {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return &meta.LabelSelector{MatchLabels: m}
}

func ptr[T any](v T) *T { return &v }

func tcp(port int32) networking.NetworkPolicyPort {
	return networking.NetworkPolicyPort{Port: ptr(meta.FromInt(port))}
}

// chainOf returns the rules of the chain ip dispatches to in m, without
// the self rule first and the drop last; nil when ip is not isolated.
func chainOf(t *testing.T, rs Ruleset, m map[netip.Addr]string, ip string) []string {
	t.Helper()
	name, ok := m[netip.MustParseAddr(ip)]
	if !ok {
		return nil
	}
	rules := rs.Chains[name]
	require.GreaterOrEqual(t, len(rules), 2)
	assert.Equal(t, "drop", rules[len(rules)-1])
	assert.Contains(t, rules[0], ip+" return", "a pod never blocks itself")
	return append([]string{}, rules[1:len(rules)-1]...)
}

func TestRender(t *testing.T) {
	pods := []*core.Pod{
		pod("default", "web", "10.244.1.2", "node-1", map[string]string{"app": "web"}, core.ContainerPort{Name: "http", ContainerPort: 8080}),
		pod("default", "client", "10.244.1.3", "node-1", map[string]string{"app": "client"}),
		pod("default", "db", "10.244.2.2", "node-2", map[string]string{"app": "db"}, core.ContainerPort{Name: "pg", ContainerPort: 5432}),
		pod("other", "ext", "10.244.2.3", "node-2", map[string]string{"app": "client"}),
		pod("prod", "p", "10.244.2.4", "node-2", map[string]string{"app": "client"}),
	}
	nss := []*core.Namespace{namespace("default", nil), namespace("other", map[string]string{"team": "a"}), namespace("prod", map[string]string{"team": "b"})}
	webOnly := meta.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	tests := []struct {
		name        string
		spec        networking.NetworkPolicySpec
		ingress     []string // rules of web's ingress chain; nil: not isolated
		egress      []string // rules of web's egress chain; nil: not isolated
		wantProblem string
	}{
		{name: "default deny ingress", spec: networking.NetworkPolicySpec{PodSelector: webOnly}, ingress: []string{}},
		{name: "allow all ingress", spec: networking.NetworkPolicySpec{PodSelector: webOnly, Ingress: []networking.NetworkPolicyIngressRule{{}}},
			ingress: []string{"return"}},
		{name: "egress rules default both types", spec: networking.NetworkPolicySpec{PodSelector: webOnly,
			Egress: []networking.NetworkPolicyEgressRule{{To: []networking.NetworkPolicyPeer{{PodSelector: sel("app", "db")}}}}},
			ingress: []string{}, egress: []string{"ip daddr { 10.244.2.2 } return"}},
		{name: "egress only", spec: networking.NetworkPolicySpec{PodSelector: webOnly, PolicyTypes: []networking.PolicyType{networking.PolicyTypeEgress}},
			egress: []string{}},
		{name: "pod selector stays in the namespace", spec: networking.NetworkPolicySpec{PodSelector: webOnly,
			Ingress: []networking.NetworkPolicyIngressRule{{From: []networking.NetworkPolicyPeer{{PodSelector: sel("app", "client")}}}}},
			ingress: []string{"ip saddr { 10.244.1.3 } return"}},
		{name: "namespace selector takes every pod there", spec: networking.NetworkPolicySpec{PodSelector: webOnly,
			Ingress: []networking.NetworkPolicyIngressRule{{From: []networking.NetworkPolicyPeer{{NamespaceSelector: sel("team", "a")}}}}},
			ingress: []string{"ip saddr { 10.244.2.3 } return"}},
		{name: "empty namespace selector: every namespace", spec: networking.NetworkPolicySpec{PodSelector: webOnly,
			Ingress: []networking.NetworkPolicyIngressRule{{From: []networking.NetworkPolicyPeer{{NamespaceSelector: &meta.LabelSelector{}, PodSelector: sel("app", "client")}}}}},
			ingress: []string{"ip saddr { 10.244.1.3, 10.244.2.3-10.244.2.4 } return"}},
		{name: "both selectors: matching pods of matching namespaces", spec: networking.NetworkPolicySpec{PodSelector: webOnly,
			Ingress: []networking.NetworkPolicyIngressRule{{From: []networking.NetworkPolicyPeer{{NamespaceSelector: sel("team", "b"), PodSelector: sel("app", "client")}}}}},
			ingress: []string{"ip saddr { 10.244.2.4 } return"}},
		{name: "peers matching nothing allow nothing", spec: networking.NetworkPolicySpec{PodSelector: webOnly,
			Ingress: []networking.NetworkPolicyIngressRule{{From: []networking.NetworkPolicyPeer{{PodSelector: sel("app", "none")}}}}},
			ingress: []string{}},
		{name: "ipBlock with excepts", spec: networking.NetworkPolicySpec{PodSelector: webOnly,
			Ingress: []networking.NetworkPolicyIngressRule{{From: []networking.NetworkPolicyPeer{{IPBlock: &networking.IPBlock{CIDR: "172.17.0.0/16",
				Except: []string{"172.17.1.0/24", "172.17.255.255/32"}}}}}}},
			ingress: []string{"ip saddr { 172.17.0.0-172.17.0.255, 172.17.2.0-172.17.255.254 } return"}},
		{name: "ipBlock and pods merged", spec: networking.NetworkPolicySpec{PodSelector: webOnly,
			Ingress: []networking.NetworkPolicyIngressRule{{From: []networking.NetworkPolicyPeer{{IPBlock: &networking.IPBlock{CIDR: "10.244.1.0/30"}}, {PodSelector: sel("app", "client")}}}}},
			ingress: []string{"ip saddr { 10.244.1.0-10.244.1.3 } return"}},
		{name: "IPv6 ipBlock skipped with a problem", spec: networking.NetworkPolicySpec{PodSelector: webOnly,
			Ingress: []networking.NetworkPolicyIngressRule{{From: []networking.NetworkPolicyPeer{{IPBlock: &networking.IPBlock{CIDR: "fd00::/8"}}}}}},
			ingress: []string{}, wantProblem: "not IPv4"},
		{name: "ports: number, range, protocol, named, whole protocol", spec: networking.NetworkPolicySpec{PodSelector: webOnly,
			Ingress: []networking.NetworkPolicyIngressRule{{Ports: []networking.NetworkPolicyPort{tcp(80), {Port: ptr(meta.FromInt(8000)), EndPort: ptr[int32](8100)},
				{Port: ptr(meta.FromString("http"))}, {Protocol: ptr(core.ProtocolUDP), Port: ptr(meta.FromInt(53))}, {Protocol: ptr(core.ProtocolSCTP)},
				{Port: ptr(meta.FromString("nope"))}}}}},
			ingress: []string{"meta l4proto sctp return", "meta l4proto tcp th dport { 80, 8000-8100 } return", "meta l4proto udp th dport { 53 } return"}},
		{name: "named port resolved in the receiving pod", spec: networking.NetworkPolicySpec{PodSelector: webOnly,
			Ingress: []networking.NetworkPolicyIngressRule{{Ports: []networking.NetworkPolicyPort{{Port: ptr(meta.FromString("http"))}},
				From: []networking.NetworkPolicyPeer{{PodSelector: sel("app", "client")}}}}},
			ingress: []string{"ip saddr { 10.244.1.3 } meta l4proto tcp th dport { 8080 } return"}},
		{name: "unresolved named port allows nothing", spec: networking.NetworkPolicySpec{PodSelector: webOnly,
			Ingress: []networking.NetworkPolicyIngressRule{{Ports: []networking.NetworkPolicyPort{{Port: ptr(meta.FromString("pg"))}}}}},
			ingress: []string{}},
		{name: "egress named port resolved in each destination", spec: networking.NetworkPolicySpec{PodSelector: webOnly, PolicyTypes: []networking.PolicyType{networking.PolicyTypeEgress},
			Egress: []networking.NetworkPolicyEgressRule{{Ports: []networking.NetworkPolicyPort{{Port: ptr(meta.FromString("pg"))}, tcp(53)}}}},
			egress: []string{"meta l4proto tcp th dport { 53 } return", "ip daddr { 10.244.2.2 } meta l4proto tcp th dport { 5432 } return"}},
		{name: "policy selecting other pods leaves web open", spec: networking.NetworkPolicySpec{PodSelector: *sel("app", "db")}},
		{name: "invalid selector selects nothing", spec: networking.NetworkPolicySpec{PodSelector: meta.LabelSelector{
			MatchExpressions: []meta.LabelSelectorRequirement{{Key: "app", Operator: "Near"}}}}, wantProblem: "not a valid label selector operator"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs := Render([]*networking.NetworkPolicy{policy("default", "p", tt.spec)}, pods, nss, nil)
			assert.Equal(t, tt.ingress, chainOf(t, rs, rs.Ingress, "10.244.1.2"))
			assert.Equal(t, tt.egress, chainOf(t, rs, rs.Egress, "10.244.1.2"))
			assert.Nil(t, chainOf(t, rs, rs.Ingress, "10.244.1.3"), "a pod no policy selects is not isolated")
			if tt.wantProblem != "" {
				require.NotEmpty(t, rs.Problems)
				assert.Contains(t, rs.Problems[0], tt.wantProblem)
				assert.Contains(t, rs.Problems[0], "networkpolicy default/p")
			} else {
				assert.Empty(t, rs.Problems)
			}
		})
	}
}

func TestRenderPolicies(t *testing.T) {
	web := pod("default", "web", "10.244.1.2", "node-1", map[string]string{"app": "web"})
	client := pod("default", "client", "10.244.1.3", "node-1", map[string]string{"app": "client"})
	other := pod("other", "web", "10.244.1.4", "node-2", map[string]string{"app": "web"})
	hostnet := pod("default", "h", "192.168.0.1", "node-1", map[string]string{"app": "web"})
	hostnet.Spec.HostNetwork = true
	done := pod("default", "done", "10.244.1.9", "node-1", map[string]string{"app": "web"})
	done.Status.Phase = core.PodSucceeded
	pods := []*core.Pod{web, client, other, hostnet, done}
	deny := policy("default", "deny", networking.NetworkPolicySpec{})
	allowClient := policy("default", "allow", networking.NetworkPolicySpec{PodSelector: *sel("app", "web"),
		Ingress: []networking.NetworkPolicyIngressRule{{From: []networking.NetworkPolicyPeer{{PodSelector: sel("app", "client")}}}}})

	t.Run("policies add up", func(t *testing.T) {
		rs := Render([]*networking.NetworkPolicy{allowClient, deny}, pods, nil, nil)
		assert.Equal(t, []string{"ip saddr { 10.244.1.3 } return"}, chainOf(t, rs, rs.Ingress, "10.244.1.2"))
		assert.Equal(t, []string{}, chainOf(t, rs, rs.Ingress, "10.244.1.3"), "deny selects every pod of its namespace")
		assert.Nil(t, chainOf(t, rs, rs.Ingress, "10.244.1.4"), "a policy applies in its own namespace only")
		assert.Len(t, rs.Ingress, 2, "host-network and finished pods are never isolated")
	})
	t.Run("nodes limit the isolated pods, not the peers", func(t *testing.T) {
		rs := Render([]*networking.NetworkPolicy{allowClient}, pods, nil, []string{"node-2"})
		assert.Empty(t, rs.Ingress)
		rs = Render([]*networking.NetworkPolicy{allowClient}, pods, nil, []string{"node-1"})
		assert.Equal(t, []string{"ip saddr { 10.244.1.3 } return"}, chainOf(t, rs, rs.Ingress, "10.244.1.2"))
	})
	t.Run("no policies, no rules", func(t *testing.T) {
		rs := Render(nil, pods, nil, nil)
		assert.Empty(t, rs.Chains)
		assert.NotContains(t, rs.Script(), "add element")
	})
	t.Run("equal rules share a chain", func(t *testing.T) {
		twin := pod("default", "twin", "10.244.1.5", "node-1", map[string]string{"app": "web"})
		rs := Render([]*networking.NetworkPolicy{deny}, []*core.Pod{web, twin}, nil, nil)
		assert.Len(t, rs.Ingress, 2)
		assert.Len(t, rs.Chains, 2, "the self rule differs, so each pod has its own chain")
	})
}

func TestScript(t *testing.T) {
	rs := Render([]*networking.NetworkPolicy{policy("default", "deny", networking.NetworkPolicySpec{})},
		[]*core.Pod{pod("default", "a", "10.244.1.2", "n", nil)}, nil, nil)
	rs.Table = "t1"
	s := rs.Script()
	for _, want := range []string{
		"add table ip t1\ndelete table ip t1\n",
		"add chain ip t1 forward { type filter hook forward priority 0; policy accept; }",
		"add rule ip t1 forward ct state established,related accept",
		"add rule ip t1 forward ip saddr vmap @egress-pods",
		"add rule ip t1 forward ip daddr vmap @ingress-pods",
		"add element ip t1 ingress-pods { 10.244.1.2 : jump in-",
	} {
		assert.Contains(t, s, want)
	}
	assert.Less(t, strings.Index(s, "add chain ip t1 in-"), strings.Index(s, "add element"), "chains exist before the map names them")
	assert.Equal(t, "add table ip orkit-netpol\ndelete table ip orkit-netpol\n", DeleteScript(""))
}

func TestSpans(t *testing.T) {
	s := spans{}.add(10, 20).add(21, 25).add(30, 40).add(5, 12)
	assert.Equal(t, spans{{5, 25}, {30, 40}}, s)
	assert.Equal(t, spans{{5, 9}, {16, 25}, {30, 40}}, s.minus(10, 15))
	assert.Equal(t, spans{{30, 40}}, s.minus(0, 29))
	assert.True(t, s.contains(30))
	assert.False(t, s.contains(26))
	assert.Equal(t, "{ 5-25, 30-40 }", portSet(s))
}
