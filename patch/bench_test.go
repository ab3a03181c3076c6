package patch

import "testing"

// BenchmarkApply measures one PATCH of each type on a Deployment, the size of
// a typical kubectl request.
func BenchmarkApply(b *testing.B) {
	cases := []struct {
		name  string
		typ   Type
		patch string
	}{
		{"merge/label", MergePatch, `{"metadata":{"labels":{"tier":"front"}}}`},
		{"json/replace-image", JSONPatch, `[{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"x:2"}]`},
		{"strategic/set-image", StrategicMerge, `{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"x:2"}]}}}}`},
		{"strategic/apply-style", StrategicMerge, `{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"web"},{"name":"side"}],` +
			`"containers":[{"name":"web","env":[{"name":"C","value":"3"}],"$setElementOrder/env":[{"name":"A"},{"name":"B"},{"name":"C"}]}]}}}}`},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			doc, p := []byte(testDeployment), []byte(c.patch)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Apply(c.typ, doc, p, "Deployment"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
