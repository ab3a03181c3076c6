package admission

import (
	"context"
	"net/http"
	"testing"

	"github.com/orkit/orkit/api/core"
	"github.com/stretchr/testify/require"
)

func TestSecurityContextDeny(t *testing.T) {
	uid := int64(1000)
	withPod := func(sc *core.PodSecurityContext) *core.Pod {
		p := pod("ns", "web", container("app", nil, nil))
		p.Spec.SecurityContext = sc
		return p
	}
	withContainer := func(init bool, sc *core.SecurityContext) *core.Pod {
		p := pod("ns", "web", container("app", nil, nil))
		c := container("c", nil, nil)
		c.SecurityContext = sc
		if init {
			p.Spec.InitContainers = []core.Container{c}
		} else {
			p.Spec.Containers = append(p.Spec.Containers, c)
		}
		return p
	}
	tests := []struct {
		name    string
		op      Operation
		pod     *core.Pod
		wantMsg string
	}{
		{"plain pod", Create, pod("ns", "web", container("app", nil, nil)), ""},
		{"allowed pod fields", Create, withPod(&core.PodSecurityContext{RunAsNonRoot: new(bool)}), ""},
		{"allowed container fields", Create, withContainer(false, &core.SecurityContext{Privileged: new(bool)}), ""},
		{"pod supplementalGroups", Create, withPod(&core.PodSecurityContext{SupplementalGroups: []int64{1}}),
			"pod.Spec.SecurityContext.SupplementalGroups is forbidden"},
		{"pod seLinuxOptions", Create, withPod(&core.PodSecurityContext{SELinuxOptions: &core.SELinuxOptions{}}),
			"pod.Spec.SecurityContext.SELinuxOptions is forbidden"},
		{"pod runAsUser", Update, withPod(&core.PodSecurityContext{RunAsUser: &uid}),
			"pod.Spec.SecurityContext.RunAsUser is forbidden"},
		{"pod fsGroup", Create, withPod(&core.PodSecurityContext{FSGroup: &uid}),
			"pod.Spec.SecurityContext.FSGroup is forbidden"},
		{"container runAsUser", Create, withContainer(false, &core.SecurityContext{RunAsUser: &uid}),
			"SecurityContext.RunAsUser is forbidden"},
		{"init container seLinuxOptions", Create, withContainer(true, &core.SecurityContext{SELinuxOptions: &core.SELinuxOptions{}}),
			"SecurityContext.SELinuxOptions is forbidden"},
	}
	p := NewSecurityContextDeny()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.True(t, p.Handles(tt.op))
			err := p.Validate(context.Background(), attrs(tt.op, "pods", "ns", "web", tt.pod))
			if tt.wantMsg == "" {
				require.NoError(t, err)
				return
			}
			requireStatus(t, err, http.StatusForbidden, `pods "web" is forbidden: `+tt.wantMsg)
		})
	}
}

func TestSecurityContextDenyIgnores(t *testing.T) {
	uid := int64(0)
	p := NewSecurityContextDeny()
	bad := pod("ns", "web")
	bad.Spec.SecurityContext = &core.PodSecurityContext{RunAsUser: &uid}
	a := attrs(Update, "pods", "ns", "web", bad)
	a.Subresource = "status"
	require.NoError(t, p.Validate(context.Background(), a), "subresources pass")
	require.NoError(t, p.Validate(context.Background(), attrs(Create, "configmaps", "ns", "c", &core.ConfigMap{})))
	require.False(t, p.Handles(Delete))

	err := p.Validate(context.Background(), attrs(Create, "pods", "ns", "web", &core.ConfigMap{}))
	requireStatus(t, err, http.StatusBadRequest,
		"resource pods was marked with kind Pod but was unable to be converted: admission: object of the wrong type for its resource")
}
