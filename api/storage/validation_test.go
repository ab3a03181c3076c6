package storage

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

func validClass() *StorageClass {
	sc := &StorageClass{ObjectMeta: meta.ObjectMeta{Name: "fast"}, Provisioner: "orkit.io/local-path",
		Parameters: map[string]string{"k": "v"}}
	DefaultStorageClass(sc)
	return sc
}

func TestValidateStorageClass(t *testing.T) {
	later := VolumeBindingMode("Later")
	recycle := core.PersistentVolumeReclaimRecycle
	tests := []struct {
		name   string
		mutate func(*StorageClass)
		want   []string
	}{
		{name: "valid", mutate: func(*StorageClass) {}},
		{name: "no provisioner", mutate: func(sc *StorageClass) { sc.Provisioner = "" }, want: []string{"provisioner: Required value"}},
		{name: "bad provisioner", mutate: func(sc *StorageClass) { sc.Provisioner = "a b" },
			want: []string{`provisioner: Invalid value: "a b": name part must consist of alphanumeric characters`}},
		{name: "upper-case provisioner is fine", mutate: func(sc *StorageClass) { sc.Provisioner = "Example.com/NFS" }},
		{name: "bad name", mutate: func(sc *StorageClass) { sc.Name = "Fast_1" }, want: []string{`metadata.name: Invalid value: "Fast_1"`}},
		{name: "recycle", mutate: func(sc *StorageClass) { sc.ReclaimPolicy = &recycle },
			want: []string{`reclaimPolicy: Unsupported value: "Recycle": supported values: "Delete", "Retain"`}},
		{name: "unknown binding mode", mutate: func(sc *StorageClass) { sc.VolumeBindingMode = &later },
			want: []string{`volumeBindingMode: Unsupported value: "Later": supported values: "Immediate", "WaitForFirstConsumer"`}},
		{name: "no binding mode", mutate: func(sc *StorageClass) { sc.VolumeBindingMode = nil }, want: []string{"volumeBindingMode: Required value"}},
		{name: "empty parameter key", mutate: func(sc *StorageClass) { sc.Parameters = map[string]string{"": "x"} },
			want: []string{`parameters: Invalid value: "": field can not be empty.`}},
		{name: "oversized parameters", mutate: func(sc *StorageClass) { sc.Parameters = map[string]string{"k": strings.Repeat("x", 256<<10)} },
			want: []string{"parameters: Too long: may not be more than 262144 bytes"}},
		{name: "too many parameters", mutate: func(sc *StorageClass) {
			sc.Parameters = map[string]string{}
			for i := range 513 {
				sc.Parameters[strings.Repeat("k", i+1)] = ""
			}
		}, want: []string{"parameters: Too long: may not be more than 512"}},
		{name: "topology without requirements", mutate: func(sc *StorageClass) { sc.AllowedTopologies = []core.TopologySelectorTerm{{}} },
			want: []string{"allowedTopologies[0]: Required value: must have at least one label match expression"}},
		{name: "topology requirement without values", mutate: func(sc *StorageClass) {
			sc.AllowedTopologies = []core.TopologySelectorTerm{{MatchLabelExpressions: []core.TopologySelectorLabelRequirement{{Key: "zone"}}}}
		}, want: []string{"allowedTopologies[0].matchLabelExpressions[0].values: Required value: must specify as least one value"}},
		{name: "topology with duplicate values", mutate: func(sc *StorageClass) {
			sc.AllowedTopologies = []core.TopologySelectorTerm{{MatchLabelExpressions: []core.TopologySelectorLabelRequirement{{Key: "zone", Values: []string{"a", "a"}}}}}
		}, want: []string{`allowedTopologies[0].matchLabelExpressions[0].values[1]: Duplicate value: "a"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc := validClass()
			tt.mutate(sc)
			errs := ValidateStorageClass(sc)
			require.Len(t, errs, len(tt.want), "%v", errs)
			for i, want := range tt.want {
				assert.Contains(t, errs[i].Error(), want)
			}
		})
	}
}

func TestValidateStorageClassUpdate(t *testing.T) {
	retain := core.PersistentVolumeReclaimRetain
	wait := VolumeBindingWaitForFirstConsumer
	tests := []struct {
		name   string
		mutate func(*StorageClass)
		want   []string
	}{
		{name: "annotations may change", mutate: func(sc *StorageClass) { sc.Annotations = map[string]string{AnnotationDefaultClass: "true"} }},
		{name: "expansion may change", mutate: func(sc *StorageClass) { yes := true; sc.AllowVolumeExpansion = &yes }},
		{name: "provisioner", mutate: func(sc *StorageClass) { sc.Provisioner = "example.com/nfs" },
			want: []string{"provisioner: Forbidden: updates to provisioner are forbidden."}},
		{name: "parameters", mutate: func(sc *StorageClass) { sc.Parameters = nil },
			want: []string{"parameters: Forbidden: updates to parameters are forbidden."}},
		{name: "reclaim policy", mutate: func(sc *StorageClass) { sc.ReclaimPolicy = &retain },
			want: []string{"reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden."}},
		{name: "binding mode", mutate: func(sc *StorageClass) { sc.VolumeBindingMode = &wait },
			want: []string{`volumeBindingMode: Invalid value: "WaitForFirstConsumer": field is immutable`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := validClass()
			old.ResourceVersion = "1"
			sc := meta.DeepCopy(old)
			tt.mutate(sc)
			errs := ValidateStorageClassUpdate(sc, old)
			require.Len(t, errs, len(tt.want), "%v", errs)
			for i, want := range tt.want {
				assert.Contains(t, errs[i].Error(), want)
			}
		})
	}
}

// TestStorageClassJSON: the wire form is Kubernetes' storage/v1 (a
// kubectl-written class decodes, unknown-free, and encodes back the same).
func TestStorageClassJSON(t *testing.T) {
	in := `{"kind":"StorageClass","apiVersion":"storage.k8s.io/v1","metadata":{"name":"local-path","annotations":{"storageclass.kubernetes.io/is-default-class":"true"}},"provisioner":"orkit.io/local-path","parameters":{"a":"b"},"reclaimPolicy":"Delete","mountOptions":["ro"],"allowVolumeExpansion":false,"volumeBindingMode":"WaitForFirstConsumer","allowedTopologies":[{"matchLabelExpressions":[{"key":"kubernetes.io/hostname","values":["n1"]}]}]}`
	var sc StorageClass
	require.NoError(t, json.Unmarshal([]byte(in), &sc))
	assert.True(t, IsDefaultClass(&sc))
	assert.Equal(t, VolumeBindingWaitForFirstConsumer, BindingMode(&sc))
	out, err := json.Marshal(&sc)
	require.NoError(t, err)
	assert.JSONEq(t, in, string(out))
}

func TestDefaults(t *testing.T) {
	sc := &StorageClass{}
	assert.Equal(t, VolumeBindingImmediate, BindingMode(sc))
	assert.Equal(t, core.PersistentVolumeReclaimDelete, ReclaimPolicyOf(sc))
	DefaultStorageClass(sc)
	require.NotNil(t, sc.VolumeBindingMode)
	require.NotNil(t, sc.ReclaimPolicy)
	assert.Equal(t, VolumeBindingImmediate, *sc.VolumeBindingMode)
	assert.Equal(t, core.PersistentVolumeReclaimDelete, *sc.ReclaimPolicy)
	assert.False(t, IsDefaultClass(sc))
	sc.Annotations = map[string]string{AnnotationBetaDefaultClass: "true"}
	assert.True(t, IsDefaultClass(sc))
}

// FuzzValidateStorageClass: any decodable class is defaulted and
// validated (create and update) without panicking, and a class that
// passes re-validates the same after a JSON round trip.
func FuzzValidateStorageClass(f *testing.F) {
	f.Add([]byte(`{"metadata":{"name":"local-path"},"provisioner":"orkit.io/local-path","volumeBindingMode":"WaitForFirstConsumer"}`))
	f.Add([]byte(`{"metadata":{"name":"x"},"provisioner":"a/b","parameters":{"":""},"reclaimPolicy":"Recycle","allowedTopologies":[{}]}`))
	f.Add([]byte(`{"allowedTopologies":[{"matchLabelExpressions":[{"key":"","values":["a","a"]}]}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var sc StorageClass
		if json.Unmarshal(b, &sc) != nil {
			return
		}
		DefaultStorageClass(&sc)
		errs := ValidateStorageClass(&sc)
		_ = ValidateStorageClassUpdate(&sc, &sc)
		if len(errs) > 0 {
			return
		}
		out, err := json.Marshal(&sc)
		require.NoError(t, err)
		var back StorageClass
		require.NoError(t, json.Unmarshal(out, &back))
		assert.Empty(t, ValidateStorageClass(&back))
	})
}
