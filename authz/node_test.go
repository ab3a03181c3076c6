package authz

import (
	"context"
	"testing"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/authn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type fakeGraph struct {
	pods   []*core.Pod
	claims map[string]*core.PersistentVolumeClaim // ns/name
}

func (g *fakeGraph) PodsOnNode(node string) []*core.Pod {
	var out []*core.Pod
	for _, p := range g.pods {
		if p.Spec.NodeName == node {
			out = append(out, p)
		}
	}
	return out
}

func (g *fakeGraph) GetPod(ns, name string) (*core.Pod, bool) {
	for _, p := range g.pods {
		if p.Namespace == ns && p.Name == name {
			return p, true
		}
	}
	return nil, false
}

type claimGraph struct{ *fakeGraph }

func (g claimGraph) GetPersistentVolumeClaim(ns, name string) (*core.PersistentVolumeClaim, bool) {
	c, ok := g.claims[ns+"/"+name]
	return c, ok
}

func ref(name string) core.LocalObjectReference { return core.LocalObjectReference{Name: name} }

func testGraph() *fakeGraph {
	web := &core.Pod{ObjectMeta: meta.ObjectMeta{Namespace: "default", Name: "web"}, Spec: core.PodSpec{
		NodeName:           "n1",
		ServiceAccountName: "robot",
		ImagePullSecrets:   []core.LocalObjectReference{ref("regcred")},
		Volumes: []core.Volume{
			{Name: "a", VolumeSource: core.VolumeSource{Secret: &core.SecretVolumeSource{SecretName: "vol-secret"}}},
			{Name: "b", VolumeSource: core.VolumeSource{ConfigMap: &core.ConfigMapVolumeSource{LocalObjectReference: ref("vol-cm")}}},
			{Name: "c", VolumeSource: core.VolumeSource{PersistentVolumeClaim: &core.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}},
			{Name: "d", VolumeSource: core.VolumeSource{Projected: &core.ProjectedVolumeSource{Sources: []core.VolumeProjection{
				{Secret: &core.SecretProjection{LocalObjectReference: ref("proj-secret")}},
				{ConfigMap: &core.ConfigMapProjection{LocalObjectReference: ref("proj-cm")}},
			}}}},
			{Name: "e", VolumeSource: core.VolumeSource{CSI: &core.CSIVolumeSource{Driver: "x", NodePublishSecretRef: &core.LocalObjectReference{Name: "csi-secret"}}}},
		},
		InitContainers: []core.Container{{Name: "init", EnvFrom: []core.EnvFromSource{
			{SecretRef: &core.SecretEnvSource{LocalObjectReference: ref("init-envfrom-secret")}}}}},
		Containers: []core.Container{{Name: "app",
			Env: []core.EnvVar{
				{Name: "A", ValueFrom: &core.EnvVarSource{SecretKeyRef: &core.SecretKeySelector{LocalObjectReference: ref("env-secret"), Key: "k"}}},
				{Name: "B", ValueFrom: &core.EnvVarSource{ConfigMapKeyRef: &core.ConfigMapKeySelector{LocalObjectReference: ref("env-cm"), Key: "k"}}},
				{Name: "C", Value: "plain"},
			},
			EnvFrom: []core.EnvFromSource{{ConfigMapRef: &core.ConfigMapEnvSource{LocalObjectReference: ref("envfrom-cm")}}},
		}},
	}}
	other := &core.Pod{ObjectMeta: meta.ObjectMeta{Namespace: "default", Name: "db"}, Spec: core.PodSpec{
		NodeName: "n2", ServiceAccountName: "dba",
		Volumes: []core.Volume{{Name: "s", VolumeSource: core.VolumeSource{Secret: &core.SecretVolumeSource{SecretName: "db-secret"}}},
			{Name: "c", VolumeSource: core.VolumeSource{PersistentVolumeClaim: &core.PersistentVolumeClaimVolumeSource{ClaimName: "dbdata"}}}},
	}}
	pending := &core.Pod{ObjectMeta: meta.ObjectMeta{Namespace: "default", Name: "pending"}}
	return &fakeGraph{pods: []*core.Pod{web, other, pending}, claims: map[string]*core.PersistentVolumeClaim{
		"default/data":   {Spec: core.PersistentVolumeClaimSpec{VolumeName: "pv-data"}},
		"default/dbdata": {Spec: core.PersistentVolumeClaimSpec{VolumeName: "pv-db"}},
	}}
}

func TestNodeAuthorizer(t *testing.T) {
	n1 := &authn.User{Name: "system:node:n1", Groups: []string{NodesGroup, authn.GroupAuthenticated}}
	notInGroup := &authn.User{Name: "system:node:n1", Groups: []string{authn.GroupAuthenticated}}
	bob := &authn.User{Name: "bob", Groups: []string{NodesGroup}}
	empty := &authn.User{Name: "system:node:", Groups: []string{NodesGroup}}
	withSel := func(a Attributes, sel string) Attributes { a.FieldSelector = sel; return a }
	allow, deny, none := DecisionAllow, DecisionDeny, DecisionNoOpinion
	tests := []struct {
		name  string
		attrs Attributes
		want  Decision
	}{
		{"not a node: name", res(bob, "get", "default", "", "pods", "", "web"), none},
		{"not a node: group", res(notInGroup, "get", "default", "", "pods", "", "web"), none},
		{"empty node name", res(empty, "get", "default", "", "pods", "", "web"), deny},

		{"get own pod", res(n1, "get", "default", "", "pods", "", "web"), allow},

		{"read trust bundles", res(n1, "list", "", "certificates.k8s.io", "clustertrustbundles", "", ""), allow},
		{"write trust bundles", res(n1, "create", "", "certificates.k8s.io", "clustertrustbundles", "", ""), deny},
		{"create pod certificate request", res(n1, "create", "default", "certificates.k8s.io", "podcertificaterequests", "", ""), allow},
		{"list own pod certificate requests", withSel(res(n1, "list", "default", "certificates.k8s.io", "podcertificaterequests", "", ""), "spec.nodeName=n1,metadata.name=req-1"), allow},
		{"list all pod certificate requests", res(n1, "list", "default", "certificates.k8s.io", "podcertificaterequests", "", ""), deny},
		{"sign pod certificate request", res(n1, "update", "default", "certificates.k8s.io", "podcertificaterequests", "status", "req-1"), deny},
		{"delete pod certificate request", res(n1, "delete", "default", "certificates.k8s.io", "podcertificaterequests", "", "req-1"), deny},
		{"get other service account", res(n1, "get", "default", "", "serviceaccounts", "", "dba"), deny},
		{"get other node's pod", res(n1, "get", "default", "", "pods", "", "db"), deny},
		{"get unscheduled pod", res(n1, "get", "default", "", "pods", "", "pending"), deny},
		{"get missing pod", res(n1, "get", "default", "", "pods", "", "ghost"), deny},
		{"list pods on node", withSel(res(n1, "list", "", "", "pods", "", ""), "spec.nodeName=n1"), allow},
		{"watch pods on node, extra terms", withSel(res(n1, "watch", "", "", "pods", "", ""), "status.phase!=Failed,spec.nodeName==n1"), allow},
		{"list pods no selector", res(n1, "list", "", "", "pods", "", ""), deny},
		{"list pods other node", withSel(res(n1, "list", "", "", "pods", "", ""), "spec.nodeName=n2"), deny},
		{"list pods not-equal", withSel(res(n1, "list", "", "", "pods", "", ""), "spec.nodeName!=n1"), deny},
		{"list pods malformed selector", withSel(res(n1, "list", "", "", "pods", "", ""), "spec.nodeName=n1\\"), deny},
		{"update own pod status", res(n1, "update", "default", "", "pods", "status", "web"), allow},
		{"patch own pod status", res(n1, "patch", "default", "", "pods", "status", "web"), allow},
		{"patch other pod status", res(n1, "patch", "default", "", "pods", "status", "db"), deny},
		{"delete own pod", res(n1, "delete", "default", "", "pods", "", "web"), allow},
		{"delete other pod", res(n1, "delete", "default", "", "pods", "", "db"), deny},
		{"update own pod spec", res(n1, "update", "default", "", "pods", "", "web"), deny},
		{"create pod (NodeRestriction admits only its mirror pods)", res(n1, "create", "default", "", "pods", "", ""), allow},
		{"create pods/eviction", res(n1, "create", "default", "", "pods", "eviction", "p1"), deny},
		{"exec own pod", res(n1, "create", "default", "", "pods", "exec", "web"), deny},

		{"secret volume", res(n1, "get", "default", "", "secrets", "", "vol-secret"), allow},
		{"secret projected", res(n1, "get", "default", "", "secrets", "", "proj-secret"), allow},
		{"secret csi", res(n1, "get", "default", "", "secrets", "", "csi-secret"), allow},
		{"secret env valueFrom", res(n1, "get", "default", "", "secrets", "", "env-secret"), allow},
		{"secret init envFrom", res(n1, "get", "default", "", "secrets", "", "init-envfrom-secret"), allow},
		{"secret imagePullSecrets", res(n1, "get", "default", "", "secrets", "", "regcred"), allow},
		{"secret watch by name", withSel(res(n1, "watch", "default", "", "secrets", "", ""), "metadata.name=env-secret"), allow},
		{"secret list all", res(n1, "list", "default", "", "secrets", "", ""), deny},
		{"secret of other node's pod", res(n1, "get", "default", "", "secrets", "", "db-secret"), deny},
		{"secret other namespace", res(n1, "get", "prod", "", "secrets", "", "vol-secret"), deny},
		{"secret update", res(n1, "update", "default", "", "secrets", "", "vol-secret"), deny},
		{"configmap volume", res(n1, "get", "default", "", "configmaps", "", "vol-cm"), allow},
		{"configmap projected", res(n1, "get", "default", "", "configmaps", "", "proj-cm"), allow},
		{"configmap env", res(n1, "get", "default", "", "configmaps", "", "env-cm"), allow},
		{"configmap envFrom", res(n1, "get", "default", "", "configmaps", "", "envfrom-cm"), allow},
		{"configmap name of a secret", res(n1, "get", "default", "", "configmaps", "", "vol-secret"), deny},
		{"pvc", res(n1, "get", "default", "", "persistentvolumeclaims", "", "data"), allow},
		{"pvc of other node", res(n1, "get", "default", "", "persistentvolumeclaims", "", "dbdata"), deny},
		{"pv without claim getter", res(n1, "get", "", "", "persistentvolumes", "", "pv-data"), deny},

		{"get own node", res(n1, "get", "", "", "nodes", "", "n1"), allow},
		{"create own node", res(n1, "create", "", "", "nodes", "", ""), allow},
		{"create other node by name", res(n1, "create", "", "", "nodes", "", "n2"), deny},
		{"patch own node status", res(n1, "patch", "", "", "nodes", "status", "n1"), allow},
		{"update other node", res(n1, "update", "", "", "nodes", "", "n2"), deny},
		{"delete own node", res(n1, "delete", "", "", "nodes", "", "n1"), deny},
		{"watch own node", withSel(res(n1, "watch", "", "", "nodes", "", ""), "metadata.name=n1"), allow},
		{"list all nodes (host-gw routes)", res(n1, "list", "", "", "nodes", "", ""), allow},
		{"watch all nodes", res(n1, "watch", "", "", "nodes", "", ""), allow},
		{"get other node", res(n1, "get", "", "", "nodes", "", "n2"), allow},
		{"get other node's status", res(n1, "get", "", "", "nodes", "status", "n2"), deny},
		{"patch other node", res(n1, "patch", "", "", "nodes", "", "n2"), deny},

		{"create own lease", res(n1, "create", NodeLeaseNamespace, "coordination.k8s.io", "leases", "", ""), allow},
		{"update own lease", res(n1, "update", NodeLeaseNamespace, "coordination.k8s.io", "leases", "", "n1"), allow},
		{"delete own lease", res(n1, "delete", NodeLeaseNamespace, "coordination.k8s.io", "leases", "", "n1"), allow},
		{"update other lease", res(n1, "update", NodeLeaseNamespace, "coordination.k8s.io", "leases", "", "n2"), deny},
		{"lease other namespace", res(n1, "get", "kube-system", "coordination.k8s.io", "leases", "", "n1"), deny},
		{"list leases", res(n1, "list", NodeLeaseNamespace, "coordination.k8s.io", "leases", "", ""), deny},
		{"create csr", res(n1, "create", "", "certificates.k8s.io", "certificatesigningrequests", "", ""), allow},
		{"watch csrs", res(n1, "watch", "", "certificates.k8s.io", "certificatesigningrequests", "", ""), allow},
		{"approve csr", res(n1, "update", "", "certificates.k8s.io", "certificatesigningrequests", "approval", "c"), deny},
		{"sign csr", res(n1, "update", "", "certificates.k8s.io", "certificatesigningrequests", "status", "c"), deny},
		{"delete csr", res(n1, "delete", "", "certificates.k8s.io", "certificatesigningrequests", "", "c"), deny},
		{"selfnodeclient", res(n1, "create", "", "certificates.k8s.io", "certificatesigningrequests", "selfnodeclient", ""), allow},
		{"nodeclient", res(n1, "create", "", "certificates.k8s.io", "certificatesigningrequests", "nodeclient", ""), deny},

		{"create event", res(n1, "create", "default", "", "events", "", ""), allow},
		{"patch events.k8s.io event", res(n1, "patch", "default", "events.k8s.io", "events", "", "e"), allow},
		{"delete event", res(n1, "delete", "default", "", "events", "", "e"), deny},
		{"watch services", res(n1, "watch", "", "", "services", "", ""), allow},
		{"get endpoints", res(n1, "get", "default", "", "endpoints", "", "kubernetes"), allow},
		{"update service", res(n1, "update", "default", "", "services", "", "s"), deny},
		{"watch endpointslices", res(n1, "watch", "", "discovery.k8s.io", "endpointslices", "", ""), allow},
		{"delete endpointslice", res(n1, "delete", "default", "discovery.k8s.io", "endpointslices", "", "s"), deny},
		{"token of own pod's account", res(n1, "create", "default", "", "serviceaccounts", "token", "robot"), allow},
		{"token of other node's pod's account", res(n1, "create", "default", "", "serviceaccounts", "token", "dba"), deny},
		{"token in other namespace", res(n1, "create", "prod", "", "serviceaccounts", "token", "robot"), deny},
		{"get own pod's service account (PodCertificateRequest UIDs)", res(n1, "get", "default", "", "serviceaccounts", "", "robot"), allow},
		{"create tokenreview", res(n1, "create", "", "authentication.k8s.io", "tokenreviews", "", ""), allow},
		{"deployments", res(n1, "list", "", "apps", "deployments", "", ""), deny},
		{"clusterroles", res(n1, "get", "", "rbac.authorization.k8s.io", "clusterroles", "", "admin"), deny},

		{"discovery", nonRes(n1, "get", "/apis/apps/v1"), allow},
		{"healthz", nonRes(n1, "get", "/healthz"), allow},
		{"metrics", nonRes(n1, "get", "/metrics"), deny},
		{"post version", nonRes(n1, "post", "/version"), deny},
	}
	z := Node(testGraph())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, reason, err := z.Authorize(context.Background(), tt.attrs)
			require.NoError(t, err)
			assert.Equal(t, tt.want, d, reason)
			if d == DecisionDeny {
				assert.NotEmpty(t, reason)
			}
		})
	}
}

func TestNodeAuthorizerPersistentVolumes(t *testing.T) {
	n1 := &authn.User{Name: "system:node:n1", Groups: []string{NodesGroup}}
	z := Node(claimGraph{testGraph()})
	tests := []struct {
		name  string
		attrs Attributes
		want  Decision
	}{
		{"pv of own claim", res(n1, "get", "", "", "persistentvolumes", "", "pv-data"), DecisionAllow},
		{"pv of other node's claim", res(n1, "get", "", "", "persistentvolumes", "", "pv-db"), DecisionDeny},
		{"pv list", res(n1, "list", "", "", "persistentvolumes", "", ""), DecisionDeny},
		{"pv delete", res(n1, "delete", "", "", "persistentvolumes", "", "pv-data"), DecisionDeny},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, reason, err := z.Authorize(context.Background(), tt.attrs)
			require.NoError(t, err)
			assert.Equal(t, tt.want, d, reason)
		})
	}
}

func TestNodeDenyStopsRBAC(t *testing.T) {
	n1 := &authn.User{Name: "system:node:n1", Groups: []string{NodesGroup, authn.GroupMasters}}
	// Even if RBAC granted the node everything, Node's Deny stops the chain
	// (Masters goes first, so a node in system:masters stays a superuser).
	everything := decide(DecisionAllow, "rbac", nil)
	d, reason, _ := Chain(Node(testGraph()), everything).Authorize(context.Background(),
		res(n1, "get", "default", "", "secrets", "", "db-secret"))
	assert.Equal(t, DecisionDeny, d)
	assert.Equal(t, `no relationship found between node "n1" and this object`, reason)
}

func TestParseFieldSelector(t *testing.T) {
	tests := []struct {
		sel     string
		want    []fieldTerm
		wantErr bool
	}{
		{"", nil, false},
		{"spec.nodeName=n1", []fieldTerm{{"spec.nodeName", "=", "n1"}}, false},
		{"a==b,c!=d", []fieldTerm{{"a", "==", "b"}, {"c", "!=", "d"}}, false},
		{`metadata.name=a\,b\=c\\d`, []fieldTerm{{"metadata.name", "=", `a,b=c\d`}}, false},
		{"a=", []fieldTerm{{"a", "=", ""}}, false},
		{"novalue", nil, true},
		{"=v", nil, true},
		{"a=b=c", nil, true},
		{`a=b\`, nil, true},
		{`a=\x`, nil, true},
		{"a=b,", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.sel, func(t *testing.T) {
			got, err := parseFieldSelector(tt.sel)
			if tt.wantErr {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// FuzzParseFieldSelector checks the selector parser never panics and that
// a parsed equality term is what selectorRequires finds.
func FuzzParseFieldSelector(f *testing.F) {
	f.Add("spec.nodeName=n1,status.phase!=Failed")
	f.Add(`metadata.name=a\,b`)
	f.Add("a==b")
	f.Fuzz(func(t *testing.T, sel string) {
		terms, err := parseFieldSelector(sel)
		if err != nil {
			return
		}
		for _, term := range terms {
			if term.op != "!=" && !selectorRequires(sel, term.key, term.value) {
				t.Fatalf("term %+v of %q not found", term, sel)
			}
		}
	})
}
