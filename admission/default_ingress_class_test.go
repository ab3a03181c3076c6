package admission

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/networking"
)

type fakeIngressClasses struct {
	list []*networking.IngressClass
	err  error
}

func (f fakeIngressClasses) ListIngressClasses(context.Context) ([]*networking.IngressClass, error) {
	return f.list, f.err
}

func ingressClass(name, isDefault string, created time.Time) *networking.IngressClass {
	ic := &networking.IngressClass{ObjectMeta: meta.ObjectMeta{Name: name, CreationTimestamp: meta.Time{Time: created}},
		Spec: networking.IngressClassSpec{Controller: "example.com/" + name}}
	if isDefault != "" {
		ic.Annotations = map[string]string{networking.AnnotationDefaultClass: isDefault}
	}
	return ic
}

func ingressAttrs(op Operation, sub string, obj meta.Object) *Attributes {
	return &Attributes{Operation: op, Resource: networking.GroupVersion().WithResource("ingresses"), Subresource: sub,
		Namespace: "default", Name: "web", Object: obj}
}

func TestDefaultIngressClass(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	str := func(s string) *string { return &s }
	nginx := ingressClass("nginx", "true", t0)
	tests := []struct {
		name    string
		classes fakeIngressClasses
		mutate  func(*networking.Ingress)
		attrs   func(*networking.Ingress) *Attributes
		want    *string
		wantErr string
	}{
		{name: "no classes: untouched"},
		{name: "no default class: untouched", classes: fakeIngressClasses{list: []*networking.IngressClass{ingressClass("slow", "", t0)}}},
		{name: "annotation not exactly true is no default", classes: fakeIngressClasses{list: []*networking.IngressClass{
			ingressClass("a", "True", t0), ingressClass("b", "yes", t0), ingressClass("c", "", t0)}}},
		{name: "default applied", want: str("nginx"),
			classes: fakeIngressClasses{list: []*networking.IngressClass{ingressClass("traefik", "false", t0), nginx}}},
		{name: "several defaults: the newest wins", want: str("new"), classes: fakeIngressClasses{list: []*networking.IngressClass{
			ingressClass("old", "true", t0), ingressClass("new", "true", t0.Add(time.Hour)), ingressClass("older", "true", t0.Add(-time.Hour))}}},
		{name: "several defaults created together: first by name", want: str("alpha"), classes: fakeIngressClasses{list: []*networking.IngressClass{
			ingressClass("beta", "true", t0), ingressClass("alpha", "true", t0)}}},
		{name: "explicit class kept", want: str("traefik"), mutate: func(i *networking.Ingress) { i.Spec.IngressClassName = str("traefik") },
			classes: fakeIngressClasses{list: []*networking.IngressClass{nginx}}},
		{name: "explicit empty class kept", want: str(""), mutate: func(i *networking.Ingress) { i.Spec.IngressClassName = str("") },
			classes: fakeIngressClasses{list: []*networking.IngressClass{nginx}}},
		{name: "deprecated class annotation kept", mutate: func(i *networking.Ingress) {
			i.Annotations = map[string]string{networking.AnnotationIngressClass: "traefik"}
		}, classes: fakeIngressClasses{list: []*networking.IngressClass{nginx}}},
		{name: "update left alone", classes: fakeIngressClasses{list: []*networking.IngressClass{nginx}},
			attrs: func(i *networking.Ingress) *Attributes { return ingressAttrs(Update, "", i) }},
		{name: "status subresource left alone", classes: fakeIngressClasses{list: []*networking.IngressClass{nginx}},
			attrs: func(i *networking.Ingress) *Attributes { return ingressAttrs(Create, "status", i) }},
		{name: "other group's ingresses left alone", classes: fakeIngressClasses{list: []*networking.IngressClass{nginx}},
			attrs: func(i *networking.Ingress) *Attributes {
				a := ingressAttrs(Create, "", i)
				a.Resource.Group = "extensions"
				return a
			}},
		{name: "lister fails", classes: fakeIngressClasses{err: errors.New("cache down")},
			wantErr: "Internal error occurred: list ingress classes: cache down"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewDefaultIngressClass(tt.classes)
			ing := &networking.Ingress{ObjectMeta: meta.ObjectMeta{Namespace: "default", Name: "web"}}
			if tt.mutate != nil {
				tt.mutate(ing)
			}
			a := ingressAttrs(Create, "", ing)
			if tt.attrs != nil {
				a = tt.attrs(ing)
			}
			err := p.Admit(context.Background(), a)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, tt.wantErr, apierrors.FromError(err).Message)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, ing.Spec.IngressClassName)
		})
	}
}

func TestDefaultIngressClassWrongType(t *testing.T) {
	p := NewDefaultIngressClass(fakeIngressClasses{})
	err := p.Admit(context.Background(), ingressAttrs(Create, "", &core.Pod{}))
	require.Error(t, err)
	st := apierrors.FromError(err)
	assert.Equal(t, int32(400), st.Code)
	assert.Contains(t, st.Message, "was marked with kind Ingress")
	assert.True(t, p.Handles(Create))
	assert.False(t, p.Handles(Delete))
	assert.Equal(t, DefaultIngressClassName, p.Name())
}
