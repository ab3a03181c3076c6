package policy

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGolden decodes objects as kube-apiserver writes them (unknown fields
// refused), encodes them again and expects the same document.
func TestGolden(t *testing.T) {
	tests := []struct {
		file string
		obj  any
	}{
		{"pdb.json", &PodDisruptionBudget{}},
		{"pdb-percent.json", &PodDisruptionBudget{}},
		{"eviction.json", &Eviction{}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", tt.file))
			require.NoError(t, err)
			dec := json.NewDecoder(bytes.NewReader(data))
			dec.DisallowUnknownFields()
			require.NoError(t, dec.Decode(tt.obj))
			out, err := json.Marshal(tt.obj)
			require.NoError(t, err)
			var want, got any
			require.NoError(t, json.Unmarshal(data, &want))
			require.NoError(t, json.Unmarshal(out, &got))
			assert.Equal(t, want, got)
		})
	}
}

// TestGoldenValidates checks that what Kubernetes stored validates.
func TestGoldenValidates(t *testing.T) {
	for _, file := range []string{"pdb.json", "pdb-percent.json"} {
		t.Run(file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", file))
			require.NoError(t, err)
			pdb := &PodDisruptionBudget{}
			require.NoError(t, json.Unmarshal(data, pdb))
			assert.Empty(t, ValidatePodDisruptionBudget(pdb))
			assert.Empty(t, ValidatePodDisruptionBudgetUpdate(pdb, pdb))
		})
	}
}
