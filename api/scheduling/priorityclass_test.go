package scheduling

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheme"
)

// As `kubectl get pc system-node-critical -o json` prints it.
const nodeCritical = `{
    "apiVersion": "scheduling.k8s.io/v1",
    "description": "Used for system critical pods that must not be moved from their current node.",
    "kind": "PriorityClass",
    "metadata": {
        "creationTimestamp": "2024-05-01T09:58:11Z",
        "generation": 1,
        "name": "system-node-critical",
        "resourceVersion": "81",
        "uid": "f1e2d3c4-b5a6-4978-8a9b-0c1d2e3f4a5b"
    },
    "preemptionPolicy": "PreemptLowerPriority",
    "value": 2000001000
}`

func TestJSON(t *testing.T) {
	var pc PriorityClass
	require.NoError(t, json.Unmarshal([]byte(nodeCritical), &pc))
	out, err := json.Marshal(&pc)
	require.NoError(t, err)
	assert.JSONEq(t, nodeCritical, string(out))
	assert.Empty(t, ValidatePriorityClass(&pc))
}

func messages(pc *PriorityClass) []string {
	var out []string
	for _, e := range ValidatePriorityClass(pc) {
		out = append(out, e.Error())
	}
	return out
}

func TestValidatePriorityClass(t *testing.T) {
	never := core.PreemptNever
	bogus := core.PreemptionPolicy("Sometimes")
	tests := []struct {
		name string
		pc   PriorityClass
		want []string
	}{
		{"user class", PriorityClass{ObjectMeta: meta.ObjectMeta{Name: "high"}, Value: 1000, PreemptionPolicy: &never}, nil},
		{"max user value", PriorityClass{ObjectMeta: meta.ObjectMeta{Name: "high"}, Value: HighestUserDefinablePriority}, nil},
		{"too high", PriorityClass{ObjectMeta: meta.ObjectMeta{Name: "high"}, Value: HighestUserDefinablePriority + 1},
			[]string{"value: Forbidden: maximum allowed value of a user defined priority is 1000000000"}},
		{"system class", PriorityClass{ObjectMeta: meta.ObjectMeta{Name: SystemClusterCritical}, Value: SystemCriticalPriority}, nil},
		{"system class wrong value", PriorityClass{ObjectMeta: meta.ObjectMeta{Name: SystemClusterCritical}, Value: 5},
			[]string{"metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: value of system-cluster-critical PriorityClass must be 2000000000"}},
		{"system class default", PriorityClass{ObjectMeta: meta.ObjectMeta{Name: SystemNodeCritical}, Value: SystemCriticalPriority + 1000, GlobalDefault: true},
			[]string{"metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: globalDefault of system-node-critical PriorityClass must be false"}},
		{"unknown system class", PriorityClass{ObjectMeta: meta.ObjectMeta{Name: "system-mine"}},
			[]string{"metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class"}},
		{"bad policy", PriorityClass{ObjectMeta: meta.ObjectMeta{Name: "x"}, PreemptionPolicy: &bogus},
			[]string{`preemptionPolicy: Unsupported value: "Sometimes": supported values: "PreemptLowerPriority", "Never"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, messages(&tt.pc))
		})
	}
}

func TestValidatePriorityClassUpdate(t *testing.T) {
	old := &PriorityClass{ObjectMeta: meta.ObjectMeta{Name: "high", ResourceVersion: "1"}, Value: 10}
	DefaultPriorityClass(old)
	upd := meta.DeepCopy(old)
	upd.Description = "now documented"
	assert.Empty(t, ValidatePriorityClassUpdate(upd, old))
	upd.Value = 11
	never := core.PreemptNever
	upd.PreemptionPolicy = &never
	errs := ValidatePriorityClassUpdate(upd, old)
	require.Len(t, errs, 2)
	assert.Equal(t, "value: Forbidden: may not be changed in an update.", errs[0].Error())
	assert.Equal(t, "preemptionPolicy", errs[1].Field)
}

func TestDefaultsAndSystemClasses(t *testing.T) {
	pc := &PriorityClass{}
	DefaultPriorityClass(pc)
	require.NotNil(t, pc.PreemptionPolicy)
	assert.Equal(t, core.PreemptLowerPriority, *pc.PreemptionPolicy)
	for _, sys := range SystemPriorityClasses() {
		assert.Empty(t, ValidatePriorityClass(sys), sys.Name)
	}
}

func TestRegister(t *testing.T) {
	s := scheme.New()
	Register(s)
	obj, typ, err := s.Decode([]byte(nodeCritical))
	require.NoError(t, err)
	assert.Equal(t, "priorityclasses", typ.Resource)
	assert.Equal(t, []string{"pc"}, typ.ShortNames)
	assert.False(t, typ.Namespaced)
	typ.Default(obj)
	assert.Empty(t, typ.Validate(obj))
	assert.Empty(t, typ.ValidateUpdate(obj, obj))
}
