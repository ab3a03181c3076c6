package apiserver

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheme"
)

// generationRule is how kube-apiserver's strategy of a kind moves
// metadata.generation (pkg/registry/<group>/<kind>/strategy.go).
type generationRule struct {
	// tracked: 1 on create, bumped by spec changes; otherwise the kind
	// has no generation (Kubernetes leaves it as the client sent it).
	tracked bool
	// annotations: annotation changes bump it too (Deployment).
	annotations bool
	// labels: label changes bump it too (EndpointSlice).
	labels bool
}

// kubeGeneration lists every built-in kind: a kind added to the scheme
// without an entry here fails TestGenerationAsKubernetes.
var kubeGeneration = map[string]generationRule{
	"Pod": {tracked: true}, "Deployment": {tracked: true, annotations: true}, "ReplicaSet": {tracked: true},
	"ReplicationController": {tracked: true}, "PodTemplate": {}, "RuntimeClass": {}, "StorageClass": {}, "CSINode": {},
	"StatefulSet": {tracked: true}, "DaemonSet": {tracked: true}, "Job": {tracked: true}, "CronJob": {tracked: true},
	"PodDisruptionBudget": {tracked: true}, "CustomResourceDefinition": {tracked: true},
	"Node": {}, "Namespace": {}, "Binding": {}, "Event": {}, "Secret": {}, "ConfigMap": {}, "ServiceAccount": {},
	"ResourceQuota": {}, "LimitRange": {}, "Service": {}, "Endpoints": {}, "PersistentVolume": {}, "PersistentVolumeClaim": {},
	"ControllerRevision": {}, "Role": {}, "ClusterRole": {}, "RoleBinding": {}, "ClusterRoleBinding": {}, "Lease": {}, "CertificateSigningRequest": {},
	"EndpointSlice": {tracked: true, labels: true}, "HorizontalPodAutoscaler": {tracked: true}, "APIService": {tracked: true}, "Ingress": {tracked: true}, "IngressClass": {tracked: true}, "NetworkPolicy": {tracked: true},
	"PriorityClass": {}, "InitializerConfiguration": {}, "SubjectAccessReview": {}, "SelfSubjectAccessReview": {},
	"LocalSubjectAccessReview": {}, "SelfSubjectRulesReview": {}, "TokenReview": {}, "SelfSubjectReview": {},
	"MutatingWebhookConfiguration": {tracked: true}, "ValidatingWebhookConfiguration": {tracked: true},
	"ValidatingAdmissionPolicy": {tracked: true}, "ValidatingAdmissionPolicyBinding": {tracked: true},
	"MutatingAdmissionPolicy": {tracked: true}, "MutatingAdmissionPolicyBinding": {tracked: true},
	"FlowSchema": {tracked: true}, "PriorityLevelConfiguration": {tracked: true}, "StorageVersionMigration": {},
	"DeviceClass": {tracked: true}, "ResourceSlice": {tracked: true}, "DeviceTaintRule": {tracked: true},
	"ResourceClaim": {}, "ResourceClaimTemplate": {},
	"ClusterTrustBundle": {}, "PodCertificateRequest": {},
	"ServiceCIDR": {}, "IPAddress": {},
	// CSIDriver's strategy bumps a stored generation on spec changes but
	// sets none on create; orkit leaves it alone (GenerationNone).
	"CSIDriver": {}, "VolumeAttachment": {}, "VolumeAttributesClass": {}, "CSIStorageCapacity": {},
}

// mutateSpec changes the first string, integer or boolean field found in
// obj's Spec (depth first); false when it has none.
func mutateSpec(obj meta.Object) bool {
	spec := fieldValue(obj, "Spec")
	if !spec.IsValid() {
		return false
	}
	var walk func(v reflect.Value) bool
	walk = func(v reflect.Value) bool {
		switch v.Kind() {
		case reflect.String:
			v.SetString(v.String() + "x")
			return true
		case reflect.Int, reflect.Int32, reflect.Int64:
			v.SetInt(v.Int() + 1)
			return true
		case reflect.Bool:
			v.SetBool(!v.Bool())
			return true
		case reflect.Pointer:
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
			}
			return walk(v.Elem())
		case reflect.Struct:
			for i := range v.NumField() {
				if v.Type().Field(i).IsExported() && walk(v.Field(i)) {
					return true
				}
			}
		}
		return false
	}
	return walk(spec)
}

// TestGenerationAsKubernetes: every built-in kind's strategy sets and
// bumps metadata.generation as kube-apiserver's does: 1 on create and +1
// per spec change for the workload kinds (and per annotation change for
// Deployments), never for the others (Services, Secrets, ConfigMaps,
// Nodes...), whose generation stays what the client sent.
func TestGenerationAsKubernetes(t *testing.T) {
	ts := newTestServer(t, nil)
	ctx := context.Background()
	for _, ty := range api.NewScheme().Types() {
		t.Run(ty.Kind.Kind, func(t *testing.T) {
			rule, ok := kubeGeneration[ty.Kind.Kind]
			require.True(t, ok, "no Kubernetes generation rule recorded for %s", ty.Kind)
			res, ok := ts.srv.lookup(ty.GroupVersionResource())
			require.True(t, ok)
			st := res.Strategy

			obj := ty.New()
			obj.GetObjectMeta().Name = "x"
			st.PrepareForCreate(ctx, obj)
			created := obj.GetObjectMeta().Generation
			sent := ty.New()
			sent.GetObjectMeta().Generation = 7
			st.PrepareForCreate(ctx, sent)
			if !rule.tracked {
				assert.Zero(t, created, "no generation on create")
				assert.Equal(t, int64(7), sent.GetObjectMeta().Generation, "a client's generation is kept, as Kubernetes keeps it")
			} else {
				assert.Equal(t, int64(1), created)
				assert.Equal(t, int64(1), sent.GetObjectMeta().Generation)
			}

			update := func(change func(meta.Object)) int64 {
				next := meta.DeepCopy(obj)
				change(next)
				st.PrepareForUpdate(ctx, next, obj, "")
				return next.GetObjectMeta().Generation
			}
			wantLabels := created
			if rule.labels {
				wantLabels++
			}
			assert.Equal(t, wantLabels, update(func(o meta.Object) { o.GetObjectMeta().Labels = map[string]string{"a": "b"} }), "labels")
			wantAnn := created
			if rule.annotations {
				wantAnn++
			}
			assert.Equal(t, wantAnn, update(func(o meta.Object) { o.GetObjectMeta().Annotations = map[string]string{"a": "b"} }), "annotations")
			var mutated bool
			gen := update(func(o meta.Object) { mutated = mutateSpec(o) })
			if mutated && rule.tracked {
				assert.Equal(t, created+1, gen, "a spec change")
			} else {
				assert.Equal(t, created, gen, "a spec change")
			}
			next := meta.DeepCopy(obj)
			mutateSpec(next)
			st.PrepareForUpdate(ctx, next, obj, "status")
			assert.Equal(t, created, next.GetObjectMeta().Generation, "a status update")
		})
	}
}

// TestStatusOnCreate: a Node created with a status keeps it, as
// kube-apiserver's node strategy keeps it (kwok, virtual-kubelet and other
// node agents register Nodes that way); the other kinds with a status
// subresource lose what a create sends.
func TestStatusOnCreate(t *testing.T) {
	ts := newTestServer(t, nil)
	node := `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"},"status":{
		"capacity":{"cpu":"4","memory":"8Gi","pods":"110"},"allocatable":{"cpu":"3500m","memory":"7Gi","pods":"110"},
		"conditions":[{"type":"Ready","status":"True","reason":"KubeletReady"}],
		"addresses":[{"type":"InternalIP","address":"10.0.0.7"},{"type":"Hostname","address":"n1"}]}}`
	code, body := ts.do(t, "POST", "/api/v1/nodes", "application/json", []byte(node))
	require.Equal(t, http.StatusCreated, code, string(body))
	for _, b := range [][]byte{body, func() []byte { _, b := ts.do(t, "GET", "/api/v1/nodes/n1", "", nil); return b }()} {
		var got core.Node
		require.NoError(t, json.Unmarshal(b, &got))
		assert.Equal(t, "110", got.Status.Allocatable.Pods().String())
		assert.Equal(t, "3500m", got.Status.Allocatable.Cpu().String())
		assert.Equal(t, "8Gi", got.Status.Capacity.Memory().String())
		require.Len(t, got.Status.Conditions, 1)
		assert.Equal(t, meta.ConditionTrue, got.Status.Conditions[0].Status)
		assert.Len(t, got.Status.Addresses, 2)
		assert.Zero(t, got.Generation)
	}

	svc := `{"apiVersion":"v1","kind":"Service","metadata":{"name":"s"},"spec":{"ports":[{"port":80}]},
		"status":{"loadBalancer":{"ingress":[{"ip":"192.0.2.1"}]}}}`
	code, body = ts.do(t, "POST", "/api/v1/namespaces/default/services", "application/json", []byte(svc))
	require.Equal(t, http.StatusCreated, code, string(body))
	var got core.Service
	require.NoError(t, json.Unmarshal(body, &got))
	assert.Empty(t, got.Status.LoadBalancer.Ingress, "a Service's status is the controllers'")
	assert.Zero(t, got.Generation, "Kubernetes gives Services no generation")
}

// TestKeepsStatusOnCreateTable checks the recorded list of kinds whose
// status a create keeps.
func TestKeepsStatusOnCreateTable(t *testing.T) {
	for _, ty := range api.NewScheme().Types() {
		s := NewDefaultStrategy(ty)
		assert.Equal(t, ty.Kind.Kind == "Node", s.KeepStatusOnCreate, ty.Kind.Kind)
	}
	custom := NewDefaultStrategy(&scheme.Type{Kind: meta.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Node"}})
	assert.False(t, custom.KeepStatusOnCreate, "only the built-in Node")
}

// TestGenerationBumpedWhenDeletionStarts: an object that tracks its
// generation gets one more when its deletion starts (a finalizer or a
// grace period keeps it), as kube-apiserver does, so its controller sees
// the change; kinds without a generation keep none.
func TestGenerationBumpedWhenDeletionStarts(t *testing.T) {
	ts := newTestServer(t, nil)
	deploy := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","finalizers":["example.com/hold"]},
		"spec":{"selector":{"matchLabels":{"app":"d"}},"template":{"metadata":{"labels":{"app":"d"}},
		"spec":{"containers":[{"name":"c","image":"registry.example/app:1"}]}}}}`
	cm := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","finalizers":["example.com/hold"]}}`
	pod := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","generation":100},
		"spec":{"nodeName":"n1","containers":[{"name":"c","image":"i"}]}}`
	tests := []struct {
		name, path, body string
		want             int64
	}{
		{"Deployment", "/apis/apps/v1/namespaces/default/deployments", deploy, 2},
		{"ConfigMap", "/api/v1/namespaces/default/configmaps", cm, 0},
		// A bound pod is deleted gracefully; the generation a client sets
		// on create is ignored (1), the deletion makes it 2.
		{"Pod", "/api/v1/namespaces/default/pods", pod, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body := ts.do(t, "POST", tt.path, "application/json", []byte(tt.body))
			require.Equal(t, http.StatusCreated, code, string(body))
			var o struct{ Metadata meta.ObjectMeta }
			require.NoError(t, json.Unmarshal(body, &o))
			code, body = ts.do(t, "DELETE", tt.path+"/"+o.Metadata.Name, "", nil)
			require.Equal(t, http.StatusOK, code, string(body)) // kept by its finalizer
			for range 2 {                                       // a second delete changes nothing more
				code, body = ts.do(t, "GET", tt.path+"/"+o.Metadata.Name, "", nil)
				require.Equal(t, http.StatusOK, code, string(body))
				require.NoError(t, json.Unmarshal(body, &o))
				assert.NotNil(t, o.Metadata.DeletionTimestamp)
				assert.Equal(t, tt.want, o.Metadata.Generation)
				code, _ = ts.do(t, "DELETE", tt.path+"/"+o.Metadata.Name, "", nil)
				require.Equal(t, http.StatusOK, code)
			}
		})
	}
}

// statusMetadataKept says which metadata changes a status update keeps,
// per kind with a status subresource, as the kind's status strategy in
// kube-apiserver (PrepareForUpdate in pkg/registry/<group>/<kind>): every
// one resets the spec; most keep the metadata; Deployment resets the
// labels, Pod the owner references; APIService, ValidatingAdmissionPolicy,
// the flowcontrol kinds and StorageVersionMigration reset it all.
var statusMetadataKept = map[string]struct{ labels, annotations, finalizers, owners bool }{
	"Pod":                       {true, true, true, false},
	"Deployment":                {false, true, true, true},
	"APIService":                {},
	"ValidatingAdmissionPolicy": {},
	"Namespace":                 {true, true, true, true}, "Node": {true, true, true, true},
	"Service": {true, true, true, true}, "ReplicationController": {true, true, true, true},
	"ResourceQuota": {true, true, true, true}, "PersistentVolume": {true, true, true, true},
	"PersistentVolumeClaim": {true, true, true, true}, "ReplicaSet": {true, true, true, true},
	"StatefulSet": {true, true, true, true}, "DaemonSet": {true, true, true, true},
	"Job": {true, true, true, true}, "CronJob": {true, true, true, true},
	"PodDisruptionBudget": {true, true, true, true}, "Ingress": {true, true, true, true},
	"HorizontalPodAutoscaler": {true, true, true, true}, "CertificateSigningRequest": {true, true, true, true},
	"CustomResourceDefinition": {true, true, true, true},
	// The flowcontrol kinds copy the old metadata whole; the migration
	// calls ResetObjectMetaForStatus.
	"FlowSchema": {}, "PriorityLevelConfiguration": {}, "StorageVersionMigration": {},
	// The resource.k8s.io kinds call ResetObjectMetaForStatus.
	"ResourceClaim": {}, "DeviceTaintRule": {},
	// PodCertificateRequest's status strategy calls ResetObjectMetaForStatus.
	"PodCertificateRequest": {},
	// So does ServiceCIDR's, and VolumeAttachment's.
	"ServiceCIDR": {}, "VolumeAttachment": {},
}

// TestStatusUpdateMetadataAsKubernetes: a status update of every built-in
// kind with a status subresource keeps the stored spec, and changes the
// metadata as kube-apiserver's status strategy of the kind lets it (the
// conformance spec "Namespaces should apply changes to a namespace
// status" patches an annotation through namespaces/status).
func TestStatusUpdateMetadataAsKubernetes(t *testing.T) {
	ts := newTestServer(t, nil)
	ctx := context.Background()
	for _, ty := range api.NewScheme().Types() {
		res, ok := ts.srv.lookup(ty.GroupVersionResource())
		require.True(t, ok)
		if !slices.Contains(ty.Subresources, "status") {
			continue
		}
		t.Run(ty.Kind.Kind, func(t *testing.T) {
			want, ok := statusMetadataKept[ty.Kind.Kind]
			require.True(t, ok, "no Kubernetes status rule recorded for %s", ty.Kind)
			old := ty.New()
			old.GetObjectMeta().Name = "x"
			res.Strategy.PrepareForCreate(ctx, old)
			next := meta.DeepCopy(old)
			m := next.GetObjectMeta()
			m.Labels, m.Annotations = map[string]string{"l": "v"}, map[string]string{"a": "v"}
			m.Finalizers = []string{"example.com/f"}
			m.OwnerReferences = []meta.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "o", UID: "u"}}
			specChanged := mutateSpec(next)
			res.Strategy.PrepareForUpdate(ctx, next, old, "status")
			assert.Equal(t, want.labels, m.Labels != nil, "labels")
			assert.Equal(t, want.annotations, m.Annotations != nil, "annotations")
			assert.Equal(t, want.finalizers, m.Finalizers != nil, "finalizers")
			assert.Equal(t, want.owners, m.OwnerReferences != nil, "ownerReferences")
			if specChanged {
				assert.Equal(t, fieldValue(old, "Spec").Interface(), fieldValue(next, "Spec").Interface(), "the spec is the stored one")
			}
		})
	}
}

// TestNamespaceStatusPatchKeepsAnnotation follows the conformance spec
// "Namespaces should apply changes to a namespace status": a merge patch
// of namespaces/status setting an annotation and a condition keeps both.
func TestNamespaceStatusPatchKeepsAnnotation(t *testing.T) {
	ts := newTestServer(t, nil)
	code, body := ts.do(t, "POST", "/api/v1/namespaces", "application/json", []byte(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"st"}}`))
	require.Equal(t, http.StatusCreated, code, string(body))
	patch := `{"metadata":{"annotations":{"e2e-patched-ns-status":"st"}},"status":{"conditions":[{"type":"StatusPatch","status":"True","reason":"E2E","message":"Patched by an e2e test"}]}}`
	code, body = ts.do(t, "PATCH", "/api/v1/namespaces/st/status", "application/merge-patch+json", []byte(patch))
	require.Equal(t, http.StatusOK, code, string(body))
	for _, b := range [][]byte{body, func() []byte { _, b := ts.do(t, "GET", "/api/v1/namespaces/st", "", nil); return b }()} {
		var ns core.Namespace
		require.NoError(t, json.Unmarshal(b, &ns))
		assert.Equal(t, "st", ns.Annotations["e2e-patched-ns-status"], string(b))
		require.Len(t, ns.Status.Conditions, 1, string(b))
		assert.Equal(t, "StatusPatch", string(ns.Status.Conditions[0].Type))
	}
}

// TestDeleteStatusCodeAsKubernetes: a delete that leaves the object in
// place answers 200 as kube-apiserver does, 202 only when the client asked
// for cascading deletion with orphanDependents=false.
func TestDeleteStatusCodeAsKubernetes(t *testing.T) {
	tests := []struct {
		name, body string
		want       int
	}{
		{"no options", "", http.StatusOK},
		{"orphanDependents true", `{"orphanDependents":true}`, http.StatusOK},
		{"orphanDependents false", `{"orphanDependents":false}`, http.StatusAccepted},
		{"propagationPolicy Foreground", `{"propagationPolicy":"Foreground"}`, http.StatusOK},
		{"malformed body", `{"orphanDependents":`, http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := newTestServer(t, nil)
			code, body := ts.do(t, "POST", "/api/v1/namespaces/default/configmaps", "application/json",
				[]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","finalizers":["example.com/hold"]}}`))
			require.Equal(t, http.StatusCreated, code, string(body))
			ct := ""
			if tt.body != "" {
				ct = "application/json"
			}
			code, body = ts.do(t, "DELETE", "/api/v1/namespaces/default/configmaps/c", ct, []byte(tt.body))
			assert.Equal(t, tt.want, code, string(body))
		})
	}
}

// TestBindingSetsPodScheduledObservedGeneration: the binding subresource
// sets PodScheduled=True with the generation it saw and leaves the
// generation alone; a second binding conflicts.
func TestBindingSetsPodScheduledObservedGeneration(t *testing.T) {
	ts := newTestServer(t, nil)
	code, body := ts.do(t, "POST", "/api/v1/namespaces/default/pods", "application/json",
		[]byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"i"}]}}`))
	require.Equal(t, http.StatusCreated, code, string(body))
	code, body = ts.do(t, "PUT", "/api/v1/namespaces/default/pods/p", "application/json",
		[]byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"activeDeadlineSeconds":60,"containers":[{"name":"c","image":"i"}]}}`))
	require.Equal(t, http.StatusOK, code, string(body))
	bind := []byte(`{"apiVersion":"v1","kind":"Binding","metadata":{"name":"p"},"target":{"kind":"Node","name":"n1"}}`)
	code, body = ts.do(t, "POST", "/api/v1/namespaces/default/pods/p/binding", "application/json", bind)
	require.Equal(t, http.StatusCreated, code, string(body))
	code, body = ts.do(t, "GET", "/api/v1/namespaces/default/pods/p", "", nil)
	require.Equal(t, http.StatusOK, code, string(body))
	var got core.Pod
	require.NoError(t, json.Unmarshal(body, &got))
	assert.Equal(t, int64(2), got.Generation, "binding does not bump the generation")
	_, c := core.GetPodCondition(&got.Status, core.PodScheduled)
	require.NotNil(t, c)
	assert.Equal(t, meta.ConditionTrue, c.Status)
	assert.Equal(t, int64(2), c.ObservedGeneration)
	code, body = ts.do(t, "POST", "/api/v1/namespaces/default/pods/p/binding", "application/json", bind)
	assert.Equal(t, http.StatusConflict, code, string(body))
}
