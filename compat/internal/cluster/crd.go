package cluster

import (
	"context"
	"os"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"
)

// crdResource is apiextensions.k8s.io/v1 customresourcedefinitions.
var crdResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// ApplyCRD creates the CustomResourceDefinition in the YAML file path
// through the dynamic client and waits (up to 10 s) until it is
// Established, as a user's `kubectl apply` and `kubectl wait` would.
func (c *Cluster) ApplyCRD(t testing.TB, path string) {
	t.Helper()
	y, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("cluster: read CRD: %v", err)
	}
	obj := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(y, &obj.Object); err != nil {
		t.Fatalf("cluster: decode CRD: %v", err)
	}
	dc, err := dynamic.NewForConfig(c.RESTConfig())
	if err != nil {
		t.Fatalf("cluster: dynamic client: %v", err)
	}
	ctx := context.Background()
	if _, err := dc.Resource(crdResource).Create(ctx, obj, metaCreate); err != nil {
		t.Fatalf("cluster: create CRD: %v", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, err := dc.Resource(crdResource).Get(ctx, obj.GetName(), metaGet)
		if err == nil && established(got) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("cluster: CRD %s not established: %v", obj.GetName(), err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func established(crd *unstructured.Unstructured) bool {
	conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == "Established" && m["status"] == "True" {
			return true
		}
	}
	return false
}

var (
	metaCreate = metav1.CreateOptions{}
	metaGet    = metav1.GetOptions{}
)
