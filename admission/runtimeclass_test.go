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
	"github.com/orkit/orkit/api/node"
)

type fakeRuntimeClasses map[string]*node.RuntimeClass

func (f fakeRuntimeClasses) GetRuntimeClass(_ context.Context, name string) (*node.RuntimeClass, error) {
	if name == "broken" {
		return nil, errors.New("storage down")
	}
	if rc, ok := f[name]; ok {
		return rc, nil
	}
	return nil, apierrors.NewNotFound(meta.GroupResource{Group: "node.k8s.io", Resource: "runtimeclasses"}, name)
}

func TestRuntimeClass(t *testing.T) {
	gpu := core.Toleration{Key: "gpu", Operator: core.TolerationOpExists, Effect: core.TaintEffectNoSchedule}
	classes := fakeRuntimeClasses{
		"kata": {ObjectMeta: meta.ObjectMeta{Name: "kata"}, Handler: "kata",
			Overhead:   &node.Overhead{PodFixed: rl("cpu", "250m", "memory", "120Mi")},
			Scheduling: &node.Scheduling{NodeSelector: map[string]string{"runtime": "kata"}, Tolerations: []core.Toleration{gpu}}},
		"plain": {ObjectMeta: meta.ObjectMeta{Name: "plain"}, Handler: "runc"},
	}
	p := NewRuntimeClass(classes)
	name := func(s string) *string { return &s }
	tests := []struct {
		name    string
		mutate  func(*core.Pod)
		want    func(*testing.T, *core.Pod)
		wantErr string
	}{
		{name: "no class: untouched", mutate: func(*core.Pod) {}, want: func(t *testing.T, pod *core.Pod) {
			assert.Nil(t, pod.Spec.Overhead)
			assert.Nil(t, pod.Spec.NodeSelector)
		}},
		{name: "overhead and scheduling applied", mutate: func(pod *core.Pod) {
			pod.Spec.RuntimeClassName = name("kata")
			pod.Spec.NodeSelector = map[string]string{"zone": "a"}
			pod.Spec.Tolerations = []core.Toleration{gpu}
		}, want: func(t *testing.T, pod *core.Pod) {
			assertRL(t, rl("cpu", "250m", "memory", "120Mi"), pod.Spec.Overhead)
			assert.Equal(t, map[string]string{"zone": "a", "runtime": "kata"}, pod.Spec.NodeSelector)
			assert.Equal(t, []core.Toleration{gpu}, pod.Spec.Tolerations, "a toleration the pod has is not added twice")
		}},
		{name: "matching overhead accepted", mutate: func(pod *core.Pod) {
			pod.Spec.RuntimeClassName, pod.Spec.Overhead = name("kata"), rl("memory", "120Mi", "cpu", "0.25")
		}, want: func(t *testing.T, pod *core.Pod) {
			assertRL(t, rl("cpu", "250m", "memory", "120Mi"), pod.Spec.Overhead)
		}},
		{name: "class without overhead or scheduling", mutate: func(pod *core.Pod) { pod.Spec.RuntimeClassName = name("plain") },
			want: func(t *testing.T, pod *core.Pod) { assert.Nil(t, pod.Spec.Overhead) }},
		{name: "unknown class", mutate: func(pod *core.Pod) { pod.Spec.RuntimeClassName = name("gvisor") },
			wantErr: `pods "web" is forbidden: pod rejected: RuntimeClass "gvisor" not found`},
		{name: "lookup fails", mutate: func(pod *core.Pod) { pod.Spec.RuntimeClassName = name("broken") },
			wantErr: `Internal error occurred: get runtimeclass "broken": storage down`},
		{name: "other overhead", mutate: func(pod *core.Pod) {
			pod.Spec.RuntimeClassName, pod.Spec.Overhead = name("kata"), rl("cpu", "1")
		}, wantErr: `pods "web" is forbidden: pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead`},
		{name: "overhead without a class", mutate: func(pod *core.Pod) { pod.Spec.Overhead = rl("cpu", "1") },
			wantErr: `pods "web" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead`},
		{name: "overhead with a class that defines none", mutate: func(pod *core.Pod) {
			pod.Spec.RuntimeClassName, pod.Spec.Overhead = name("plain"), rl("cpu", "1")
		}, wantErr: `pods "web" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead`},
		{name: "node selector conflict", mutate: func(pod *core.Pod) {
			pod.Spec.RuntimeClassName, pod.Spec.NodeSelector = name("kata"), map[string]string{"runtime": "runc"}
		}, wantErr: `pods "web" is forbidden: conflict: runtimeClass.scheduling.nodeSelector[runtime] = kata; pod.spec.nodeSelector[runtime] = runc`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := pod("default", "web", container("c", nil, nil))
			tt.mutate(pod)
			a := attrs(Create, "pods", "default", "web", pod)
			err := p.Admit(context.Background(), a)
			if err == nil {
				err = p.Validate(context.Background(), a)
			}
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, tt.wantErr, apierrors.FromError(err).Message)
				return
			}
			require.NoError(t, err)
			tt.want(t, pod)
		})
	}
	// Updates, subresources and other resources pass.
	upd := pod("default", "web", container("c", nil, nil))
	upd.Spec.Overhead = rl("cpu", "1")
	require.NoError(t, p.Validate(context.Background(), attrs(Update, "pods", "default", "web", upd)))
	st := attrs(Create, "pods", "default", "web", upd)
	st.Subresource = "status"
	require.NoError(t, p.Validate(context.Background(), st))
}
