package admission

import (
	"context"
	"testing"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/authn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type nodeMap map[string]*core.Node

func (m nodeMap) GetNode(_ context.Context, name string) (*core.Node, error) {
	if n, ok := m[name]; ok {
		return n, nil
	}
	return nil, apierrors.NewNotFound(meta.GroupResource{Resource: "nodes"}, name)
}

var node1User = &authn.User{Name: "system:node:n1", Groups: []string{"system:nodes", authn.GroupAuthenticated}}

func testNode(name string, labels map[string]string, taints ...core.Taint) *core.Node {
	return &core.Node{ObjectMeta: meta.ObjectMeta{Name: name, UID: meta.UID(name + "-uid"), Labels: labels}, Spec: core.NodeSpec{Taints: taints}}
}

func nodeAttrs(op Operation, name string, obj, old *core.Node) *Attributes {
	a := &Attributes{Operation: op, Resource: gvr("nodes"), Name: name, User: node1User}
	if obj != nil {
		a.Object = obj
	}
	if old != nil {
		a.OldObject = old
	}
	return a
}

func TestNodeRestrictionNodes(t *testing.T) {
	base := map[string]string{core.LabelHostname: "n1", "team": "a"}
	with := func(kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i+1] == "-" {
				delete(m, kv[i])
				continue
			}
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	old := testNode("n1", with(core.LabelNodeRolePrefix+"worker", "", "node-restriction.kubernetes.io/pool", "secure"),
		core.Taint{Key: "dedicated", Value: "secure", Effect: "NoSchedule"})
	changed := func(f func(n *core.Node)) *core.Node {
		n := meta.DeepCopy(old)
		f(n)
		return n
	}
	tests := []struct {
		name string
		a    *Attributes
		want string // "" for admitted
	}{
		{"create own node with kubelet labels", nodeAttrs(Create, "n1", testNode("n1", with(core.LabelOSStable, "linux",
			"node.kubernetes.io/instance-type", "m", "kubelet.kubernetes.io/x", "y", "topology.kubernetes.io/zone", "z", "example.com/x", "y")), nil), ""},
		{"create own node with taints", nodeAttrs(Create, "n1", testNode("n1", base, core.Taint{Key: "k", Effect: "NoSchedule"}), nil), ""},
		{"create another node", nodeAttrs(Create, "n2", testNode("n2", nil), nil),
			`nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"`},
		{"create with a node-role label", nodeAttrs(Create, "n1", testNode("n1", with(core.LabelNodeRolePrefix+"control-plane", "")), nil),
			`nodes "n1" is forbidden: node "n1" is not allowed to set the following labels: node-role.kubernetes.io/control-plane`},
		{"create with restriction and other k8s labels", nodeAttrs(Create, "n1", testNode("n1", with("node-restriction.kubernetes.io/x", "1",
			"sub.node-restriction.kubernetes.io/y", "1", "k8s.io/z", "1", "example.k8s.io/w", "1")), nil),
			`nodes "n1" is forbidden: node "n1" is not allowed to set the following labels: example.k8s.io/w, k8s.io/z, node-restriction.kubernetes.io/x, sub.node-restriction.kubernetes.io/y`},
		{"update another node", nodeAttrs(Update, "n2", testNode("n2", nil), testNode("n2", nil)),
			`nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"`},
		{"delete another node", nodeAttrs(Delete, "n2", nil, testNode("n2", nil)),
			`nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"`},
		{"delete own node", nodeAttrs(Delete, "n1", nil, old), ""},
		{"update own labels outside kubernetes.io", nodeAttrs(Update, "n1", changed(func(n *core.Node) { n.Labels["team"] = "b"; n.Labels["x"] = "y" }), old), ""},
		{"update kubelet labels", nodeAttrs(Update, "n1", changed(func(n *core.Node) { n.Labels[core.LabelHostname] = "other" }), old), ""},
		{"unchanged forbidden labels stay", nodeAttrs(Update, "n1", changed(func(n *core.Node) { n.Annotations = map[string]string{"a": "b"} }), old), ""},
		{"add a node-restriction label", nodeAttrs(Update, "n1", changed(func(n *core.Node) { n.Labels["node-restriction.kubernetes.io/x"] = "1" }), old),
			`nodes "n1" is forbidden: is not allowed to modify labels: node-restriction.kubernetes.io/x`},
		{"change a node-restriction label", nodeAttrs(Update, "n1", changed(func(n *core.Node) { n.Labels["node-restriction.kubernetes.io/pool"] = "open" }), old),
			`nodes "n1" is forbidden: is not allowed to modify labels: node-restriction.kubernetes.io/pool`},
		{"remove a node-restriction label", nodeAttrs(Update, "n1", changed(func(n *core.Node) { delete(n.Labels, "node-restriction.kubernetes.io/pool") }), old),
			`nodes "n1" is forbidden: is not allowed to modify labels: node-restriction.kubernetes.io/pool`},
		{"add a node-role label", nodeAttrs(Update, "n1", changed(func(n *core.Node) { n.Labels[core.LabelNodeRolePrefix+"control-plane"] = "" }), old),
			`nodes "n1" is forbidden: is not allowed to modify labels: node-role.kubernetes.io/control-plane`},
		{"remove a node-role label", nodeAttrs(Update, "n1", changed(func(n *core.Node) { delete(n.Labels, core.LabelNodeRolePrefix+"worker") }), old),
			`nodes "n1" is forbidden: is not allowed to modify labels: node-role.kubernetes.io/worker`},
		{"remove a taint", nodeAttrs(Update, "n1", changed(func(n *core.Node) { n.Spec.Taints = nil }), old),
			`nodes "n1" is forbidden: node "n1" is not allowed to modify taints`},
		{"add a taint", nodeAttrs(Update, "n1", changed(func(n *core.Node) {
			n.Spec.Taints = append(n.Spec.Taints, core.Taint{Key: "k", Effect: "NoExecute"})
		}), old), `nodes "n1" is forbidden: node "n1" is not allowed to modify taints`},
		{"change a taint", nodeAttrs(Update, "n1", changed(func(n *core.Node) { n.Spec.Taints[0].Value = "open" }), old),
			`nodes "n1" is forbidden: node "n1" is not allowed to modify taints`},
		{"set ownerReferences", nodeAttrs(Update, "n1", changed(func(n *core.Node) {
			n.OwnerReferences = []meta.OwnerReference{{APIVersion: "v1", Kind: "Namespace", Name: "x", UID: "u"}}
		}), old), `nodes "n1" is forbidden: node "n1" is not allowed to modify ownerReferences`},
		{"cordon itself", nodeAttrs(Update, "n1", changed(func(n *core.Node) { n.Spec.Unschedulable = true }), old),
			`nodes "n1" is forbidden: node "n1" is not allowed to modify spec.unschedulable`},
		{"change pod CIDRs and provider", nodeAttrs(Update, "n1", changed(func(n *core.Node) {
			n.Spec.PodCIDR, n.Spec.PodCIDRs, n.Spec.ProviderID = "10.0.0.0/24", []string{"10.0.0.0/24"}, "x://y"
		}), old), `nodes "n1" is forbidden: node "n1" is not allowed to modify spec.podCIDR, spec.podCIDRs, spec.providerID`},
		{"set configSource", nodeAttrs(Update, "n1", changed(func(n *core.Node) { n.Spec.ConfigSource = meta.RawJSON(`{"configMap":{}}`) }), old),
			`nodes "n1" is forbidden: node "n1" is not allowed to update configSource to a new non-nil configSource`},
		{"a status update changes only status", nodeAttrs(Update, "n1", changed(func(n *core.Node) {
			n.Status.Conditions = []core.NodeCondition{{Type: core.NodeReady, Status: meta.ConditionTrue}}
		}), old), ""},
	}
	p := NewNodeRestriction(nodeMap{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := p.Validate(context.Background(), tt.a)
			if tt.want == "" {
				assert.NoError(t, err)
				return
			}
			requireStatus(t, err, 403, tt.want)
		})
	}
}

func TestNodeRestrictionOthersPass(t *testing.T) {
	p := NewNodeRestriction(nil)
	admin := &authn.User{Name: "admin", Groups: []string{authn.GroupMasters}}
	fake := &authn.User{Name: "system:node:n1"} // not in system:nodes: not a node
	for _, u := range []*authn.User{admin, fake, nil} {
		a := nodeAttrs(Update, "n1", testNode("n1", map[string]string{core.LabelNodeRolePrefix + "x": ""}), testNode("n1", nil))
		a.User = u
		assert.NoError(t, p.Validate(context.Background(), a))
	}
	a := attrs(Create, "configmaps", "default", "c", &core.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "c"}})
	a.User = node1User
	assert.NoError(t, p.Validate(context.Background(), a), "other resources are the authorizer's")
}

func mirrorPod(mut ...func(p *core.Pod)) *core.Pod {
	yes := true
	p := &core.Pod{
		ObjectMeta: meta.ObjectMeta{Namespace: "kube-system", Name: "etcd-n1",
			Annotations:     map[string]string{core.AnnotationMirrorPod: "hash"},
			OwnerReferences: []meta.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: "n1", UID: "n1-uid", Controller: &yes}}},
		Spec: core.PodSpec{NodeName: "n1", Containers: []core.Container{{Name: "c", Image: "img"}}},
	}
	for _, m := range mut {
		m(p)
	}
	return p
}

func TestNodeRestrictionPods(t *testing.T) {
	yes, no := true, false
	podAttrs := func(op Operation, sub string, obj, old *core.Pod) *Attributes {
		a := &Attributes{Operation: op, Resource: gvr("pods"), Subresource: sub, Namespace: "kube-system", Name: "etcd-n1", User: node1User}
		if obj != nil {
			a.Object = obj
		}
		if old != nil {
			a.OldObject = old
		}
		return a
	}
	bound := func(node string) *core.Pod { return mirrorPod(func(p *core.Pod) { p.Spec.NodeName = node }) }
	forbid := func(why string) string { return `pods "etcd-n1" is forbidden: ` + why }
	tests := []struct {
		name string
		a    *Attributes
		want string
	}{
		{"mirror pod of its own", podAttrs(Create, "", mirrorPod(), nil), ""},
		{"not a mirror pod", podAttrs(Create, "", mirrorPod(func(p *core.Pod) { p.Annotations = nil }), nil),
			forbid(`pod does not have "kubernetes.io/config.mirror" annotation, node "n1" can only create mirror pods`)},
		{"bound elsewhere", podAttrs(Create, "", bound("n2"), nil), forbid(`node "n1" can only create pods with spec.nodeName set to itself`)},
		{"no owner", podAttrs(Create, "", mirrorPod(func(p *core.Pod) { p.OwnerReferences = nil }), nil),
			forbid(`node "n1" can only create pods with an owner reference set to itself`)},
		{"two owners", podAttrs(Create, "", mirrorPod(func(p *core.Pod) { p.OwnerReferences = append(p.OwnerReferences, p.OwnerReferences[0]) }), nil),
			forbid(`node "n1" can only create pods with a single owner reference set to itself`)},
		{"owned by another node", podAttrs(Create, "", mirrorPod(func(p *core.Pod) { p.OwnerReferences[0].Name = "n2" }), nil),
			forbid(`node "n1" can only create pods with an owner reference set to itself`)},
		{"owned by a ReplicaSet", podAttrs(Create, "", mirrorPod(func(p *core.Pod) {
			p.OwnerReferences[0].Kind, p.OwnerReferences[0].APIVersion = "ReplicaSet", "apps/v1"
		}), nil),
			forbid(`node "n1" can only create pods with an owner reference set to itself`)},
		{"owner not controller", podAttrs(Create, "", mirrorPod(func(p *core.Pod) { p.OwnerReferences[0].Controller = &no }), nil),
			forbid(`node "n1" can only create pods with a controller owner reference set to itself`)},
		{"blockOwnerDeletion", podAttrs(Create, "", mirrorPod(func(p *core.Pod) { p.OwnerReferences[0].BlockOwnerDeletion = &yes }), nil),
			forbid(`node "n1" must not set blockOwnerDeletion on an owner reference`)},
		{"wrong node UID", podAttrs(Create, "", mirrorPod(func(p *core.Pod) { p.OwnerReferences[0].UID = "stale" }), nil),
			forbid(`node n1 UID mismatch: expected n1-uid got stale`)},
		{"service account", podAttrs(Create, "", mirrorPod(func(p *core.Pod) { p.Spec.ServiceAccountName = "default" }), nil),
			forbid(`node "n1" can not create pods that reference a service account`)},
		{"secret volume", podAttrs(Create, "", mirrorPod(func(p *core.Pod) {
			p.Spec.Volumes = []core.Volume{{Name: "s", VolumeSource: core.VolumeSource{Secret: &core.SecretVolumeSource{SecretName: "s"}}}}
		}), nil), forbid(`node "n1" can not create pods that reference secrets`)},
		{"configmap env", podAttrs(Create, "", mirrorPod(func(p *core.Pod) {
			p.Spec.Containers[0].EnvFrom = []core.EnvFromSource{{ConfigMapRef: &core.ConfigMapEnvSource{LocalObjectReference: core.LocalObjectReference{Name: "c"}}}}
		}), nil), forbid(`node "n1" can not create pods that reference configmaps`)},
		{"claim", podAttrs(Create, "", mirrorPod(func(p *core.Pod) {
			p.Spec.Volumes = []core.Volume{{Name: "v", VolumeSource: core.VolumeSource{PersistentVolumeClaim: &core.PersistentVolumeClaimVolumeSource{ClaimName: "c"}}}}
		}), nil), forbid(`node "n1" can not create pods that reference persistentvolumeclaims`)},
		{"update a pod", podAttrs(Update, "", mirrorPod(), mirrorPod()),
			forbid(`unexpected operation "UPDATE", node "n1" can only create and delete mirror pods`)},
		{"delete a pod bound to it", podAttrs(Delete, "", nil, mirrorPod()), ""},
		{"delete a pod bound elsewhere", podAttrs(Delete, "", nil, bound("n2")),
			forbid(`node "n1" can only delete pods with spec.nodeName set to itself`)},
		{"status of a pod bound to it", podAttrs(Update, "status", mirrorPod(), mirrorPod()), ""},
		{"status of a pod bound elsewhere", podAttrs(Update, "status", bound("n2"), bound("n2")),
			forbid(`node "n1" can only update pod status for pods with spec.nodeName set to itself`)},
		{"labels through status", podAttrs(Update, "status", mirrorPod(func(p *core.Pod) { p.Labels = map[string]string{"a": "b"} }), mirrorPod()),
			forbid(`node "n1" cannot update labels through pod status`)},
		{"another subresource", podAttrs(Create, "binding", mirrorPod(), nil),
			forbid(`unexpected subresource "binding", node "n1" can only create and delete mirror pods, update pod status, and evict pods`)},
	}
	p := NewNodeRestriction(nodeMap{"n1": testNode("n1", nil)})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := p.Validate(context.Background(), tt.a)
			if tt.want == "" {
				assert.NoError(t, err)
				return
			}
			requireStatus(t, err, 403, tt.want)
		})
	}
	t.Run("without a node source mirror pods are refused", func(t *testing.T) {
		err := NewNodeRestriction(nil).Validate(context.Background(), podAttrs(Create, "", mirrorPod(), nil))
		requireStatus(t, err, 403, forbid(`error looking up node n1 to verify uid: no node source`))
	})
	t.Run("an unregistered node", func(t *testing.T) {
		err := NewNodeRestriction(nodeMap{}).Validate(context.Background(), podAttrs(Create, "", mirrorPod(), nil))
		require.Error(t, err)
		assert.Contains(t, err.Error(), `error looking up node n1 to verify uid: nodes "n1" not found`)
	})
}

func TestNodeRestrictionLeases(t *testing.T) {
	lease := func(op Operation, ns, name string) *Attributes {
		a := &Attributes{Operation: op, Resource: meta.GroupVersionResource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"},
			Namespace: ns, Name: name, User: node1User}
		if op == Create {
			a.Object = &core.ConfigMap{ObjectMeta: meta.ObjectMeta{Namespace: ns, Name: name}} // any object: only its name counts
		}
		return a
	}
	tests := []struct {
		name string
		a    *Attributes
		want string
	}{
		{"create own", lease(Create, "kube-node-lease", "n1"), ""},
		{"update own", lease(Update, "kube-node-lease", "n1"), ""},
		{"delete own", lease(Delete, "kube-node-lease", "n1"), ""},
		{"create another's", lease(Create, "kube-node-lease", "n2"),
			`leases.coordination.k8s.io "n2" is forbidden: can only access node lease with the same name as the requesting node`},
		{"update another's", lease(Update, "kube-node-lease", "n2"),
			`leases.coordination.k8s.io "n2" is forbidden: can only access node lease with the same name as the requesting node`},
		{"elsewhere", lease(Update, "kube-system", "n1"),
			`leases.coordination.k8s.io "n1" is forbidden: can only access leases in the "kube-node-lease" system namespace`},
	}
	p := NewNodeRestriction(nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := p.Validate(context.Background(), tt.a)
			if tt.want == "" {
				assert.NoError(t, err)
				return
			}
			requireStatus(t, err, 403, tt.want)
		})
	}
}
