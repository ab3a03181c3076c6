package fieldmanager_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/core"
)

// configMapWith returns a ConfigMap with 20 data values, one of them v.
func configMapWith(v int) map[string]any {
	data := map[string]any{}
	for i := 0; i < 20; i++ {
		data[fmt.Sprintf("key-%02d", i)] = fmt.Sprintf("value-%d", i)
	}
	data["key-00"] = fmt.Sprintf("v-%d", v)
	return map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "c", "namespace": "ns"}, "data": data}
}

// BenchmarkApplyConfigMap measures one Apply of a 20-value ConfigMap that
// changes one value, over a live object its manager already owns.
func BenchmarkApplyConfigMap(b *testing.B) {
	fm := newManager(&testing.T{}, reflect.TypeFor[core.ConfigMap](), "v1")
	res, err := fm.Apply(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "c", "namespace": "ns"}}, configMapWith(0), "m", false, true)
	if err != nil {
		b.Fatal(err)
	}
	live := withManaged(&testing.T{}, res.Object, res.ManagedFields)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := fm.Apply(live, configMapWith(i), "m", false, false); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUpdateDeployment measures the ownership bookkeeping of an
// ordinary update of a Deployment (one container, replicas changed).
func BenchmarkUpdateDeployment(b *testing.B) {
	fm := newManager(&testing.T{}, reflect.TypeFor[apps.Deployment](), "apps/v1", "status")
	t := &testing.T{}
	live := obj(t, `{apiVersion: apps/v1, kind: Deployment, metadata: {name: d, namespace: ns}, spec: {replicas: 1, selector: {matchLabels: {app: w}}, template: {metadata: {labels: {app: w}}, spec: {containers: [{name: w, image: img, ports: [{containerPort: 80}], env: [{name: A, value: "1"}]}]}}}}`)
	next := obj(t, `{apiVersion: apps/v1, kind: Deployment, metadata: {name: d, namespace: ns}, spec: {replicas: 2, selector: {matchLabels: {app: w}}, template: {metadata: {labels: {app: w}}, spec: {containers: [{name: w, image: img, ports: [{containerPort: 80}], env: [{name: A, value: "1"}]}]}}}}`)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := fm.Update(live, next, "kubectl"); err != nil {
			b.Fatal(err)
		}
	}
}
