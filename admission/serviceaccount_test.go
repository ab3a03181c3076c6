package admission

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
)

// accounts is an in-memory ServiceAccountGetter keyed "namespace/name".
type accounts struct {
	m   map[string]*core.ServiceAccount
	err error
}

func (a accounts) GetServiceAccount(_ context.Context, ns, name string) (*core.ServiceAccount, error) {
	if a.err != nil {
		return nil, a.err
	}
	if sa, ok := a.m[ns+"/"+name]; ok {
		return sa, nil
	}
	return nil, apierrors.NewNotFound(meta.GroupResource{Resource: "serviceaccount"}, name)
}

func TestServiceAccountAdmit(t *testing.T) {
	robot := &core.ServiceAccount{ObjectMeta: meta.ObjectMeta{Name: "robot", Namespace: "ns"},
		ImagePullSecrets: []core.LocalObjectReference{{Name: "regcred"}}}
	def := &core.ServiceAccount{ObjectMeta: meta.ObjectMeta{Name: "default", Namespace: "ns"}}
	tests := []struct {
		name     string
		accounts accounts
		pod      func(*core.Pod)
		wantSA   string
		wantPull []core.LocalObjectReference
		wantErr  string
	}{
		{"no account named: default", accounts{m: map[string]*core.ServiceAccount{"ns/default": def}}, nil, "default", nil, ""},
		{"default not created yet: admitted", accounts{}, nil, "default", nil, ""},
		{"named account's pull secrets copied", accounts{m: map[string]*core.ServiceAccount{"ns/robot": robot}},
			func(p *core.Pod) { p.Spec.ServiceAccountName = "robot" }, "robot", []core.LocalObjectReference{{Name: "regcred"}}, ""},
		{"the pod's own pull secrets win", accounts{m: map[string]*core.ServiceAccount{"ns/robot": robot}},
			func(p *core.Pod) {
				p.Spec.ServiceAccountName = "robot"
				p.Spec.ImagePullSecrets = []core.LocalObjectReference{{Name: "mine"}}
			}, "robot", []core.LocalObjectReference{{Name: "mine"}}, ""},
		{"deprecated serviceAccount field", accounts{m: map[string]*core.ServiceAccount{"ns/robot": robot}},
			func(p *core.Pod) { p.Spec.DeprecatedServiceAccount = "robot" }, "robot", []core.LocalObjectReference{{Name: "regcred"}}, ""},
		{"missing named account refused", accounts{}, func(p *core.Pod) { p.Spec.ServiceAccountName = "ghost" }, "", nil,
			`pods "p" is forbidden: error looking up service account ns/ghost: serviceaccount "ghost" not found`},
		{"lookup failure refused", accounts{err: errors.New("store down")}, nil, "", nil,
			`pods "p" is forbidden: error looking up service account ns/default: store down`},
		{"mirror pods are left alone", accounts{}, func(p *core.Pod) {
			p.Annotations = map[string]string{core.AnnotationMirrorPod: "x"}
		}, "", nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pod := &core.Pod{ObjectMeta: meta.ObjectMeta{Name: "p", Namespace: "ns"}}
			if tc.pod != nil {
				tc.pod(pod)
			}
			a := &Attributes{Operation: Create, Resource: meta.GroupVersionResource{Version: "v1", Resource: "pods"},
				Namespace: "ns", Name: "p", Object: pod}
			err := NewServiceAccount(tc.accounts).Admit(context.Background(), a)
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, tc.wantErr, err.Error())
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.wantSA, pod.Spec.ServiceAccountName)
			assert.Equal(t, tc.wantSA, pod.Spec.DeprecatedServiceAccount)
			assert.Equal(t, tc.wantPull, pod.Spec.ImagePullSecrets)
		})
	}
}
