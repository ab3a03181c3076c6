package coordination

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheme"
)

func TestGolden(t *testing.T) {
	for _, file := range []string{"lease-node.json", "lease-leader.json"} {
		t.Run(file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", file))
			require.NoError(t, err)
			var l Lease
			require.NoError(t, json.Unmarshal(data, &l))
			assert.Empty(t, ValidateLease(&l))
			out, err := json.Marshal(&l)
			require.NoError(t, err)
			var want, got any
			require.NoError(t, json.Unmarshal(data, &want))
			require.NoError(t, json.Unmarshal(out, &got))
			assert.Equal(t, want, got)
		})
	}
}

func TestMicroTimePrecision(t *testing.T) {
	ts := meta.MicroTime{Time: time.Date(2024, 5, 1, 12, 0, 0, 123456000, time.UTC)}
	holder := "n"
	l := Lease{Spec: LeaseSpec{HolderIdentity: &holder, RenewTime: &ts}}
	out, err := json.Marshal(&l)
	require.NoError(t, err)
	assert.JSONEq(t, `{"metadata":{},"spec":{"holderIdentity":"n","renewTime":"2024-05-01T12:00:00.123456Z"}}`, string(out))
}

func TestValidateLeaseSpec(t *testing.T) {
	i32 := func(v int32) *int32 { return &v }
	tests := []struct {
		name string
		spec LeaseSpec
		want []string
	}{
		{"empty", LeaseSpec{}, nil},
		{"ok", LeaseSpec{LeaseDurationSeconds: i32(40), LeaseTransitions: i32(0)}, nil},
		{"zero duration", LeaseSpec{LeaseDurationSeconds: i32(0)},
			[]string{"spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0"}},
		{"negative transitions", LeaseSpec{LeaseTransitions: i32(-1)},
			[]string{"spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, e := range ValidateLeaseSpec(&tt.spec, field.NewPath("spec")) {
				got = append(got, e.Error())
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestRegister(t *testing.T) {
	s := scheme.New()
	Register(s)
	typ, ok := s.ByResource(meta.GroupVersionResource{Group: GroupName, Version: Version, Resource: "leases"})
	require.True(t, ok)
	assert.True(t, typ.Namespaced)
	data, err := os.ReadFile(filepath.Join("testdata", "lease-node.json"))
	require.NoError(t, err)
	obj, _, err := s.Decode(data)
	require.NoError(t, err)
	assert.Empty(t, typ.Validate(obj))
	assert.Empty(t, typ.ValidateUpdate(obj, obj))
}
