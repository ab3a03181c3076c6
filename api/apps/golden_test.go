package apps

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/field"
)

// templateTimestamp is the one field of the golden files not carried:
// Kubernetes prints a pod template's zero creationTimestamp as null, orkit's
// ObjectMeta omits it (omitzero). Both decode to the same zero value.
const templateTimestamp = "spec.template.metadata.creationTimestamp"

// readGolden decodes testdata/file into obj, re-encodes it and returns the
// expected and actual documents as generic JSON, with the uncarried paths
// removed from the expectation (each must exist there).
func readGolden(t *testing.T, file string, obj any, uncarried ...string) (want, got any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", file))
	require.NoError(t, err)
	dec := json.NewDecoder(strings.NewReader(string(data)))
	require.NoError(t, dec.Decode(obj))
	out, err := json.Marshal(obj)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &want))
	require.NoError(t, json.Unmarshal(out, &got))
	for _, p := range uncarried {
		require.True(t, deletePath(want, strings.Split(p, ".")), "uncarried field %s is not in %s", p, file)
	}
	return want, got
}

// deletePath removes the field at path (map keys and list indexes) from v.
func deletePath(v any, path []string) bool {
	switch x := v.(type) {
	case map[string]any:
		if len(path) == 1 {
			_, ok := x[path[0]]
			delete(x, path[0])
			return ok
		}
		return deletePath(x[path[0]], path[1:])
	case []any:
		i, err := strconv.Atoi(path[0])
		if err != nil || i < 0 || i >= len(x) || len(path) == 1 {
			return false
		}
		return deletePath(x[i], path[1:])
	}
	return false
}

func TestGolden(t *testing.T) {
	tests := []struct {
		file      string
		obj       any
		uncarried []string
	}{
		{"deployment.json", &Deployment{}, []string{templateTimestamp}},
		{"deployment-rollout.json", &Deployment{}, []string{templateTimestamp}},
		{"replicaset.json", &ReplicaSet{}, []string{templateTimestamp}},
		{"statefulset.json", &StatefulSet{}, []string{templateTimestamp,
			"spec.volumeClaimTemplates.0.metadata.creationTimestamp"}},
		{"daemonset.json", &DaemonSet{}, []string{templateTimestamp}},
		{"controllerrevision.json", &ControllerRevision{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			want, got := readGolden(t, tt.file, tt.obj, tt.uncarried...)
			assert.Equal(t, want, got)
		})
	}
}

// TestGoldenIsDefaulted checks that defaulting a real object changes
// nothing (what Kubernetes stored is already defaulted the same way) and
// that the object validates.
func TestGoldenIsDefaulted(t *testing.T) {
	deploy := func(o any) field.ErrorList {
		DefaultDeployment(o.(*Deployment))
		return ValidateDeployment(o.(*Deployment))
	}
	tests := []struct {
		file               string
		obj                any
		defaultAndValidate func(any) field.ErrorList
	}{
		{"deployment.json", &Deployment{}, deploy},
		{"deployment-rollout.json", &Deployment{}, deploy},
		{"replicaset.json", &ReplicaSet{}, func(o any) field.ErrorList {
			DefaultReplicaSet(o.(*ReplicaSet))
			return ValidateReplicaSet(o.(*ReplicaSet))
		}},
		{"statefulset.json", &StatefulSet{}, func(o any) field.ErrorList {
			DefaultStatefulSet(o.(*StatefulSet))
			return ValidateStatefulSet(o.(*StatefulSet))
		}},
		{"daemonset.json", &DaemonSet{}, func(o any) field.ErrorList {
			DefaultDaemonSet(o.(*DaemonSet))
			return ValidateDaemonSet(o.(*DaemonSet))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			_, before := readGolden(t, tt.file, tt.obj)
			errs := tt.defaultAndValidate(tt.obj)
			out, err := json.Marshal(tt.obj)
			require.NoError(t, err)
			var after any
			require.NoError(t, json.Unmarshal(out, &after))
			assert.Equal(t, before, after)
			assert.Empty(t, messages(errs))
		})
	}
}

func messages(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}
