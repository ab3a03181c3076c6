package patch

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const testDeployment = `{
 "apiVersion":"apps/v1","kind":"Deployment",
 "metadata":{"name":"web","namespace":"default","labels":{"app":"web"},"finalizers":["a","b"],
   "ownerReferences":[{"uid":"u1","name":"o1","kind":"X","apiVersion":"v1"}]},
 "spec":{"replicas":3,
   "strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1,"maxUnavailable":0}},
   "template":{"metadata":{"labels":{"app":"web"}},
     "spec":{
       "containers":[
         {"name":"web","image":"x:1","ports":[{"containerPort":80,"protocol":"TCP","name":"http"}],
          "env":[{"name":"A","value":"1"},{"name":"B","value":"2"}],
          "volumeMounts":[{"name":"data","mountPath":"/data"}]},
         {"name":"side","image":"s:1"}],
       "volumes":[{"name":"data","emptyDir":{}}],
       "tolerations":[{"key":"k1","operator":"Exists"}]}}},
 "status":{"conditions":[{"type":"Available","status":"True"},{"type":"Progressing","status":"True"}]}}`

// deploymentWith returns testDeployment with the JSON merge patch edits
// applied, to spell out expected results compactly.
func deploymentWith(t *testing.T, edits ...string) string {
	t.Helper()
	doc := []byte(testDeployment)
	for _, e := range edits {
		var err error
		doc, err = Apply(JSONPatch, doc, []byte(e), "")
		require.NoError(t, err, e)
	}
	return string(doc)
}

func TestStrategicMergeDeployment(t *testing.T) {
	tests := []struct {
		name  string
		patch string
		want  []string // JSON patches turning testDeployment into the result
	}{
		{"kubectl set image changes only that container",
			`{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"x:2"}]}}}}`,
			[]string{`[{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"x:2"}]`}},
		{"kubectl set image as kubectl computes it",
			`{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"web"},{"name":"side"}],"containers":[{"image":"x:2","name":"web"}]}}}}`,
			[]string{`[{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"x:2"}]`}},
		{"kubectl label",
			`{"metadata":{"labels":{"tier":"front"}}}`,
			[]string{`[{"op":"add","path":"/metadata/labels/tier","value":"front"}]`}},
		{"kubectl label remove",
			`{"metadata":{"labels":{"app":null}}}`,
			[]string{`[{"op":"remove","path":"/metadata/labels/app"}]`}},
		{"kubectl scale",
			`{"spec":{"replicas":5}}`,
			[]string{`[{"op":"replace","path":"/spec/replicas","value":5}]`}},
		// Without $setElementOrder, elements new to the list go before the
		// ones only the server has, as in Kubernetes (its "kubectl patch"
		// task shows the added container first).
		{"add env var keeps the others",
			`{"spec":{"template":{"spec":{"containers":[{"name":"web","env":[{"name":"C","value":"3"}]}]}}}}`,
			[]string{`[{"op":"add","path":"/spec/template/spec/containers/0/env/0","value":{"name":"C","value":"3"}}]`}},
		{"add env var with $setElementOrder appends it",
			`{"spec":{"template":{"spec":{"containers":[{"name":"web","$setElementOrder/env":[{"name":"A"},{"name":"B"},{"name":"C"}],"env":[{"name":"C","value":"3"}]}]}}}}`,
			[]string{`[{"op":"add","path":"/spec/template/spec/containers/0/env/-","value":{"name":"C","value":"3"}}]`}},
		{"change env var in place",
			`{"spec":{"template":{"spec":{"containers":[{"name":"web","env":[{"name":"A","value":"9"}]}]}}}}`,
			[]string{`[{"op":"replace","path":"/spec/template/spec/containers/0/env/0/value","value":"9"}]`}},
		{"delete env var",
			`{"spec":{"template":{"spec":{"containers":[{"name":"web","env":[{"name":"A","$patch":"delete"}]}]}}}}`,
			[]string{`[{"op":"remove","path":"/spec/template/spec/containers/0/env/0"}]`}},
		{"$patch delete of a container",
			`{"spec":{"template":{"spec":{"containers":[{"name":"side","$patch":"delete"}]}}}}`,
			[]string{`[{"op":"remove","path":"/spec/template/spec/containers/1"}]`}},
		{"$patch delete of a missing container is a no-op",
			`{"spec":{"template":{"spec":{"containers":[{"name":"gone","$patch":"delete"}]}}}}`,
			nil},
		{"add a container",
			`{"spec":{"template":{"spec":{"containers":[{"name":"new","image":"n:1"}]}}}}`,
			[]string{`[{"op":"add","path":"/spec/template/spec/containers/0","value":{"name":"new","image":"n:1"}}]`}},
		{"patch elements keep their relative order",
			`{"spec":{"template":{"spec":{"containers":[{"name":"side","image":"s:2"},{"name":"new","image":"n:1"},{"name":"web","image":"x:2"}]}}}}`,
			[]string{`[{"op":"replace","path":"/spec/template/spec/containers","value":[{"name":"side","image":"s:2"},{"name":"new","image":"n:1"},
			  {"name":"web","image":"x:2","ports":[{"containerPort":80,"protocol":"TCP","name":"http"}],
			   "env":[{"name":"A","value":"1"},{"name":"B","value":"2"}],"volumeMounts":[{"name":"data","mountPath":"/data"}]}]}]`}},
		{"$setElementOrder/containers reorders",
			`{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"side"},{"name":"web"}],"containers":[{"name":"web","image":"x:2"}]}}}}`,
			[]string{`[{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"x:2"},{"op":"move","from":"/spec/template/spec/containers/1","path":"/spec/template/spec/containers/0"}]`}},
		{"$setElementOrder alone reorders",
			`{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"side"},{"name":"web"}]}}}}`,
			[]string{`[{"op":"move","from":"/spec/template/spec/containers/1","path":"/spec/template/spec/containers/0"}]`}},
		{"$setElementOrder places a new container",
			`{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"web"},{"name":"new"},{"name":"side"}],"containers":[{"name":"new","image":"n:1"}]}}}}`,
			[]string{`[{"op":"add","path":"/spec/template/spec/containers/1","value":{"name":"new","image":"n:1"}}]`}},
		{"$patch replace on a list",
			`{"spec":{"template":{"spec":{"containers":[{"$patch":"replace"},{"name":"only","image":"o:1"}]}}}}`,
			[]string{`[{"op":"replace","path":"/spec/template/spec/containers","value":[{"name":"only","image":"o:1"}]}]`}},
		{"$patch replace on a map",
			`{"spec":{"template":{"metadata":{"labels":{"$patch":"replace","x":"y"}}}}}`,
			[]string{`[{"op":"replace","path":"/spec/template/metadata/labels","value":{"x":"y"}}]`}},
		{"$patch delete on a map empties it",
			`{"metadata":{"labels":{"$patch":"delete"}}}`,
			[]string{`[{"op":"replace","path":"/metadata/labels","value":{}}]`}},
		{"$patch merge is the default",
			`{"metadata":{"labels":{"$patch":"merge","x":"y"}}}`,
			[]string{`[{"op":"add","path":"/metadata/labels/x","value":"y"}]`}},
		{"$retainKeys clears the other union members",
			`{"spec":{"strategy":{"$retainKeys":["type"],"type":"Recreate"}}}`,
			[]string{`[{"op":"replace","path":"/spec/strategy","value":{"type":"Recreate"}}]`}},
		{"finalizers merge as a set",
			`{"metadata":{"finalizers":["b","c"]}}`,
			[]string{`[{"op":"add","path":"/metadata/finalizers/-","value":"c"}]`}},
		{"finalizers follow the patch order",
			`{"metadata":{"finalizers":["c","a"]}}`,
			[]string{`[{"op":"replace","path":"/metadata/finalizers","value":["c","a","b"]}]`}},
		{"$deleteFromPrimitiveList/finalizers",
			`{"metadata":{"$deleteFromPrimitiveList/finalizers":["a"]}}`,
			[]string{`[{"op":"remove","path":"/metadata/finalizers/0"}]`}},
		{"$setElementOrder/finalizers",
			`{"metadata":{"$setElementOrder/finalizers":["b","c","a"],"finalizers":["c"]}}`,
			[]string{`[{"op":"replace","path":"/metadata/finalizers","value":["b","c","a"]}]`}},
		{"ownerReferences merge by uid",
			`{"metadata":{"ownerReferences":[{"uid":"u1","controller":true},{"uid":"u2","name":"o2","kind":"Y","apiVersion":"v1"}]}}`,
			[]string{`[{"op":"add","path":"/metadata/ownerReferences/0/controller","value":true},
			  {"op":"add","path":"/metadata/ownerReferences/-","value":{"uid":"u2","name":"o2","kind":"Y","apiVersion":"v1"}}]`}},
		{"container ports merge by containerPort",
			`{"spec":{"template":{"spec":{"containers":[{"name":"web","ports":[{"containerPort":80,"name":"web"},{"containerPort":443}]}]}}}}`,
			[]string{`[{"op":"replace","path":"/spec/template/spec/containers/0/ports/0/name","value":"web"},
			  {"op":"add","path":"/spec/template/spec/containers/0/ports/-","value":{"containerPort":443}}]`}},
		{"merge key numbers compare by value",
			`{"spec":{"template":{"spec":{"containers":[{"name":"web","ports":[{"containerPort":8.0e1,"name":"web"}]}]}}}}`,
			[]string{`[{"op":"replace","path":"/spec/template/spec/containers/0/ports/0/name","value":"web"}]`}},
		{"volumeMounts merge by mountPath",
			`{"spec":{"template":{"spec":{"containers":[{"name":"web","volumeMounts":[{"mountPath":"/data","readOnly":true}]}]}}}}`,
			[]string{`[{"op":"add","path":"/spec/template/spec/containers/0/volumeMounts/0/readOnly","value":true}]`}},
		{"volumes merge by name",
			`{"spec":{"template":{"spec":{"volumes":[{"name":"cfg","configMap":{"name":"c"}}]}}}}`,
			[]string{`[{"op":"add","path":"/spec/template/spec/volumes/0","value":{"name":"cfg","configMap":{"name":"c"}}}]`}},
		{"tolerations are replaced",
			`{"spec":{"template":{"spec":{"tolerations":[{"key":"k2","operator":"Exists"}]}}}}`,
			[]string{`[{"op":"replace","path":"/spec/template/spec/tolerations","value":[{"key":"k2","operator":"Exists"}]}]`}},
		{"status conditions merge by type",
			`{"status":{"conditions":[{"type":"Available","status":"False"}]}}`,
			[]string{`[{"op":"replace","path":"/status/conditions/0/status","value":"False"}]`}},
		{"null removes a list",
			`{"spec":{"template":{"spec":{"tolerations":null}}}}`,
			[]string{`[{"op":"remove","path":"/spec/template/spec/tolerations"}]`}},
		{"a new field with directives inside is cleaned",
			`{"spec":{"template":{"spec":{"initContainers":[{"name":"i","image":"i:1","env":[{"name":"X","$patch":"delete"}]}]}}}}`,
			[]string{`[{"op":"add","path":"/spec/template/spec/initContainers","value":[{"name":"i","image":"i:1","env":[]}]}]`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Apply(StrategicMerge, []byte(testDeployment), []byte(tc.patch), "Deployment")
			require.NoError(t, err)
			assert.JSONEq(t, deploymentWith(t, tc.want...), string(out))
			assert.NotContains(t, string(out), `"$`, "directives must not leak into the result")
		})
	}
}

func TestStrategicMergeKinds(t *testing.T) {
	tests := []struct {
		name, kind, original, patch, want string
	}{
		{"Pod containers", "Pod",
			`{"spec":{"containers":[{"name":"a","image":"a:1"},{"name":"b","image":"b:1"}]}}`,
			`{"spec":{"containers":[{"name":"b","image":"b:2"}]}}`,
			`{"spec":{"containers":[{"name":"a","image":"a:1"},{"name":"b","image":"b:2"}]}}`},
		{"Pod status conditions and podIPs", "Pod",
			`{"status":{"conditions":[{"type":"Ready","status":"False"}],"podIPs":[{"ip":"10.244.0.5"}]}}`,
			`{"status":{"conditions":[{"type":"Ready","status":"True"},{"type":"PodScheduled","status":"True"}],"podIPs":[{"ip":"fd00::5"}]}}`,
			`{"status":{"conditions":[{"type":"Ready","status":"True"},{"type":"PodScheduled","status":"True"}],"podIPs":[{"ip":"fd00::5"},{"ip":"10.244.0.5"}]}}`},
		{"Service ports merge by port", "Service",
			`{"spec":{"ports":[{"name":"http","port":80,"protocol":"TCP","targetPort":8080},{"name":"https","port":443,"protocol":"TCP"}]}}`,
			`{"spec":{"ports":[{"port":80,"targetPort":9090}]}}`,
			`{"spec":{"ports":[{"name":"http","port":80,"protocol":"TCP","targetPort":9090},{"name":"https","port":443,"protocol":"TCP"}]}}`},
		{"Service ports with the same port and different protocols", "Service",
			`{"spec":{"ports":[{"name":"dns","port":53,"protocol":"TCP"},{"name":"dns-udp","port":53,"protocol":"UDP"}]}}`,
			`{"spec":{"ports":[{"port":53,"protocol":"UDP","targetPort":5353}]}}`,
			`{"spec":{"ports":[{"name":"dns","port":53,"protocol":"TCP"},{"name":"dns-udp","port":53,"protocol":"UDP","targetPort":5353}]}}`},
		{"Endpoints subsets are replaced", "Endpoints",
			`{"subsets":[{"addresses":[{"ip":"10.0.0.1"}],"ports":[{"port":80}]}]}`,
			`{"subsets":[{"addresses":[{"ip":"10.0.0.2"}],"ports":[{"port":80}]}]}`,
			`{"subsets":[{"addresses":[{"ip":"10.0.0.2"}],"ports":[{"port":80}]}]}`},
		{"Namespace spec.finalizers are atomic", "Namespace",
			`{"metadata":{"finalizers":["x"]},"spec":{"finalizers":["kubernetes"]}}`,
			`{"metadata":{"finalizers":["y"]},"spec":{"finalizers":["other"]}}`,
			`{"metadata":{"finalizers":["y","x"]},"spec":{"finalizers":["other"]}}`},
		{"Node addresses merge by type, podCIDRs as a set", "Node",
			`{"spec":{"podCIDRs":["10.244.0.0/24"]},"status":{"addresses":[{"type":"InternalIP","address":"10.0.0.1"}]}}`,
			`{"spec":{"podCIDRs":["fd00::/64"]},"status":{"addresses":[{"type":"Hostname","address":"n1"}]}}`,
			`{"spec":{"podCIDRs":["fd00::/64","10.244.0.0/24"]},"status":{"addresses":[{"type":"Hostname","address":"n1"},{"type":"InternalIP","address":"10.0.0.1"}]}}`},
		{"initializers pending merge by name", "ConfigMap",
			`{"metadata":{"initializers":{"pending":[{"name":"a.example.com"},{"name":"b.example.com"}]}}}`,
			`{"metadata":{"initializers":{"pending":[{"name":"a.example.com","$patch":"delete"}]}}}`,
			`{"metadata":{"initializers":{"pending":[{"name":"b.example.com"}]}}}`},
		{"CronJob pod template containers", "CronJob",
			`{"spec":{"jobTemplate":{"spec":{"template":{"spec":{"containers":[{"name":"a","image":"a:1"},{"name":"b","image":"b:1"}]}}}}}}`,
			`{"spec":{"jobTemplate":{"spec":{"template":{"spec":{"containers":[{"name":"a","image":"a:2"}]}}}}}}`,
			`{"spec":{"jobTemplate":{"spec":{"template":{"spec":{"containers":[{"name":"a","image":"a:2"},{"name":"b","image":"b:1"}]}}}}}}`},
		{"known kind: containers elsewhere are atomic", "ConfigMap",
			`{"data":{"k":"v"},"containers":[{"name":"a"},{"name":"b"}]}`,
			`{"containers":[{"name":"c"}]}`,
			`{"data":{"k":"v"},"containers":[{"name":"c"}]}`},
		{"unknown kind falls back to field names", "Widget",
			`{"spec":{"template":{"spec":{"containers":[{"name":"a","env":[{"name":"X","value":"1"}]},{"name":"b"}]}}},"items":[1,2]}`,
			`{"spec":{"template":{"spec":{"containers":[{"name":"a","env":[{"name":"Y","value":"2"}]}]}}},"items":[3]}`,
			`{"spec":{"template":{"spec":{"containers":[{"name":"a","env":[{"name":"Y","value":"2"},{"name":"X","value":"1"}]},{"name":"b"}]}}},"items":[3]}`},
		{"empty kind (scale subresource)", "",
			`{"spec":{"replicas":1},"status":{"replicas":1,"selector":"app=web"}}`,
			`{"spec":{"replicas":4}}`,
			`{"spec":{"replicas":4},"status":{"replicas":1,"selector":"app=web"}}`},
		{"type change replaces", "Pod",
			`{"spec":{"x":"s","y":{"a":1},"z":[1]}}`,
			`{"spec":{"x":{"b":2},"y":"t","z":{"c":null,"d":1}}}`,
			`{"spec":{"x":{"b":2},"y":"t","z":{"d":1}}}`},
		{"non-object original is replaced", "Pod", `[1,2]`, `{"a":1}`, `{"a":1}`},
		{"$patch replace at the root", "Pod", `{"a":1,"b":2}`, `{"$patch":"replace","c":3}`, `{"c":3}`},
		{"unknown $-keys are ordinary fields", "Widget", `{"schema":{"$ref":"a"}}`, `{"schema":{"$ref":"b"}}`, `{"schema":{"$ref":"b"}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Apply(StrategicMerge, []byte(tc.original), []byte(tc.patch), tc.kind)
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, string(out))
		})
	}
}

func TestStrategicMergeOrder(t *testing.T) {
	list := func(names ...string) string {
		var b strings.Builder
		for i, n := range names {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(`{"name":"` + n + `"}`)
		}
		return "[" + b.String() + "]"
	}
	tests := []struct {
		name        string
		orig, order []string
		patch       string
		want        []string
	}{
		{"patch order without $setElementOrder", []string{"a", "b", "c"}, nil, list("c", "a"), []string{"b", "c", "a"}},
		{"reverse", []string{"a", "b", "c"}, []string{"c", "b", "a"}, `[]`, []string{"c", "b", "a"}},
		{"new in the middle", []string{"a", "b", "c"}, []string{"a", "d", "b", "c"}, list("d"), []string{"a", "d", "b", "c"}},
		{"server-only element earlier than all named goes first", []string{"a", "b", "c"}, []string{"c", "a"}, list("a"), []string{"b", "c", "a"}},
		{"server-only before named", []string{"x", "a", "b"}, []string{"b", "a"}, list("b"), []string{"x", "b", "a"}},
		{"order names deleted element", []string{"a", "b"}, []string{"b", "a"}, `[{"name":"a","$patch":"delete"}]`, []string{"b"}},
		{"order names unknown element", []string{"a", "b"}, []string{"z", "b", "a"}, `[]`, []string{"b", "a"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			orig := `{"spec":{"containers":` + list(tc.orig...) + `}}`
			patch := `{"spec":{"$setElementOrder/containers":` + list(tc.order...) + `,"containers":` + tc.patch + `}}`
			if tc.order == nil {
				patch = `{"spec":{"containers":` + tc.patch + `}}`
			}
			out, err := Apply(StrategicMerge, []byte(orig), []byte(patch), "Pod")
			require.NoError(t, err)
			assert.JSONEq(t, `{"spec":{"containers":`+list(tc.want...)+`}}`, string(out))
		})
	}
}

func TestStrategicMergeInvalid(t *testing.T) {
	pod := `{"metadata":{"finalizers":["a"]},"spec":{"containers":[{"name":"a"},{"name":"b"}]}}`
	tests := []struct {
		name, patch, wantInMsg string
	}{
		{"element without merge key", `{"spec":{"containers":[{"image":"x"}]}}`, `spec.containers[0]: element has no merge key "name"`},
		{"null merge key", `{"spec":{"containers":[{"name":null}]}}`, `no merge key "name"`},
		{"delete without merge key", `{"spec":{"containers":[{"$patch":"delete"}]}}`, `no merge key "name"`},
		{"scalar in keyed list", `{"spec":{"containers":["a"]}}`, "elements must be objects, got string"},
		{"unknown $patch in map", `{"spec":{"$patch":"drop"}}`, `unknown $patch directive "drop"`},
		{"non-string $patch", `{"spec":{"$patch":1}}`, "unknown $patch directive number"},
		{"unknown $patch in list", `{"spec":{"containers":[{"name":"a","$patch":"zap"}]}}`, `unknown $patch directive "zap"`},
		{"$patch in atomic list", `{"spec":{"tolerations":[{"key":"a","$patch":"delete"}]}}`, "not merged by key"},
		{"object in a set", `{"metadata":{"finalizers":[{"a":1}]}}`, "list of primitives"},
		{"$retainKeys not a list", `{"spec":{"$retainKeys":"containers"}}`, "must be a list of field names"},
		{"$retainKeys with a number", `{"spec":{"$retainKeys":[1]}}`, "must be a list of field names"},
		{"field outside $retainKeys", `{"spec":{"$retainKeys":["a"],"containers":[]}}`, `field "containers" is in the patch but not in $retainKeys`},
		{"$setElementOrder not a list", `{"spec":{"$setElementOrder/containers":{}}}`, "must name a field and hold a list"},
		{"$setElementOrder without field", `{"spec":{"$setElementOrder/":[]}}`, "must name a field"},
		{"$setElementOrder on a map", `{"spec":{"$setElementOrder/x":[],"x":{}}}`, "not a list"},
		{"$setElementOrder misses a patch element", `{"spec":{"$setElementOrder/containers":[{"name":"a"}],"containers":[{"name":"b","image":"x"}]}}`, "not in $setElementOrder/containers"},
		{"$setElementOrder disagrees with the patch", `{"spec":{"$setElementOrder/containers":[{"name":"a"},{"name":"b"}],"containers":[{"name":"b"},{"name":"a"}]}}`, "not in the order"},
		{"$setElementOrder entry without key", `{"spec":{"$setElementOrder/containers":[{"image":"a"}]}}`, "does not identify an element"},
		{"$deleteFromPrimitiveList with an object", `{"metadata":{"$deleteFromPrimitiveList/finalizers":[{}]}}`, "only primitives"},
		{"$deleteFromPrimitiveList not a list", `{"metadata":{"$deleteFromPrimitiveList/finalizers":"a"}}`, "hold a list"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			orig := []byte(pod)
			out, err := Apply(StrategicMerge, orig, []byte(tc.patch), "Pod")
			require.ErrorIs(t, err, ErrInvalidPatch)
			assert.Nil(t, out)
			assert.Contains(t, err.Error(), tc.wantInMsg)
			assert.Equal(t, pod, string(orig))
		})
	}
}

func TestStrategicMergeLargeKeyedList(t *testing.T) {
	// Merging or deleting n patch elements in a list of n uses key indexes:
	// 20000 x 20000 would take minutes as nested loops.
	const n = 20000
	build := func(elem func(i int) string) string {
		var b strings.Builder
		b.WriteString(`{"spec":{"containers":[`)
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(elem(i))
		}
		b.WriteString(`]}}`)
		return b.String()
	}
	orig := build(func(i int) string { return `{"name":"c` + itoa(i) + `"}` })
	tests := []struct {
		name, patch, wantPrefix string
		wantCount               int
	}{
		{"merge all", build(func(i int) string { return `{"name":"c` + itoa(n-1-i) + `","image":"i"}` }),
			`{"spec":{"containers":[{"image":"i","name":"c19999"}`, n},
		{"delete all but one", build(func(i int) string {
			if i == 7 {
				return `{"name":"c7","image":"i"}`
			}
			return `{"name":"c` + itoa(i) + `","$patch":"delete"}`
		}), `{"spec":{"containers":[{"image":"i","name":"c7"}]}}`, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Apply(StrategicMerge, []byte(orig), []byte(tc.patch), "Pod")
			require.NoError(t, err)
			assert.Equal(t, tc.wantCount, strings.Count(string(out), `"image":"i"`))
			assert.True(t, strings.HasPrefix(string(out), tc.wantPrefix))
		})
	}
}

func TestStrategicMergeComparisonLimit(t *testing.T) {
	// 3000 ports that share port 80 but not the protocol, patched with 3000
	// more: every lookup scans every candidate, ~13M comparisons in all.
	const n = 3000
	ports := func(proto string) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(`{"port":80,"protocol":"` + proto + itoa(i) + `"}`)
		}
		return "[" + b.String() + "]"
	}
	orig := `{"spec":{"ports":` + ports("P") + `}}`
	patch := `{"spec":{"ports":` + ports("Q") + `}}`
	_, err := Apply(StrategicMerge, []byte(orig), []byte(patch), "Service")
	require.ErrorIs(t, err, ErrTooLarge)
	assert.Contains(t, err.Error(), "merging spec.ports: the patch needs more than")

	// Distinct ports are found through the index at no more than one
	// comparison each.
	var distinct strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			distinct.WriteString(",")
		}
		distinct.WriteString(`{"port":` + itoa(i+1) + `,"protocol":"TCP"}`)
	}
	out, err := Apply(StrategicMerge, []byte(orig), []byte(`{"spec":{"ports":[`+distinct.String()+`]}}`), "Service")
	require.NoError(t, err)
	assert.Equal(t, 2*n, strings.Count(string(out), `"port":`), "no protocol matches: all added")
}

func TestStrategicMergeRepeatedMerges(t *testing.T) {
	// 20000 patch elements naming the same container, each merging into its
	// 1000-element env list: 20M element visits, stopped by the budget
	// after about 2000 of them.
	var env, patch strings.Builder
	for i := 0; i < 1000; i++ {
		if i > 0 {
			env.WriteString(",")
		}
		env.WriteString(`{"name":"E` + itoa(i) + `"}`)
	}
	for i := 0; i < 20000; i++ {
		if i > 0 {
			patch.WriteString(",")
		}
		patch.WriteString(`{"name":"a","env":[{"name":"E1","value":"x"}]}`)
	}
	orig := `{"spec":{"containers":[{"name":"a","env":[` + env.String() + `]}]}}`
	_, err := Apply(StrategicMerge, []byte(orig), []byte(`{"spec":{"containers":[`+patch.String()+`]}}`), "Pod")
	require.ErrorIs(t, err, ErrTooLarge)
	assert.Contains(t, err.Error(), "spec.containers[].env")

	// The same list merged once is cheap.
	out, err := Apply(StrategicMerge, []byte(orig), []byte(`{"spec":{"containers":[{"name":"a","env":[{"name":"E1","value":"x"}]}]}}`), "Pod")
	require.NoError(t, err)
	assert.Contains(t, string(out), `{"name":"E1","value":"x"}`)
}

func itoa(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoa(i/10) + digits[i%10:i%10+1]
}
