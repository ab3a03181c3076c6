package batch

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/field"
)

// The one field of the golden files not carried: Kubernetes prints a
// template's zero creationTimestamp as null, orkit's ObjectMeta omits it.
const (
	templateTimestamp    = "spec.template.metadata.creationTimestamp"
	jobTemplateTimestamp = "spec.jobTemplate.metadata.creationTimestamp"
	cjPodTemplateStamp   = "spec.jobTemplate.spec.template.metadata.creationTimestamp"
)

// readGolden decodes testdata/file into obj, re-encodes it and returns the
// expected and actual documents as generic JSON, with the uncarried paths
// removed from the expectation (each must exist there).
func readGolden(t *testing.T, file string, obj any, uncarried ...string) (want, got any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", file))
	require.NoError(t, err)
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
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

func deletePath(v any, path []string) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	if len(path) == 1 {
		_, ok := m[path[0]]
		delete(m, path[0])
		return ok
	}
	return deletePath(m[path[0]], path[1:])
}

func TestGolden(t *testing.T) {
	tests := []struct {
		file      string
		obj       any
		uncarried []string
	}{
		{"job.json", &Job{}, []string{templateTimestamp}},
		{"job-indexed.json", &Job{}, []string{templateTimestamp}},
		{"job-policies.json", &Job{}, []string{templateTimestamp}},
		{"cronjob.json", &CronJob{}, []string{jobTemplateTimestamp, cjPodTemplateStamp}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			want, got := readGolden(t, tt.file, tt.obj, tt.uncarried...)
			assert.Equal(t, want, got)
		})
	}
}

// TestGoldenIsDefaulted checks that defaulting what Kubernetes stored
// changes nothing and that it validates.
func TestGoldenIsDefaulted(t *testing.T) {
	job := func(o any) field.ErrorList {
		DefaultJob(o.(*Job))
		return ValidateJob(o.(*Job))
	}
	tests := []struct {
		file               string
		obj                any
		defaultAndValidate func(any) field.ErrorList
	}{
		{"job.json", &Job{}, job},
		{"job-indexed.json", &Job{}, job},
		{"job-policies.json", &Job{}, job},
		{"cronjob.json", &CronJob{}, func(o any) field.ErrorList {
			DefaultCronJob(o.(*CronJob))
			return ValidateCronJob(o.(*CronJob))
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
