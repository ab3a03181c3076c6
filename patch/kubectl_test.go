package patch

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestKubectlPayloads applies the PATCH bodies kubectl v1.32 sends, captured
// from a recording HTTP server on 127.0.0.1, to the object it was shown.
func TestKubectlPayloads(t *testing.T) {
	const shown = `{"apiVersion":"apps/v1","kind":"Deployment",
	 "metadata":{"name":"web","namespace":"default","resourceVersion":"5","labels":{"app":"web"},"annotations":{}},
	 "spec":{"replicas":1,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},
	   "spec":{"containers":[{"name":"web","image":"x:1","env":[{"name":"A","value":"1"}]},{"name":"side","image":"s:1"}]}}}}`
	const shownScale = `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"web","namespace":"default","resourceVersion":"5"},
	 "spec":{"replicas":1},"status":{"replicas":1}}`
	tests := []struct {
		command  string
		typ      Type
		original string
		body     string
		want     []string // JSON patches turning original into the result
	}{
		{"kubectl set image deployment/web web=x:2", StrategicMerge, shown,
			`{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"web"},{"name":"side"}],"containers":[{"image":"x:2","name":"web"}]}}}}`,
			[]string{`[{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"x:2"}]`}},
		{"kubectl set env deployment/web -c web B=2", StrategicMerge, shown,
			`{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"web"},{"name":"side"}],"containers":[{"$setElementOrder/env":[{"name":"A"},{"name":"B"}],"env":[{"name":"B","value":"2"}],"name":"web"}]}}}}`,
			[]string{`[{"op":"add","path":"/spec/template/spec/containers/0/env/-","value":{"name":"B","value":"2"}}]`}},
		{"kubectl set env deployment/web -c web A-", StrategicMerge, shown,
			`{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"web"},{"name":"side"}],"containers":[{"env":null,"name":"web"}]}}}}`,
			[]string{`[{"op":"remove","path":"/spec/template/spec/containers/0/env"}]`}},
		{"kubectl label deployment web tier=front", MergePatch, shown,
			`{"metadata":{"labels":{"tier":"front"}}}`,
			[]string{`[{"op":"add","path":"/metadata/labels/tier","value":"front"}]`}},
		{"kubectl annotate deployment web a=b", MergePatch, shown,
			`{"metadata":{"annotations":{"a":"b"}}}`,
			[]string{`[{"op":"add","path":"/metadata/annotations/a","value":"b"}]`}},
		{"kubectl scale deployment web --replicas=3", MergePatch, shownScale,
			`{"spec":{"replicas":3}}`,
			[]string{`[{"op":"replace","path":"/spec/replicas","value":3}]`}},
		{"kubectl patch deployment web -p (add a container)", StrategicMerge, shown,
			`{"spec":{"template":{"spec":{"containers":[{"name":"new","image":"n:1"}]}}}}`,
			[]string{`[{"op":"add","path":"/spec/template/spec/containers/0","value":{"name":"new","image":"n:1"}}]`}},
		{"kubectl apply (reordered containers, new env var)", StrategicMerge, shown,
			`{"metadata":{"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{}\n"}},
			  "spec":{"replicas":2,"strategy":{"type":"Recreate"},"template":{"spec":{
			    "$setElementOrder/containers":[{"name":"side"},{"name":"web"}],
			    "containers":[{"$setElementOrder/env":[{"name":"A"},{"name":"C"}],"env":[{"name":"C","value":"3"}],"image":"x:3","name":"web"}]}}}}`,
			[]string{`[{"op":"add","path":"/metadata/annotations/kubectl.kubernetes.io~1last-applied-configuration","value":"{}\n"},
			  {"op":"replace","path":"/spec/replicas","value":2},
			  {"op":"add","path":"/spec/strategy","value":{"type":"Recreate"}},
			  {"op":"replace","path":"/spec/template/spec/containers","value":[{"name":"side","image":"s:1"},
			    {"name":"web","image":"x:3","env":[{"name":"A","value":"1"},{"name":"C","value":"3"}]}]}]`}},
	}
	for _, tc := range tests {
		t.Run(tc.command, func(t *testing.T) {
			out, err := Apply(tc.typ, []byte(tc.original), []byte(tc.body), "Deployment")
			require.NoError(t, err)
			want := []byte(tc.original)
			for _, p := range tc.want {
				want, err = Apply(JSONPatch, want, []byte(p), "")
				require.NoError(t, err)
			}
			assert.JSONEq(t, string(want), string(out))
		})
	}
}
