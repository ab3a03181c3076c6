package fieldmanager

import (
	"reflect"
	"testing"

	"github.com/orkit/orkit/api/apiextensions/schema"
	"github.com/orkit/orkit/api/apps"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
	"sigs.k8s.io/yaml"
)

// compareBoth compares live and next whole and pruned by pruneEqual and
// returns both comparisons; ok is false when the whole objects do not fit
// the schema (then there is nothing to compare).
func compareBoth(t *testing.T, tc *TypeConverter, live, next map[string]any) (whole, pruned *typed.Comparison, ok bool) {
	t.Helper()
	lw, err1 := tc.FromUnstructured(live, true)
	nw, err2 := tc.FromUnstructured(next, true)
	if err1 != nil || err2 != nil {
		return nil, nil, false
	}
	whole, err := lw.Compare(nw)
	if err != nil {
		return nil, nil, false
	}
	lp, np := pruneEqual(live, next)
	lpt, err := tc.FromUnstructured(lp, true)
	require.NoError(t, err)
	npt, err := tc.FromUnstructured(np, true)
	require.NoError(t, err)
	pruned, err = lpt.Compare(npt)
	require.NoError(t, err)
	return whole, pruned, true
}

func deploymentConverter(t testing.TB) *TypeConverter {
	root, defs := SchemaOf(reflect.TypeFor[apps.Deployment]())
	tc, err := NewTypeConverter(root, defs)
	require.NoError(t, err)
	return tc
}

func decodeYAML(t testing.TB, y string) (map[string]any, bool) {
	j, err := yaml.YAMLToJSON([]byte(y))
	if err != nil {
		return nil, false
	}
	v, err := schema.DecodeJSON(j)
	if err != nil {
		return nil, false
	}
	m, ok := v.(map[string]any)
	return m, ok
}

// TestPruneEqualKeepsTheComparison checks that comparing pruned objects
// finds exactly the fields comparing them whole finds.
func TestPruneEqualKeepsTheComparison(t *testing.T) {
	tc := deploymentConverter(t)
	base := `{apiVersion: apps/v1, kind: Deployment, metadata: {name: d, labels: {a: "1", b: "2"}, annotations: {x: "y"}},
spec: {replicas: 1, selector: {matchLabels: {a: "1"}}, strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1}},
  template: {metadata: {labels: {a: "1"}}, spec: {containers: [{name: c, image: i, ports: [{containerPort: 80}], env: [{name: E, value: v}]}]}}},
status: {replicas: 1, conditions: [{type: Available, status: "True"}]}}`
	for name, next := range map[string]string{
		"same": base,
		"one scalar": `{apiVersion: apps/v1, kind: Deployment, metadata: {name: d, labels: {a: "1", b: "2"}, annotations: {x: "y"}},
spec: {replicas: 3, selector: {matchLabels: {a: "1"}}, strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1}},
  template: {metadata: {labels: {a: "1"}}, spec: {containers: [{name: c, image: i, ports: [{containerPort: 80}], env: [{name: E, value: v}]}]}}},
status: {replicas: 1, conditions: [{type: Available, status: "True"}]}}`,
		"label added and removed": `{apiVersion: apps/v1, kind: Deployment, metadata: {name: d, labels: {a: "1", c: "3"}, annotations: {x: "y"}},
spec: {replicas: 1, selector: {matchLabels: {a: "1"}}, strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1}},
  template: {metadata: {labels: {a: "1"}}, spec: {containers: [{name: c, image: i, ports: [{containerPort: 80}], env: [{name: E, value: v}]}]}}},
status: {replicas: 1, conditions: [{type: Available, status: "True"}]}}`,
		"map emptied and struct dropped": `{apiVersion: apps/v1, kind: Deployment, metadata: {name: d, labels: {a: "1", b: "2"}, annotations: {}},
spec: {replicas: 1, selector: {matchLabels: {a: "1"}},
  template: {metadata: {labels: {a: "1"}}, spec: {containers: [{name: c, image: i, ports: [{containerPort: 80}], env: [{name: E, value: v}]}]}}},
status: {replicas: 1, conditions: [{type: Available, status: "True"}]}}`,
		"list item changed, added": `{apiVersion: apps/v1, kind: Deployment, metadata: {name: d, labels: {a: "1", b: "2"}, annotations: {x: "y"}},
spec: {replicas: 1, selector: {matchLabels: {a: "1"}}, strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1}},
  template: {metadata: {labels: {a: "1"}}, spec: {containers: [{name: c, image: j, ports: [{containerPort: 80}, {containerPort: 81}], env: [{name: E, value: v}]}, {name: d, image: i}]}}},
status: {replicas: 1, conditions: [{type: Available, status: "False"}, {type: Progressing, status: "True"}]}}`,
		"subtree removed": `{apiVersion: apps/v1, kind: Deployment, metadata: {name: d, labels: {a: "1", b: "2"}, annotations: {x: "y"}},
spec: {replicas: 1, selector: {matchLabels: {a: "1"}}, strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1}},
  template: {metadata: {labels: {a: "1"}}, spec: {containers: [{name: c, image: i, ports: [{containerPort: 80}], env: [{name: E, value: v}]}]}}}}`,
		"value set to null": `{apiVersion: apps/v1, kind: Deployment, metadata: {name: d, labels: {a: "1", b: "2"}, annotations: null},
spec: {replicas: 1, selector: {matchLabels: {a: "1"}}, strategy: null,
  template: {metadata: {labels: {a: "1"}}, spec: {containers: [{name: c, image: i, ports: [{containerPort: 80}], env: [{name: E, value: v}]}]}}},
status: {replicas: 1, conditions: [{type: Available, status: "True"}]}}`,
	} {
		t.Run(name, func(t *testing.T) {
			live, ok := decodeYAML(t, base)
			require.True(t, ok)
			nx, ok := decodeYAML(t, next)
			require.True(t, ok)
			whole, pruned, ok := compareBoth(t, tc, live, nx)
			require.True(t, ok)
			require.Equal(t, whole.Added.String(), pruned.Added.String(), "added")
			require.Equal(t, whole.Removed.String(), pruned.Removed.String(), "removed")
			require.Equal(t, whole.Modified.String(), pruned.Modified.String(), "modified")
		})
	}
}

// FuzzPruneEqual checks the same on arbitrary pairs of Deployments.
func FuzzPruneEqual(f *testing.F) {
	f.Add("spec: {replicas: 1, template: {spec: {containers: [{name: a, image: x}]}}}", "spec: {replicas: 2, template: {spec: {containers: [{name: a, image: x}]}}}")
	f.Add("metadata: {labels: {a: b}}\nstatus: {conditions: [{type: A, status: x}]}", "metadata: {labels: {a: c}}\nstatus: {conditions: [{type: A, status: y}, {type: B}]}")
	f.Add("spec: {strategy: {rollingUpdate: {maxSurge: 1}}}", "spec: {strategy: {}}")
	f.Add("spec: {selector: {matchLabels: {a: b}}}", "spec: {selector: null}")
	tc := deploymentConverter(f)
	f.Fuzz(func(t *testing.T, a, b string) {
		live, ok1 := decodeYAML(t, a)
		next, ok2 := decodeYAML(t, b)
		if !ok1 || !ok2 {
			return
		}
		whole, pruned, ok := compareBoth(t, tc, live, next)
		if !ok {
			return
		}
		require.Equal(t, whole.Added.String(), pruned.Added.String(), "added")
		require.Equal(t, whole.Removed.String(), pruned.Removed.String(), "removed")
		require.Equal(t, whole.Modified.String(), pruned.Modified.String(), "modified")
	})
}
