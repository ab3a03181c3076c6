package networking

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

func TestNetworkPolicyGolden(t *testing.T) {
	roundTrip(t, "networkpolicy.json", ValidateNetworkPolicy)
}

func TestDefaultNetworkPolicy(t *testing.T) {
	tests := []struct {
		name string
		spec NetworkPolicySpec
		want []PolicyType
	}{
		{"nothing set: ingress", NetworkPolicySpec{}, []PolicyType{PolicyTypeIngress}},
		{"egress rules: both", NetworkPolicySpec{Egress: []NetworkPolicyEgressRule{{}}}, []PolicyType{PolicyTypeIngress, PolicyTypeEgress}},
		{"set: kept", NetworkPolicySpec{PolicyTypes: []PolicyType{PolicyTypeEgress}}, []PolicyType{PolicyTypeEgress}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			np := &NetworkPolicy{Spec: tt.spec}
			in, eg := np.Spec.EffectivePolicyTypes()
			DefaultNetworkPolicy(np)
			assert.Equal(t, tt.want, np.Spec.PolicyTypes)
			in2, eg2 := np.Spec.EffectivePolicyTypes()
			assert.Equal(t, []bool{in, eg}, []bool{in2, eg2}, "the effective types match the defaulted ones")
		})
	}
	np := &NetworkPolicy{Spec: NetworkPolicySpec{Ingress: []NetworkPolicyIngressRule{{Ports: []NetworkPolicyPort{{}}}}}}
	DefaultNetworkPolicy(np)
	assert.Equal(t, core.ProtocolTCP, *np.Spec.Ingress[0].Ports[0].Protocol)
}

func TestValidateNetworkPolicy(t *testing.T) {
	port := func(proto core.Protocol, p *meta.IntOrString, end *int32) NetworkPolicyIngressRule {
		return NetworkPolicyIngressRule{Ports: []NetworkPolicyPort{{Protocol: &proto, Port: p, EndPort: end}}}
	}
	from := func(peers ...NetworkPolicyPeer) NetworkPolicyIngressRule {
		return NetworkPolicyIngressRule{From: peers}
	}
	ipb := func(cidr string, except ...string) NetworkPolicyPeer {
		return NetworkPolicyPeer{IPBlock: &IPBlock{CIDR: cidr, Except: except}}
	}
	sel := &meta.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	tests := []struct {
		name string
		spec NetworkPolicySpec
		want []string
	}{
		{"default deny", NetworkPolicySpec{}, nil},
		{"port range", NetworkPolicySpec{Ingress: []NetworkPolicyIngressRule{port("TCP", ptr(meta.FromInt(80)), ptr[int32](90))}}, nil},
		{"named port", NetworkPolicySpec{Ingress: []NetworkPolicyIngressRule{port("SCTP", ptr(meta.FromString("http")), nil)}}, nil},
		{"bad protocol", NetworkPolicySpec{Ingress: []NetworkPolicyIngressRule{port("ICMP", nil, nil)}},
			[]string{`spec.ingress[0].ports[0].protocol: Unsupported value: "ICMP": supported values: "TCP", "UDP", "SCTP"`}},
		{"port zero", NetworkPolicySpec{Ingress: []NetworkPolicyIngressRule{port("TCP", ptr(meta.FromInt(0)), nil)}},
			[]string{"spec.ingress[0].ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive"}},
		{"endPort below port", NetworkPolicySpec{Ingress: []NetworkPolicyIngressRule{port("TCP", ptr(meta.FromInt(90)), ptr[int32](80))}},
			[]string{"spec.ingress[0].ports[0].endPort: Invalid value: 90: must be greater than or equal to `port`"}},
		{"endPort with a named port", NetworkPolicySpec{Ingress: []NetworkPolicyIngressRule{port("TCP", ptr(meta.FromString("http")), ptr[int32](80))}},
			[]string{"spec.ingress[0].ports[0].endPort: Invalid value: 80: may not be specified when `port` is non-numeric"}},
		{"endPort without port", NetworkPolicySpec{Ingress: []NetworkPolicyIngressRule{port("TCP", nil, ptr[int32](80))}},
			[]string{"spec.ingress[0].ports[0].endPort: Invalid value: 80: may not be specified when `port` is not specified"}},
		{"bad port name", NetworkPolicySpec{Ingress: []NetworkPolicyIngressRule{port("TCP", ptr(meta.FromString("HTTP_1")), nil)}},
			[]string{`spec.ingress[0].ports[0].port: Invalid value: "HTTP_1"`}},
		{"empty peer", NetworkPolicySpec{Ingress: []NetworkPolicyIngressRule{from(NetworkPolicyPeer{})}},
			[]string{"spec.ingress[0].from[0]: Required value: must specify a peer"}},
		{"ipBlock and selector", NetworkPolicySpec{Egress: []NetworkPolicyEgressRule{{To: []NetworkPolicyPeer{{PodSelector: sel, IPBlock: &IPBlock{CIDR: "10.0.0.0/8"}}}}}},
			[]string{"spec.egress[0].to[0]: Forbidden: may not specify both ipBlock and another peer"}},
		{"pod and namespace selector", NetworkPolicySpec{Ingress: []NetworkPolicyIngressRule{from(NetworkPolicyPeer{PodSelector: sel, NamespaceSelector: &meta.LabelSelector{}})}}, nil},
		{"bad selector", NetworkPolicySpec{PodSelector: meta.LabelSelector{MatchLabels: map[string]string{"a b": "c"}}},
			[]string{"spec.podSelector.matchLabels: Invalid value: \"a b\""}},
		{"no cidr", NetworkPolicySpec{Ingress: []NetworkPolicyIngressRule{from(ipb(""))}}, []string{"spec.ingress[0].from[0].ipBlock.cidr: Required value"}},
		{"bad cidr", NetworkPolicySpec{Ingress: []NetworkPolicyIngressRule{from(ipb("10.0.0.0/33"))}},
			[]string{`spec.ingress[0].from[0].ipBlock.cidr: Invalid value: "10.0.0.0/33": must be a valid CIDR value`}},
		{"except outside", NetworkPolicySpec{Ingress: []NetworkPolicyIngressRule{from(ipb("10.0.0.0/16", "10.1.0.0/24"))}},
			[]string{`spec.ingress[0].from[0].ipBlock.except[0]: Invalid value: "10.1.0.0/24": must be a strict subset of ` + "`cidr`"}},
		{"except equal", NetworkPolicySpec{Ingress: []NetworkPolicyIngressRule{from(ipb("10.0.0.0/16", "10.0.0.0/16"))}},
			[]string{`spec.ingress[0].from[0].ipBlock.except[0]: Invalid value: "10.0.0.0/16": must be a strict subset of ` + "`cidr`"}},
		{"bad policy type", NetworkPolicySpec{PolicyTypes: []PolicyType{"Both"}},
			[]string{`spec.policyTypes[0]: Unsupported value: "Both": supported values: "Ingress", "Egress"`}},
		{"three policy types", NetworkPolicySpec{PolicyTypes: []PolicyType{"Ingress", "Egress", "Ingress"}},
			[]string{"spec.policyTypes: Invalid value", "may not specify more than two policyTypes"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			np := &NetworkPolicy{ObjectMeta: meta.ObjectMeta{Name: "p", Namespace: "default"}, Spec: tt.spec}
			errs := ValidateNetworkPolicy(np)
			if len(tt.want) == 0 {
				assert.Empty(t, errs)
				return
			}
			if assert.NotEmpty(t, errs) {
				msg := errs.ToAggregate().Error()
				for _, w := range tt.want {
					assert.True(t, strings.Contains(msg, w), "%q does not contain %q", msg, w)
				}
			}
		})
	}
}
