package fieldmanager_test

import (
	"testing"

	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/apiserver/fieldmanager"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDecodeManagedFieldsErrors(t *testing.T) {
	ok := func(op string) meta.ManagedFieldsEntry {
		return meta.ManagedFieldsEntry{Manager: "m", Operation: op, APIVersion: "v1", FieldsType: "FieldsV1", FieldsV1: meta.RawJSON(`{"f:data":{}}`)}
	}
	tests := []struct {
		name    string
		entries []meta.ManagedFieldsEntry
		wantErr string
	}{
		{"apply and update", []meta.ManagedFieldsEntry{ok("Apply"), ok("Update")}, ""},
		{"unknown operation", []meta.ManagedFieldsEntry{ok("Patch")}, `operation "Patch"`},
		{"no fields type", []meta.ManagedFieldsEntry{{Manager: "m", Operation: "Apply"}}, `fieldsType ""`},
		{"malformed fieldsV1", []meta.ManagedFieldsEntry{{Manager: "m", Operation: "Apply", FieldsType: "FieldsV1", FieldsV1: meta.RawJSON(`{"f:a":{"k:{bad":{}}}`)}}, "fieldsV1"},
		{"duplicate manager", []meta.ManagedFieldsEntry{ok("Apply"), ok("Apply")}, "appears twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := fieldmanager.DecodeManagedFields(tt.entries)
			if tt.wantErr == "" {
				require.NoError(t, err)
				assert.Len(t, m.Fields, len(tt.entries))
				return
			}
			assert.ErrorIs(t, err, fieldmanager.ErrInvalidManagedFields)
			assert.ErrorContains(t, err, tt.wantErr)
		})
	}
}

func TestManagerKey(t *testing.T) {
	tests := []struct {
		name  string
		entry meta.ManagedFieldsEntry
		want  string
	}{
		{"applier drops apiVersion", meta.ManagedFieldsEntry{Manager: "kubectl", Operation: "Apply", APIVersion: "apps/v1"}, `{"manager":"kubectl","operation":"Apply"}`},
		{"updater keeps apiVersion", meta.ManagedFieldsEntry{Manager: "kubectl-edit", Operation: "Update", APIVersion: "v1"}, `{"manager":"kubectl-edit","operation":"Update","apiVersion":"v1"}`},
		{"subresource", meta.ManagedFieldsEntry{Manager: "kubelet", Operation: "Update", APIVersion: "v1", Subresource: "status", FieldsType: "FieldsV1"}, `{"manager":"kubelet","operation":"Update","apiVersion":"v1","subresource":"status"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { assert.Equal(t, tt.want, fieldmanager.ManagerKey(tt.entry)) })
	}
}
