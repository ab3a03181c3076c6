package api

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheme"
)

// TestResourceNames checks names, scope, short names, categories and
// subresources against what `kubectl api-resources` prints for a
// Kubernetes 1.32 cluster.
func TestResourceNames(t *testing.T) {
	s := NewScheme()
	tests := []struct {
		gvr          string // group/version/resource, "v1/pods" for core
		kind         string
		namespaced   bool
		short        []string
		categories   []string
		subresources []string
	}{
		{"v1/pods", "Pod", true, []string{"po"}, []string{"all"}, nil},
		{"v1/nodes", "Node", false, []string{"no"}, nil, nil},
		{"v1/namespaces", "Namespace", false, []string{"ns"}, nil, nil},
		{"v1/services", "Service", true, []string{"svc"}, []string{"all"}, nil},
		{"v1/endpoints", "Endpoints", true, []string{"ep"}, nil, nil},
		{"v1/configmaps", "ConfigMap", true, []string{"cm"}, nil, nil},
		{"v1/secrets", "Secret", true, nil, nil, nil},
		{"v1/serviceaccounts", "ServiceAccount", true, []string{"sa"}, nil, nil},
		{"v1/events", "Event", true, []string{"ev"}, nil, nil},
		{"v1/resourcequotas", "ResourceQuota", true, []string{"quota"}, nil, nil},
		{"v1/limitranges", "LimitRange", true, []string{"limits"}, nil, nil},
		{"v1/persistentvolumes", "PersistentVolume", false, []string{"pv"}, nil, nil},
		{"v1/persistentvolumeclaims", "PersistentVolumeClaim", true, []string{"pvc"}, nil, nil},
		{"v1/bindings", "Binding", true, nil, nil, nil},
		{"apps/v1/deployments", "Deployment", true, []string{"deploy"}, []string{"all"}, []string{"status", "scale"}},
		{"apps/v1/replicasets", "ReplicaSet", true, []string{"rs"}, []string{"all"}, []string{"status", "scale"}},
		{"apps/v1/statefulsets", "StatefulSet", true, []string{"sts"}, []string{"all"}, []string{"status", "scale"}},
		{"apps/v1/daemonsets", "DaemonSet", true, []string{"ds"}, []string{"all"}, []string{"status"}},
		{"apps/v1/controllerrevisions", "ControllerRevision", true, nil, nil, nil},
		{"rbac.authorization.k8s.io/v1/roles", "Role", true, nil, nil, nil},
		{"rbac.authorization.k8s.io/v1/rolebindings", "RoleBinding", true, nil, nil, nil},
		{"rbac.authorization.k8s.io/v1/clusterroles", "ClusterRole", false, nil, nil, nil},
		{"rbac.authorization.k8s.io/v1/clusterrolebindings", "ClusterRoleBinding", false, nil, nil, nil},
		{"coordination.k8s.io/v1/leases", "Lease", true, nil, nil, nil},
		{"scheduling.k8s.io/v1/priorityclasses", "PriorityClass", false, []string{"pc"}, nil, nil},
		{"admissionregistration.k8s.io/v1alpha1/initializerconfigurations", "InitializerConfiguration", false, nil, nil, nil},
		{"authorization.k8s.io/v1/subjectaccessreviews", "SubjectAccessReview", false, nil, nil, nil},
		{"authorization.k8s.io/v1/selfsubjectaccessreviews", "SelfSubjectAccessReview", false, nil, nil, nil},
		{"authorization.k8s.io/v1/localsubjectaccessreviews", "LocalSubjectAccessReview", true, nil, nil, nil},
		{"authorization.k8s.io/v1/selfsubjectrulesreviews", "SelfSubjectRulesReview", false, nil, nil, nil},
		{"authentication.k8s.io/v1/tokenreviews", "TokenReview", false, nil, nil, nil},
		{"authentication.k8s.io/v1/selfsubjectreviews", "SelfSubjectReview", false, nil, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.gvr, func(t *testing.T) {
			gvr := parseGVR(tt.gvr)
			typ, ok := s.ByResource(gvr)
			require.True(t, ok, "%s is not registered", tt.gvr)
			assert.Equal(t, tt.kind, typ.Kind.Kind)
			assert.Equal(t, tt.namespaced, typ.Namespaced)
			assert.ElementsMatch(t, tt.short, typ.ShortNames)
			assert.ElementsMatch(t, tt.categories, typ.Categories)
			for _, sub := range tt.subresources {
				assert.Contains(t, typ.Subresources, sub)
			}
			if tt.subresources != nil {
				assert.Len(t, typ.Subresources, len(tt.subresources))
			}
		})
	}
}

func parseGVR(s string) meta.GroupVersionResource {
	dir, res := filepath.Split(s)
	gv := meta.ParseGroupVersion(dir[:len(dir)-1])
	return gv.WithResource(res)
}

// TestEveryKindRoundTrips decodes a minimal document of every registered
// kind through scheme.Decode, and checks that it re-encodes with its
// apiVersion and kind and that defaulting and validation do not panic.
func TestEveryKindRoundTrips(t *testing.T) {
	s := NewScheme()
	require.NotEmpty(t, s.Types())
	seen := map[string]bool{}
	for _, typ := range s.Types() {
		t.Run(typ.Kind.String(), func(t *testing.T) {
			assert.False(t, seen[typ.Kind.String()], "kind registered twice")
			seen[typ.Kind.String()] = true
			doc := minimalDoc(typ)
			obj, got, err := s.Decode(doc)
			require.NoError(t, err)
			assert.Same(t, typ, got)
			assert.Equal(t, typ.Kind, obj.GetTypeMeta().GroupVersionKind())
			assert.Equal(t, "x", obj.GetObjectMeta().Name)
			out, err := json.Marshal(obj)
			require.NoError(t, err)
			again, _, err := s.Decode(out)
			require.NoError(t, err)
			assert.Equal(t, obj, again)

			if typ.Default != nil {
				typ.Default(obj)
			}
			if typ.Validate != nil {
				_ = typ.Validate(obj)
			}
			if typ.ValidateUpdate != nil {
				_ = typ.ValidateUpdate(obj, again)
			}
			list := typ.NewList()
			list.GetTypeMeta().Kind = typ.ListKind()
			out, err = json.Marshal(list)
			require.NoError(t, err)
			assert.Contains(t, string(out), `"items":`)
		})
	}
}

func minimalDoc(typ *scheme.Type) []byte {
	md := map[string]any{"name": "x"}
	if typ.Namespaced {
		md["namespace"] = "default"
	}
	b, _ := json.Marshal(map[string]any{
		"apiVersion": typ.Kind.GroupVersion().String(), "kind": typ.Kind.Kind, "metadata": md,
	})
	return b
}

// goldenFiles lists the real objects the group packages keep as golden
// files.
func goldenFiles(t testing.TB) []string {
	var files []string
	for _, dir := range []string{"apps", "rbac", "coordination", "core"} {
		m, err := filepath.Glob(filepath.Join(dir, "testdata", "*.json"))
		require.NoError(t, err)
		files = append(files, m...)
	}
	slices.Sort(files)
	return files
}

// TestGoldenThroughScheme decodes every golden file through the scheme,
// then checks that a second encode/decode cycle is stable and that the
// object validates.
func TestGoldenThroughScheme(t *testing.T) {
	s := NewScheme()
	files := goldenFiles(t)
	require.NotEmpty(t, files)
	for _, f := range files {
		t.Run(f, func(t *testing.T) {
			data, err := os.ReadFile(f)
			require.NoError(t, err)
			obj, typ, err := s.Decode(data)
			require.NoError(t, err)
			first, err := json.Marshal(obj)
			require.NoError(t, err)
			obj2, _, err := s.Decode(first)
			require.NoError(t, err)
			second, err := json.Marshal(obj2)
			require.NoError(t, err)
			assert.JSONEq(t, string(first), string(second))
			if typ.Validate != nil && filepath.Dir(filepath.Dir(f)) != "core" {
				assert.Empty(t, typ.Validate(obj))
			}
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	s := NewScheme()
	tests := []struct {
		name string
		doc  string
		want string
	}{
		{"not json", `{`, "decode object"},
		{"no kind", `{"apiVersion":"apps/v1"}`, "apiVersion and kind are required"},
		{"unknown kind", `{"apiVersion":"apps/v1","kind":"Pod"}`, `no kind "Pod" is registered in version "apps/v1"`},
		{"wrong field type", `{"apiVersion":"apps/v1","kind":"Deployment","spec":{"replicas":"three"}}`, "decode Deployment"},
		{"scale is not a resource", `{"apiVersion":"autoscaling/v1","kind":"Scale"}`, "no kind"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := s.Decode([]byte(tt.doc))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestIsCreateOnly(t *testing.T) {
	assert.True(t, IsCreateOnly(meta.GroupResource{Group: "authorization.k8s.io", Resource: "selfsubjectaccessreviews"}))
	assert.True(t, IsCreateOnly(meta.GroupResource{Group: "authentication.k8s.io", Resource: "tokenreviews"}))
	assert.True(t, IsCreateOnly(meta.GroupResource{Resource: "bindings"}))
	assert.False(t, IsCreateOnly(meta.GroupResource{Resource: "pods"}))
	assert.False(t, IsCreateOnly(meta.GroupResource{Group: "apps", Resource: "deployments"}))
	s := NewScheme()
	for _, typ := range s.Types() {
		gr := typ.GroupVersionResource().GroupResource()
		if IsCreateOnly(gr) {
			assert.Nil(t, typ.ValidateUpdate, "%s is create-only", gr)
		}
	}
}

func TestNewSchemeIsIndependent(t *testing.T) {
	a, b := NewScheme(), NewScheme()
	assert.Equal(t, len(a.Types()), len(b.Types()))
	assert.NotSame(t, a.Types()[0], b.Types()[0])
}

// FuzzDecode feeds arbitrary bytes to scheme.Decode: it must never panic;
// whatever decodes must re-encode to a document that decodes to the same
// encoding, and defaulting and validation must not panic on it.
func FuzzDecode(f *testing.F) {
	s := NewScheme()
	for _, file := range goldenFiles(f) {
		data, err := os.ReadFile(file)
		require.NoError(f, err)
		f.Add(data)
	}
	for _, typ := range s.Types() {
		f.Add(minimalDoc(typ))
	}
	f.Add([]byte(`{"apiVersion":"apps/v1","kind":"Deployment","spec":{"strategy":{"rollingUpdate":{"maxSurge":"x%"}}}}`))
	f.Add([]byte(`{"apiVersion":"apps/v1","kind":"ControllerRevision","data":[1,2,{"a":null}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		obj, typ, err := s.Decode(data)
		if err != nil {
			return
		}
		first, err := json.Marshal(obj)
		if err != nil {
			t.Fatalf("encode decoded %s: %v", typ.Kind, err)
		}
		obj2, _, err := s.Decode(first)
		if err != nil {
			t.Fatalf("re-decode %s: %v\n%s", typ.Kind, err, first)
		}
		second, err := json.Marshal(obj2)
		if err != nil {
			t.Fatalf("re-encode %s: %v", typ.Kind, err)
		}
		if string(first) != string(second) {
			t.Fatalf("%s not stable:\n%s\n%s", typ.Kind, first, second)
		}
		if typ.Default != nil {
			typ.Default(obj2)
		}
		if typ.Validate != nil {
			_ = typ.Validate(obj2)
		}
		if typ.ValidateUpdate != nil {
			_ = typ.ValidateUpdate(obj2, obj)
		}
	})
}

func ExampleNewScheme() {
	s := NewScheme()
	obj, typ, err := s.Decode([]byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"default"}}`))
	if err != nil {
		panic(err)
	}
	typ.Default(obj)
	fmt.Println(typ.Resource, typ.ShortNames, obj.GetObjectMeta().Name)
	for _, e := range typ.Validate(obj) {
		fmt.Println(e)
	}
	// Output:
	// deployments [deploy] web
	// spec.selector: Required value
	// spec.template.spec.containers: Required value
}
