package apiextensions

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/orkit/orkit/api/meta"
)

func TestAcceptNames(t *testing.T) {
	existing := validCRD()
	existing.Name = "bars.example.com"
	existing.Status.AcceptedNames = CustomResourceDefinitionNames{Plural: "bars", Singular: "bar", Kind: "Bar", ListKind: "BarList", ShortNames: []string{"b"}}
	other := &CustomResourceDefinition{Spec: CustomResourceDefinitionSpec{Group: "other.com"},
		Status: CustomResourceDefinitionStatus{AcceptedNames: CustomResourceDefinitionNames{Plural: "foos", Kind: "Foo"}}}

	tests := []struct {
		name       string
		names      CustomResourceDefinitionNames
		wantStatus meta.ConditionStatus
		wantReason string
		wantMsg    string
	}{
		{"free names (another group's do not count)", CustomResourceDefinitionNames{Plural: "foos", Singular: "foo", Kind: "Foo", ListKind: "FooList", ShortNames: []string{"f"}},
			meta.ConditionTrue, "NoConflicts", "no conflicts found"},
		{"plural taken", CustomResourceDefinitionNames{Plural: "bars", Singular: "foo", Kind: "Foo", ListKind: "FooList"},
			meta.ConditionFalse, "PluralConflict", `"bars" is already in use`},
		{"short name taken", CustomResourceDefinitionNames{Plural: "foos", Singular: "foo", Kind: "Foo", ListKind: "FooList", ShortNames: []string{"b", "bar"}},
			meta.ConditionFalse, "ShortNamesConflict", `["b" is already in use, "bar" is already in use]`},
		{"kind taken", CustomResourceDefinitionNames{Plural: "foos", Singular: "foo", Kind: "Bar", ListKind: "FooList"},
			meta.ConditionFalse, "KindConflict", `"Bar" is already in use`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			crd := validCRD()
			crd.Spec.Names = tt.names
			names, cond, est := AcceptNames(crd, []*CustomResourceDefinition{existing, other, crd})
			assert.Equal(t, tt.wantStatus, cond.Status)
			assert.Equal(t, tt.wantReason, cond.Reason)
			assert.Equal(t, tt.wantMsg, cond.Message)
			if tt.wantStatus == meta.ConditionTrue {
				assert.Equal(t, tt.names, names)
				assert.Equal(t, "Installing", est.Reason)
			} else {
				assert.Equal(t, "NotAccepted", est.Reason)
			}
		})
	}

	// a CRD keeps the names it already has even when another accepted them too.
	crd := validCRD()
	crd.Status.AcceptedNames = crd.Spec.Names
	crd.SetCondition(EstablishedCondition())
	_, cond, est := AcceptNames(crd, []*CustomResourceDefinition{crd})
	assert.Equal(t, meta.ConditionTrue, cond.Status)
	assert.Equal(t, meta.ConditionTrue, est.Status)
}
