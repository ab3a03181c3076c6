package core

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/resource"
)

func TestValidateResourceFieldRef(t *testing.T) {
	sel := func(container, res, div string) *ResourceFieldSelector {
		s := &ResourceFieldSelector{ContainerName: container, Resource: res}
		if div != "" {
			s.Divisor = resource.MustParse(div)
		}
		return s
	}
	const env = "spec.containers[0].env[0].valueFrom.resourceFieldRef"
	const vol = "spec.volumes[1].downwardAPI.items[0].resourceFieldRef"
	tests := []struct {
		name string
		env  *ResourceFieldSelector // in an env var of container "web"
		vol  *ResourceFieldSelector // in a downward API volume file
		want []string
	}{
		{name: "env without containerName", env: sel("", "limits.cpu", ""), want: nil},
		{name: "env zero divisor as client-go sends", env: sel("", "limits.memory", "0"), want: nil},
		{name: "env cpu divisor 1m", env: sel("web", "requests.cpu", "1m"), want: nil},
		{name: "env memory divisor 1Mi", env: sel("", "requests.memory", "1Mi"), want: nil},
		{name: "env ephemeral divisor 1Gi", env: sel("", "limits.ephemeral-storage", "1Gi"), want: nil},
		{name: "env hugepages divisor", env: sel("", "limits.hugepages-2Mi", "1Mi"), want: nil},
		{name: "env canonical divisor 1000m is 1", env: sel("", "limits.cpu", "1000m"), want: nil},
		{name: "env cpu divisor 1Mi", env: sel("", "limits.cpu", "1Mi"),
			want: []string{env + `.divisor: Invalid value: "limits.cpu": only divisor's values 1m and 1 are supported with the cpu resource`}},
		{name: "env memory divisor 2", env: sel("", "requests.memory", "2"),
			want: []string{env + `.divisor: Invalid value: "requests.memory": only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the memory resource`}},
		{name: "env ephemeral divisor 1m", env: sel("", "requests.ephemeral-storage", "1m"),
			want: []string{env + `.divisor: Invalid value: "requests.ephemeral-storage": only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the local ephemeral storage resource`}},
		{name: "env hugepages divisor 3", env: sel("", "requests.hugepages-1Gi", "3"),
			want: []string{env + `.divisor: Invalid value: "requests.hugepages-1Gi": only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the hugepages resource`}},
		{name: "env negative divisor", env: sel("", "limits.cpu", "-1"),
			want: []string{env + `.divisor: Invalid value: "limits.cpu": only divisor's values 1m and 1 are supported with the cpu resource`}},
		{name: "env resource missing", env: sel("", "", ""), want: []string{env + ".resource: Required value"}},
		{name: "env resource unknown", env: sel("", "limits.gpu", ""),
			want: []string{env + `.resource: Unsupported value: "limits.gpu": supported values: "limits.cpu", "limits.ephemeral-storage", "limits.memory", "requests.cpu", "requests.ephemeral-storage", "requests.memory"`}},
		{name: "volume with containerName and divisor", vol: sel("web", "limits.memory", "1Mi"), want: nil},
		{name: "volume zero divisor", vol: sel("web", "limits.cpu", "0"), want: nil},
		{name: "volume without containerName", vol: sel("", "limits.cpu", ""),
			want: []string{vol + ".containerName: Required value"}},
		{name: "volume without containerName, bad divisor", vol: sel("", "limits.cpu", "7"), want: []string{
			vol + ".containerName: Required value",
			vol + `.divisor: Invalid value: "limits.cpu": only divisor's values 1m and 1 are supported with the cpu resource`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := validPod()
			if tt.env != nil {
				pod.Spec.Containers[0].Env = []EnvVar{{Name: "V", ValueFrom: &EnvVarSource{ResourceFieldRef: tt.env}}}
			}
			if tt.vol != nil {
				pod.Spec.Volumes = append(pod.Spec.Volumes, Volume{Name: "info", VolumeSource: VolumeSource{
					DownwardAPI: &DownwardAPIVolumeSource{Items: []DownwardAPIVolumeFile{{Path: "v", ResourceFieldRef: tt.vol}}}}})
			}
			assert.Equal(t, tt.want, errStrings(ValidatePod(pod)))
		})
	}
}

// TestResourceFieldSelectorWire checks the divisor is always on the wire,
// as Kubernetes' non-pointer Quantity is: "0" when unset.
func TestResourceFieldSelectorWire(t *testing.T) {
	b, err := json.Marshal(ResourceFieldSelector{Resource: "limits.cpu"})
	require.NoError(t, err)
	assert.JSONEq(t, `{"resource":"limits.cpu","divisor":"0"}`, string(b))
	var s ResourceFieldSelector
	require.NoError(t, json.Unmarshal([]byte(`{"resource":"limits.memory","divisor":"1Mi"}`), &s))
	assert.Equal(t, "1Mi", s.Divisor.String())
	require.Error(t, json.Unmarshal([]byte(`{"resource":"limits.memory","divisor":"lots"}`), &s))
}
