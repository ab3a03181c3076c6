package main

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/admission"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/authn"
)

// pod is a valid pod in ns with labels and, when ports are given, those
// container ports.
func pod(ns string, labels map[string]string, ports ...core.ContainerPort) *core.Pod {
	p := &core.Pod{ObjectMeta: meta.ObjectMeta{Name: "web", Namespace: ns, Labels: labels},
		Spec: core.PodSpec{Containers: []core.Container{{Name: "web", Image: "orkit.local/hello:v1", Ports: ports}}}}
	core.DefaultPod(p)
	return p
}

func podAttrs(op admission.Operation, obj, old *core.Pod) *admission.Attributes {
	a := &admission.Attributes{Operation: op, Resource: podsGVR, Kind: meta.GroupVersionKind{Version: "v1", Kind: "Pod"},
		User: &authn.User{Name: "alice"}}
	if obj != nil {
		a.Object, a.Namespace, a.Name = obj, obj.Namespace, obj.Name
	}
	if old != nil {
		a.OldObject = old
	}
	return a
}

func TestRequireTeam(t *testing.T) {
	team := map[string]string{TeamLabel: "payments"}
	status := podAttrs(admission.Update, pod("default", nil), pod("default", team))
	status.Subresource = "status"
	configMap := &admission.Attributes{Operation: admission.Create, Resource: meta.GroupVersionResource{Version: "v1", Resource: "configmaps"},
		Object: &core.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "c", Namespace: "default"}}}
	tests := []struct {
		name    string
		attrs   *admission.Attributes
		wantErr bool
	}{
		{name: "create with team", attrs: podAttrs(admission.Create, pod("default", team), nil)},
		{name: "create without labels", attrs: podAttrs(admission.Create, pod("default", nil), nil), wantErr: true},
		{name: "create with empty team", attrs: podAttrs(admission.Create, pod("default", map[string]string{TeamLabel: ""}), nil), wantErr: true},
		{name: "create in kube-system", attrs: podAttrs(admission.Create, pod("kube-system", nil), nil)},
		{name: "update keeping team", attrs: podAttrs(admission.Update, pod("default", team), pod("default", team))},
		{name: "update removing team", attrs: podAttrs(admission.Update, pod("default", nil), pod("default", team)), wantErr: true},
		{name: "update of a pod that never had a team", attrs: podAttrs(admission.Update, pod("default", nil), pod("default", nil))},
		{name: "status subresource", attrs: status},
		{name: "other resource", attrs: configMap},
	}
	p := NewRequireTeam()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := p.Validate(context.Background(), tt.attrs)
			if !tt.wantErr {
				assert.NoError(t, err)
				return
			}
			assert.ErrorIs(t, err, ErrNoTeam)
		})
	}
	assert.True(t, p.Handles(admission.Create))
	assert.True(t, p.Handles(admission.Update))
	assert.False(t, p.Handles(admission.Delete))
}

func TestRequireTeamInChain(t *testing.T) {
	chain := &admission.Chain{Validators: []admission.Validator{NewRequireTeam()}}
	err := chain.Validate(context.Background(), podAttrs(admission.Create, pod("default", nil), nil))
	var rej *admission.Rejection
	require.ErrorAs(t, err, &rej)
	assert.Equal(t, "RequireTeam", rej.Plugin)
	assert.ErrorIs(t, err, ErrNoTeam)
}

func TestAdmittedBy(t *testing.T) {
	tests := []struct {
		name  string
		user  *authn.User
		annot map[string]string
		want  string
	}{
		{name: "sets the user", user: &authn.User{Name: "alice"}, want: "alice"},
		{name: "overwrites a client's value", user: &authn.User{Name: "alice"}, annot: map[string]string{AdmittedByAnnotation: "mallory", "keep": "me"}, want: "alice"},
		{name: "no user", want: "unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := pod("default", nil)
			p.Annotations = tt.annot
			a := podAttrs(admission.Create, p, nil)
			a.User = tt.user
			require.NoError(t, NewAdmittedBy().Admit(context.Background(), a))
			assert.Equal(t, tt.want, p.Annotations[AdmittedByAnnotation])
			if tt.annot != nil {
				assert.Equal(t, "me", p.Annotations["keep"])
			}
		})
	}
	cm := &core.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "c", Namespace: "default"}}
	require.NoError(t, NewAdmittedBy().Admit(context.Background(), &admission.Attributes{Operation: admission.Create,
		Resource: meta.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Object: cm}))
	assert.Empty(t, cm.Annotations)
}

func TestSidecar(t *testing.T) {
	tests := []struct {
		name  string
		ports []core.ContainerPort
		want  []string // container names after Initialize
	}{
		{name: "port 80 gets the sidecar", ports: []core.ContainerPort{{ContainerPort: 80}}, want: []string{"web", "proxy-sidecar"}},
		{name: "port 80 among others", ports: []core.ContainerPort{{ContainerPort: 8080}, {ContainerPort: 80, Protocol: core.ProtocolTCP}}, want: []string{"web", "proxy-sidecar"}},
		{name: "UDP 80 does not", ports: []core.ContainerPort{{ContainerPort: 80, Protocol: core.ProtocolUDP}}, want: []string{"web"}},
		{name: "port 8080 does not", ports: []core.ContainerPort{{ContainerPort: 8080}}, want: []string{"web"}},
		{name: "no ports", want: []string{"web"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := pod("default", nil, tt.ports...)
			s := NewSidecar()
			require.NoError(t, s.Initialize(context.Background(), p))
			require.NoError(t, s.Initialize(context.Background(), p), "idempotent")
			var names []string
			for _, c := range p.Spec.Containers {
				names = append(names, c.Name)
			}
			assert.Equal(t, tt.want, names)
			if len(tt.want) == 2 {
				assert.Equal(t, "proxy-sidecar", p.Annotations[InjectedAnnotation])
				assert.Equal(t, core.PullIfNotPresent, p.Spec.Containers[1].ImagePullPolicy, "defaulted")
				assert.Empty(t, core.ValidatePod(p))
			}
		})
	}
}

func TestSidecarRefusesInvalidResult(t *testing.T) {
	s := &Sidecar{Container: core.Container{Name: "Not_A_Name", Image: "orkit.local/pause:v1"}}
	p := pod("default", nil, core.ContainerPort{ContainerPort: 80})
	err := s.Initialize(context.Background(), p)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the pod with the sidecar is invalid")
	assert.Empty(t, p.Annotations[InjectedAnnotation])

	err = s.Initialize(context.Background(), &core.ConfigMap{})
	assert.ErrorContains(t, err, "expected a pod")
}

// A pod without a team label is refused by the chain the program
// installs; the error is what kubectl prints after "is forbidden:".
func ExampleRequireTeam() {
	chain := &admission.Chain{Mutators: []admission.Mutator{NewAdmittedBy()}, Validators: []admission.Validator{NewRequireTeam()}}
	p := &core.Pod{ObjectMeta: meta.ObjectMeta{Name: "web", Namespace: "default"}}
	a := &admission.Attributes{Operation: admission.Create, Resource: podsGVR, Object: p, User: &authn.User{Name: "alice"}}
	_ = chain.Admit(context.Background(), a)
	fmt.Println(p.Annotations[AdmittedByAnnotation])
	err := chain.Validate(context.Background(), a)
	fmt.Println(errors.Is(err, ErrNoTeam))
	fmt.Println(err)
	// Output:
	// alice
	// true
	// admission plugin "RequireTeam" denied the request: pods must carry a "team" label naming the team that owns them (for example --labels=team=payments)
}

// The initializer adds the sidecar to a pod exposing port 80.
func ExampleSidecar() {
	p := &core.Pod{ObjectMeta: meta.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: core.PodSpec{Containers: []core.Container{{Name: "web", Image: "orkit.local/hello:v1",
			Ports: []core.ContainerPort{{ContainerPort: 80}}}}}}
	core.DefaultPod(p)
	if err := NewSidecar().Initialize(context.Background(), p); err != nil {
		panic(err)
	}
	for _, c := range p.Spec.Containers {
		fmt.Println(c.Name, c.Image)
	}
	// Output:
	// web orkit.local/hello:v1
	// proxy-sidecar orkit.local/pause:v1
}
