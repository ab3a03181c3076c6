package clientgo_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/orkit/orkit/compat/internal/cluster"
)

// TestNetworkPolicyTyped: client-go's typed NetworkPolicy client writes
// a policy using every field, reads back exactly what it wrote (with
// kube's defaults: TCP, policyTypes), and gets kube's Invalid error for
// a malformed one.
func TestNetworkPolicyTyped(t *testing.T) {
	c := cluster.Start(t, cluster.Options{})
	nps := kubernetes.NewForConfigOrDie(c.RESTConfig()).NetworkingV1().NetworkPolicies("default")
	ctx := context.Background()
	port, named := intstr.FromInt32(8000), intstr.FromString("http")
	udp := corev1.ProtocolUDP
	spec := networkingv1.NetworkPolicySpec{
		PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}},
		Ingress: []networkingv1.NetworkPolicyIngressRule{{
			From: []networkingv1.NetworkPolicyPeer{
				{IPBlock: &networkingv1.IPBlock{CIDR: "172.17.0.0/16", Except: []string{"172.17.1.0/24"}}},
				{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}},
					PodSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{"web"}}}}},
			},
			Ports: []networkingv1.NetworkPolicyPort{{Port: &port, EndPort: ptr.To[int32](8080)}, {Protocol: &udp, Port: &named}},
		}},
		Egress: []networkingv1.NetworkPolicyEgressRule{{To: []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{}}}}},
	}
	created, err := nps.Create(ctx, &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "full"}, Spec: spec}, metav1.CreateOptions{})
	require.NoError(t, err)
	want := spec.DeepCopy()
	want.Ingress[0].Ports[0].Protocol = ptr.To(corev1.ProtocolTCP)
	want.PolicyTypes = []networkingv1.PolicyType{networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress}
	assert.Equal(t, *want, created.Spec)
	got, err := nps.Get(ctx, "full", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, *want, got.Spec)

	_, err = nps.Create(ctx, &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "bad"}, Spec: networkingv1.NetworkPolicySpec{
		PolicyTypes: []networkingv1.PolicyType{"Sideways"}}}, metav1.CreateOptions{})
	require.True(t, apierrors.IsInvalid(err), "%v", err)
	assert.Contains(t, err.Error(), `spec.policyTypes[0]: Unsupported value: "Sideways": supported values: "Ingress", "Egress"`)
}
