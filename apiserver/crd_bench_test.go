package apiserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// benchCRD is a CRD whose spec has 20 string fields and two CEL rules
// (issue 17's figure: creates of such a custom resource against a
// ConfigMap of the same size).
func benchCRD() []byte {
	props := map[string]any{}
	for i := range 20 {
		props[fmt.Sprintf("f%d", i)] = map[string]any{"type": "string", "maxLength": 64}
	}
	crd := map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "benches.bench.example.com"},
		"spec": map[string]any{
			"group": "bench.example.com", "scope": "Namespaced",
			"names": map[string]any{"plural": "benches", "kind": "Bench"},
			"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "properties": map[string]any{
					"spec": map[string]any{"type": "object", "properties": props, "x-kubernetes-validations": []any{
						map[string]any{"rule": "self.f0 != self.f1"},
						map[string]any{"rule": "size(self.f2) <= 64"},
					}},
				}}}}},
		},
	}
	b, _ := json.Marshal(crd)
	return b
}

// BenchmarkCreateCustomResource measures creates through the whole chain
// of a custom resource with a 20-field schema and two CEL rules, and of a
// ConfigMap holding the same 20 values (about 1 KiB either way), with
// b.SetParallelism clients. For profiling and for the figure in
// BENCHMARKS.md:
//
//	go test -run '^$' -bench CreateCustomResource -benchtime 5000x ./apiserver
func BenchmarkCreateCustomResource(b *testing.B) {
	ts := newTestServer(b, nil)
	code, out := ts.doB(b, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", benchCRD())
	if code != http.StatusCreated {
		b.Fatalf("create CRD: %d %s", code, out)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if code, _ := ts.doB(b, "GET", "/apis/bench.example.com/v1/namespaces/default/benches", nil); code == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			b.Fatal("the CRD is not served")
		}
		time.Sleep(10 * time.Millisecond)
	}
	values := map[string]string{}
	for i := range 20 {
		values[fmt.Sprintf("f%d", i)] = fmt.Sprintf("%02d", i) + strings.Repeat("v", 48)
	}
	kinds := []struct {
		name, path string
		body       func(name string) map[string]any
	}{
		{"ConfigMap", "/api/v1/namespaces/default/configmaps", func(name string) map[string]any {
			return map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": name}, "data": values}
		}},
		{"CustomResource", "/apis/bench.example.com/v1/namespaces/default/benches", func(name string) map[string]any {
			return map[string]any{"apiVersion": "bench.example.com/v1", "kind": "Bench", "metadata": map[string]any{"name": name}, "spec": values}
		}},
	}
	for _, k := range kinds {
		b.Run("kind="+k.name, func(b *testing.B) {
			var n atomic.Int64
			b.SetParallelism(16)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					body, _ := json.Marshal(k.body(fmt.Sprintf("b-%d-%d", b.N, n.Add(1))))
					resp, err := ts.http.Post(ts.url+k.path, "application/json", bytes.NewReader(body))
					if err != nil {
						b.Error(err)
						return
					}
					msg, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusCreated {
						b.Errorf("status %d: %s", resp.StatusCode, msg)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "creates/s")
		})
	}
}

// doB is do for benchmarks.
func (ts *testServer) doB(b *testing.B, method, path string, body []byte) (int, []byte) {
	req, err := http.NewRequest(method, ts.url+path, bytes.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := ts.http.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out
}
