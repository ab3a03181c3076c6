package storagemigration

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
)

// TestGolden: a kube-formatted migration decodes, validates and encodes
// back to the same JSON.
func TestGolden(t *testing.T) {
	data, err := os.ReadFile("testdata/storageversionmigration.json")
	require.NoError(t, err)
	var svm StorageVersionMigration
	require.NoError(t, json.Unmarshal(data, &svm))
	assert.Empty(t, ValidateStorageVersionMigration(&svm))
	assert.Empty(t, ValidateStorageVersionMigrationUpdate(&svm, &svm))
	out, err := json.Marshal(&svm)
	require.NoError(t, err)
	assert.JSONEq(t, string(data), string(out))
}

func messages(errs field.ErrorList) string {
	var s []string
	for _, e := range errs {
		s = append(s, e.Error())
	}
	return strings.Join(s, "\n")
}

func TestValidateStorageVersionMigration(t *testing.T) {
	tests := []struct {
		name string
		gr   GroupResource
		want []string
	}{
		{"core", GroupResource{Resource: "configmaps"}, nil},
		{"grouped", GroupResource{Group: "apps", Resource: "deployments"}, nil},
		{"no resource", GroupResource{Group: "apps"}, []string{"spec.resource.resource: Required value: resource is required to be set"}},
		{"bad resource", GroupResource{Resource: "Config_Maps"}, []string{`spec.resource.resource: Invalid value: "Config_Maps"`}},
		{"bad group", GroupResource{Group: "Apps!", Resource: "deployments"}, []string{`spec.resource.group: Invalid value: "Apps!"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := ValidateStorageVersionMigration(&StorageVersionMigration{ObjectMeta: meta.ObjectMeta{Name: "m"}, Spec: StorageVersionMigrationSpec{Resource: tt.gr}})
			require.Len(t, errs, len(tt.want), messages(errs))
			for _, w := range tt.want {
				assert.Contains(t, messages(errs), w)
			}
		})
	}
}

func cond(t MigrationConditionType, s meta.ConditionStatus) meta.Condition {
	return meta.Condition{Type: string(t), Status: s, Reason: "Test", LastTransitionTime: meta.NewTime(time.Unix(1, 0))}
}

// TestValidateUpdate: the spec and a recorded resourceVersion are
// immutable; conditions are well-formed; Succeeded and Failed are final
// and exclusive.
func TestValidateUpdate(t *testing.T) {
	base := func(rv string, cs ...meta.Condition) *StorageVersionMigration {
		return &StorageVersionMigration{ObjectMeta: meta.ObjectMeta{Name: "m", ResourceVersion: "5"},
			Spec:   StorageVersionMigrationSpec{Resource: GroupResource{Resource: "secrets"}},
			Status: StorageVersionMigrationStatus{ResourceVersion: rv, Conditions: cs}}
	}
	tests := []struct {
		name     string
		old, new *StorageVersionMigration
		want     []string
	}{
		{"running to succeeded", base("7", cond(MigrationRunning, meta.ConditionTrue)),
			base("7", cond(MigrationRunning, meta.ConditionTrue), cond(MigrationSucceeded, meta.ConditionTrue)), nil},
		{"spec changed", base(""), func() *StorageVersionMigration {
			n := base("")
			n.Spec.Resource.Resource = "configmaps"
			return n
		}(), []string{"spec: Invalid value"}},
		{"resourceVersion changed", base("7"), base("8"), []string{`status.resourceVersion: Invalid value: "8": field is immutable`}},
		{"both final", base("7"), base("7", cond(MigrationSucceeded, meta.ConditionTrue), cond(MigrationFailed, meta.ConditionTrue)),
			[]string{"Both success and failed conditions cannot be true at the same time"}},
		{"success taken back", base("7", cond(MigrationSucceeded, meta.ConditionTrue)), base("7"),
			[]string{"Success condition cannot be set to false once it is true"}},
		{"failure taken back", base("7", cond(MigrationFailed, meta.ConditionTrue)), base("7", cond(MigrationFailed, meta.ConditionFalse)),
			[]string{"Failed condition cannot be set to false once it is true"}},
		{"malformed condition", base(""), base("", meta.Condition{Type: "Running", Status: "Maybe", Reason: "not a reason!"}),
			[]string{`status.conditions[0].status: Unsupported value: "Maybe"`, "status.conditions[0].lastTransitionTime: Required value",
				`status.conditions[0].reason: Invalid value: "not a reason!"`}},
		{"duplicate condition", base(""), base("", cond(MigrationRunning, meta.ConditionTrue), cond(MigrationRunning, meta.ConditionTrue)),
			[]string{`status.conditions[1].type: Duplicate value: "Running"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := ValidateStorageVersionMigrationUpdate(tt.new, tt.old)
			require.Len(t, errs, len(tt.want), messages(errs))
			for _, w := range tt.want {
				assert.Contains(t, messages(errs), w)
			}
		})
	}
}

// TestSetCondition: a condition is added, replaced when it changed (its
// transition time kept while the status stays), and left alone otherwise.
func TestSetCondition(t *testing.T) {
	var st StorageVersionMigrationStatus
	c := cond(MigrationRunning, meta.ConditionTrue)
	assert.True(t, st.SetCondition(c))
	assert.False(t, st.SetCondition(c))
	later := c
	later.Message, later.LastTransitionTime = "progress", meta.NewTime(time.Unix(99, 0))
	assert.True(t, st.SetCondition(later))
	assert.Equal(t, "progress", st.Conditions[0].Message)
	assert.Equal(t, time.Unix(1, 0), st.Conditions[0].LastTransitionTime.Time, "status unchanged: transition time kept")
	assert.True(t, st.IsTrue(MigrationRunning))
	assert.False(t, st.IsTrue(MigrationSucceeded))
	assert.Nil(t, st.Condition(MigrationFailed))
}
