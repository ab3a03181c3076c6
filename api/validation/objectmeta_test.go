package validation

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
)

func ptr[T any](v T) *T { return &v }

// errorStrings renders a list for comparison; a composite bad value (long
// and unstable in %v) is shown as its type, "<[]string>".
func errorStrings(l field.ErrorList) []string {
	var out []string
	for _, e := range l {
		c := *e
		switch reflect.ValueOf(c.BadValue).Kind() {
		case reflect.Slice, reflect.Struct, reflect.Map:
			if _, ok := c.BadValue.(meta.Time); !ok {
				c.BadValue = fmt.Sprintf("<%T>", c.BadValue)
			}
		}
		out = append(out, c.Error())
	}
	return out
}

func validMeta() meta.ObjectMeta {
	return meta.ObjectMeta{Name: "web", Namespace: "default", Labels: map[string]string{"app": "web"},
		Annotations: map[string]string{"Example.com/Note": "anything at all"}, Finalizers: []string{"example.com/cleanup"},
		OwnerReferences: []meta.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-1", UID: "u1", Controller: ptr(true)}}}
}

func TestValidateObjectMeta(t *testing.T) {
	p := field.NewPath("metadata")
	tests := []struct {
		name       string
		mutate     func(m *meta.ObjectMeta)
		namespaced bool
		nameFn     NameFunc
		want       []string
	}{
		{name: "valid", namespaced: true},
		{name: "valid cluster-scoped", mutate: func(m *meta.ObjectMeta) { m.Namespace = "" }},
		{name: "generateName only", namespaced: true, mutate: func(m *meta.ObjectMeta) { m.Name = ""; m.GenerateName = "web-" },
			want: []string{"metadata.name: Required value: name or generateName is required"}},
		{name: "missing name", namespaced: true, mutate: func(m *meta.ObjectMeta) { m.Name = "" },
			want: []string{"metadata.name: Required value: name or generateName is required"}},
		{name: "bad name", namespaced: true, mutate: func(m *meta.ObjectMeta) { m.Name = "Web" },
			want: []string{`metadata.name: Invalid value: "Web": ` + msgSub}},
		{name: "bad generateName", namespaced: true, mutate: func(m *meta.ObjectMeta) { m.GenerateName = "-x-" },
			want: []string{`metadata.generateName: Invalid value: "-x-": ` + msgSub}},
		{name: "label name fn", namespaced: true, nameFn: NameIsDNSLabel, mutate: func(m *meta.ObjectMeta) { m.Name = "a.b" },
			want: []string{`metadata.name: Invalid value: "a.b": must not contain dots`}},
		{name: "missing namespace", namespaced: true, mutate: func(m *meta.ObjectMeta) { m.Namespace = "" },
			want: []string{"metadata.namespace: Required value"}},
		{name: "bad namespace", namespaced: true, mutate: func(m *meta.ObjectMeta) { m.Namespace = "a.b" },
			want: []string{`metadata.namespace: Invalid value: "a.b": must not contain dots`}},
		{name: "namespace on cluster-scoped", want: []string{"metadata.namespace: Forbidden: not allowed on this type"}},
		{name: "negative generation", namespaced: true, mutate: func(m *meta.ObjectMeta) { m.Generation = -1 },
			want: []string{"metadata.generation: Invalid value: -1: must be greater than or equal to 0"}},
		{name: "bad labels", namespaced: true, mutate: func(m *meta.ObjectMeta) { m.Labels = map[string]string{"b/": "x", "a": "-"} },
			want: []string{`metadata.labels: Invalid value: "-": ` + msgValue,
				`metadata.labels: Invalid value: "b/": name part must be non-empty`, `metadata.labels: Invalid value: "b/": ` + msgName}},
		{name: "bad annotation key", namespaced: true, mutate: func(m *meta.ObjectMeta) { m.Annotations = map[string]string{"a b": ""} },
			want: []string{`metadata.annotations: Invalid value: "a b": ` + msgName}},
		{name: "annotations too big", namespaced: true, mutate: func(m *meta.ObjectMeta) {
			m.Annotations = map[string]string{"a": strings.Repeat("x", 256*1024)}
		}, want: []string{"metadata.annotations: Too long: may not be more than 262144 bytes"}},
		{name: "annotations at the limit", namespaced: true, mutate: func(m *meta.ObjectMeta) {
			m.Annotations = map[string]string{"a": strings.Repeat("x", 256*1024-1)}
		}},
		{name: "owner reference fields", namespaced: true, mutate: func(m *meta.ObjectMeta) { m.OwnerReferences = []meta.OwnerReference{{}} },
			want: []string{`metadata.ownerReferences.apiVersion: Invalid value: "": version must not be empty`,
				`metadata.ownerReferences.kind: Invalid value: "": must not be empty`,
				`metadata.ownerReferences.name: Invalid value: "": must not be empty`,
				`metadata.ownerReferences.uid: Invalid value: "": must not be empty`}},
		{name: "bad owner apiVersion", namespaced: true, mutate: func(m *meta.ObjectMeta) { m.OwnerReferences[0].APIVersion = "a/b/c" },
			want: []string{`metadata.ownerReferences.apiVersion: Invalid value: "a/b/c": version must not be empty`}},
		{name: "two controllers", namespaced: true, mutate: func(m *meta.ObjectMeta) {
			m.OwnerReferences = append(m.OwnerReferences, meta.OwnerReference{APIVersion: "v1", Kind: "Node", Name: "n", UID: "u2", Controller: ptr(true)})
		}, want: []string{`metadata.ownerReferences: Invalid value: "<[]meta.OwnerReference>": Only one reference can have Controller set to true. Found "true" in references for ReplicaSet/web-1 and Node/n`}},
		{name: "event owner", namespaced: true, mutate: func(m *meta.ObjectMeta) {
			m.OwnerReferences = []meta.OwnerReference{{APIVersion: "v1", Kind: "Event", Name: "e", UID: "u"}}
		}, want: []string{`metadata.ownerReferences: Invalid value: "<meta.OwnerReference>": /v1, Kind=Event is disallowed from being an owner`}},
		{name: "bad finalizer", namespaced: true, mutate: func(m *meta.ObjectMeta) { m.Finalizers = []string{"a b"} },
			want: []string{`metadata.finalizers: Invalid value: "a b": ` + msgName}},
		{name: "conflicting finalizers", namespaced: true, mutate: func(m *meta.ObjectMeta) { m.Finalizers = []string{"orphan", "foregroundDeletion"} },
			want: []string{`metadata.finalizers: Invalid value: "<[]string>": finalizer orphan and foregroundDeletion cannot be both set`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := validMeta()
			if tt.mutate != nil {
				tt.mutate(&m)
			}
			got := errorStrings(ValidateObjectMeta(&m, tt.namespaced, tt.nameFn, p))
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestValidateObjectMetaUpdate(t *testing.T) {
	p := field.NewPath("metadata")
	created := meta.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	deleted := meta.NewTime(created.Add(time.Hour))
	old := validMeta()
	old.UID, old.CreationTimestamp, old.ResourceVersion = "u", created, "5"
	tests := []struct {
		name   string
		old    func(m *meta.ObjectMeta)
		mutate func(m *meta.ObjectMeta)
		want   []string
	}{
		{name: "unchanged"},
		{name: "labels and rv change", mutate: func(m *meta.ObjectMeta) { m.Labels = map[string]string{"x": "y"}; m.ResourceVersion = "6" }},
		{name: "same instant other zone", mutate: func(m *meta.ObjectMeta) {
			m.CreationTimestamp = meta.NewTime(created.In(time.FixedZone("x", 3600)))
		}},
		{name: "name", mutate: func(m *meta.ObjectMeta) { m.Name = "other" },
			want: []string{`metadata.name: Invalid value: "other": field is immutable`}},
		{name: "namespace", mutate: func(m *meta.ObjectMeta) { m.Namespace = "other" },
			want: []string{`metadata.namespace: Invalid value: "other": field is immutable`}},
		{name: "uid", mutate: func(m *meta.ObjectMeta) { m.UID = "v" },
			want: []string{`metadata.uid: Invalid value: "v": field is immutable`}},
		{name: "generateName", mutate: func(m *meta.ObjectMeta) { m.GenerateName = "x-" },
			want: []string{`metadata.generateName: Invalid value: "x-": field is immutable`}},
		{name: "creationTimestamp", mutate: func(m *meta.ObjectMeta) { m.CreationTimestamp = deleted },
			want: []string{`metadata.creationTimestamp: Invalid value: 2026-01-01 01:00:00 +0000 UTC: field is immutable`}},
		{name: "deletionTimestamp set", mutate: func(m *meta.ObjectMeta) { m.DeletionTimestamp = &deleted }},
		{name: "deletionTimestamp kept", old: func(m *meta.ObjectMeta) { m.DeletionTimestamp = &deleted },
			mutate: func(m *meta.ObjectMeta) { m.DeletionTimestamp = ptr(deleted); m.Finalizers = nil }},
		{name: "deletionTimestamp cleared", old: func(m *meta.ObjectMeta) { m.DeletionTimestamp = &deleted },
			mutate: func(m *meta.ObjectMeta) { m.DeletionTimestamp = nil },
			want:   []string{`metadata.deletionTimestamp: Invalid value: <nil>: field is immutable`}},
		{name: "deletionTimestamp moved", old: func(m *meta.ObjectMeta) { m.DeletionTimestamp = &deleted },
			mutate: func(m *meta.ObjectMeta) { m.DeletionTimestamp = &created },
			want:   []string{`metadata.deletionTimestamp: Invalid value: 2026-01-01 00:00:00 +0000 UTC: field is immutable`}},
		{name: "finalizer added while deleting", old: func(m *meta.ObjectMeta) { m.DeletionTimestamp = &deleted },
			mutate: func(m *meta.ObjectMeta) { m.Finalizers = append(m.Finalizers, "b.io/x", "a.io/y") },
			want:   []string{`metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"a.io/y", "b.io/x"}`}},
		{name: "finalizer added before deleting", mutate: func(m *meta.ObjectMeta) { m.Finalizers = append(m.Finalizers, "a.io/y") }},
		{name: "new labels validated", mutate: func(m *meta.ObjectMeta) { m.Labels = map[string]string{"a": "-"} },
			want: []string{`metadata.labels: Invalid value: "-": ` + msgValue}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := meta.DeepCopy(old)
			if tt.old != nil {
				tt.old(&o)
			}
			n := meta.DeepCopy(o)
			if tt.mutate != nil {
				tt.mutate(&n)
			}
			got := ValidateObjectMetaUpdate(&n, &o, p)
			assert.Equal(t, tt.want, errorStrings(got))
		})
	}
}

func TestValidateImmutableField(t *testing.T) {
	p := field.NewPath("spec", "selector")
	assert.Nil(t, ValidateImmutableField("a", "a", p))
	assert.Equal(t, []string{`spec.selector: Invalid value: "b": field is immutable`},
		errorStrings(ValidateImmutableField("b", "a", p)))
	sel := &meta.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	assert.Nil(t, ValidateImmutableField(sel, meta.DeepCopy(sel), p))
	assert.Len(t, ValidateImmutableField(&meta.LabelSelector{}, sel, p), 1)
}

func TestValidateNonnegativeField(t *testing.T) {
	p := field.NewPath("spec", "replicas")
	assert.Nil(t, ValidateNonnegativeField(0, p))
	assert.Nil(t, ValidateNonnegativeField(5, p))
	assert.Equal(t, []string{"spec.replicas: Invalid value: -1: must be greater than or equal to 0"},
		errorStrings(ValidateNonnegativeField(-1, p)))
}
