package admission

import (
	"context"
	"errors"
	"slices"
	"strings"
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

func TestServiceAccountTokenVolume(t *testing.T) {
	no, yes := false, true
	robot := &core.ServiceAccount{ObjectMeta: meta.ObjectMeta{Name: "robot", Namespace: "ns"}, AutomountServiceAccountToken: &no}
	def := &core.ServiceAccount{ObjectMeta: meta.ObjectMeta{Name: "default", Namespace: "ns"}}
	accts := accounts{m: map[string]*core.ServiceAccount{"ns/robot": robot, "ns/default": def}}
	tests := []struct {
		name      string
		pod       func(*core.Pod)
		wantMount []bool // per init container, then container
		wantVols  int
	}{
		{"every container mounts it", nil, []bool{true, true, true}, 1},
		{"the pod opts out", func(p *core.Pod) { p.Spec.AutomountServiceAccountToken = &no }, []bool{false, false, false}, 0},
		{"the account opts out", func(p *core.Pod) { p.Spec.ServiceAccountName = "robot" }, []bool{false, false, false}, 0},
		{"the pod overrides its account", func(p *core.Pod) {
			p.Spec.ServiceAccountName, p.Spec.AutomountServiceAccountToken = "robot", &yes
		}, []bool{true, true, true}, 1},
		{"a container with its own mount there keeps it", func(p *core.Pod) {
			p.Spec.Containers[0].VolumeMounts = []core.VolumeMount{{Name: "mine", MountPath: TokenMountPath}}
		}, []bool{true, false, true}, 1},
		{"every container has its own: no volume", func(p *core.Pod) {
			for _, cs := range [][]core.Container{p.Spec.InitContainers, p.Spec.Containers} {
				for i := range cs {
					cs[i].VolumeMounts = []core.VolumeMount{{Name: "mine", MountPath: TokenMountPath}}
				}
			}
		}, []bool{false, false, false}, 0},
		{"an existing kube-api-access volume is reused", func(p *core.Pod) {
			p.Spec.Volumes = []core.Volume{{Name: TokenVolumePrefix + "bcdfg", VolumeSource: core.VolumeSource{Projected: TokenVolumeSource()}}}
		}, []bool{true, true, true}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pod := &core.Pod{ObjectMeta: meta.ObjectMeta{Name: "p", Namespace: "ns"}, Spec: core.PodSpec{
				InitContainers: []core.Container{{Name: "init"}}, Containers: []core.Container{{Name: "a"}, {Name: "b"}}}}
			if tc.pod != nil {
				tc.pod(pod)
			}
			a := &Attributes{Operation: Create, Resource: meta.GroupVersionResource{Version: "v1", Resource: "pods"},
				Namespace: "ns", Name: "p", Object: pod}
			require.NoError(t, NewServiceAccount(accts, WithTokenVolume()).Admit(context.Background(), a))
			var vol string
			for _, v := range pod.Spec.Volumes {
				if strings.HasPrefix(v.Name, TokenVolumePrefix) {
					vol = v.Name
					assert.Equal(t, TokenVolumeSource(), v.Projected)
				}
			}
			if tc.wantVols == 0 {
				assert.Empty(t, vol)
			} else {
				assert.Regexp(t, `^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$`, vol)
			}
			cs := append(append([]core.Container{}, pod.Spec.InitContainers...), pod.Spec.Containers...)
			for i, want := range tc.wantMount {
				got := slices.Contains(cs[i].VolumeMounts, core.VolumeMount{Name: vol, ReadOnly: true, MountPath: TokenMountPath})
				assert.Equal(t, want, got, "container %s", cs[i].Name)
			}
		})
	}
	// Without the option nothing is mounted.
	pod := &core.Pod{ObjectMeta: meta.ObjectMeta{Name: "p", Namespace: "ns"}, Spec: core.PodSpec{Containers: []core.Container{{Name: "a"}}}}
	a := &Attributes{Operation: Create, Resource: meta.GroupVersionResource{Version: "v1", Resource: "pods"}, Namespace: "ns", Name: "p", Object: pod}
	require.NoError(t, NewServiceAccount(accts).Admit(context.Background(), a))
	assert.Empty(t, pod.Spec.Volumes)
}
