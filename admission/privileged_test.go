package admission

import (
	"context"
	"net/http"
	"testing"

	"github.com/orkit/orkit/api/core"
	"github.com/stretchr/testify/require"
)

func TestPrivileged(t *testing.T) {
	yes := true
	priv := func(name string) core.Container {
		c := container(name, nil, nil)
		c.SecurityContext = &core.SecurityContext{Privileged: &yes}
		return c
	}
	caps := func(name string, add ...core.Capability) core.Container {
		c := container(name, nil, nil)
		c.SecurityContext = &core.SecurityContext{Capabilities: &core.Capabilities{Add: add}}
		return c
	}
	ports := func(name string, hostPorts ...int32) core.Container {
		c := container(name, nil, nil)
		for _, p := range hostPorts {
			c.Ports = append(c.Ports, core.ContainerPort{ContainerPort: p, HostPort: p})
		}
		return c
	}
	tests := []struct {
		name    string
		pod     *core.Pod
		wantMsg string
	}{
		{"plain", pod("ns", "web", container("app", nil, nil)), ""},
		{"default capabilities", pod("ns", "web", caps("app", "NET_BIND_SERVICE", "CHOWN")), ""},
		{"privileged", pod("ns", "web", priv("app")),
			`privileged (container "app" must not set securityContext.privileged=true)`},
		{"privileged init and app", func() *core.Pod {
			p := pod("ns", "web", priv("app"))
			p.Spec.InitContainers = []core.Container{priv("init")}
			return p
		}(), `privileged (containers "init", "app" must not set securityContext.privileged=true)`},
		{"capabilities", pod("ns", "web", caps("a", "NET_ADMIN"), caps("b", "SYS_ADMIN", "NET_ADMIN")),
			`non-default capabilities (containers "a", "b" must not include "NET_ADMIN", "SYS_ADMIN" in securityContext.capabilities.add)`},
		{"host ports", pod("ns", "web", ports("a", 80)), `hostPort (container "a" uses hostPort 80)`},
		{"several host ports", pod("ns", "web", ports("a", 80, 443), ports("b", 8080)),
			`hostPort (containers "a", "b" use hostPorts 80, 443, 8080)`},
		{"everything", func() *core.Pod {
			p := pod("ns", "web", priv("app"), caps("net", "NET_RAW"))
			p.Spec.HostNetwork, p.Spec.HostPID = true, true
			p.Spec.Volumes = []core.Volume{{Name: "root", VolumeSource: core.VolumeSource{HostPath: &core.HostPathVolumeSource{Path: "/"}}}}
			return p
		}(), `non-default capabilities (container "net" must not include "NET_RAW" in securityContext.capabilities.add), ` +
			`host namespaces (hostNetwork=true, hostPID=true), hostPath volumes (volume "root"), ` +
			`privileged (container "app" must not set securityContext.privileged=true)`},
	}
	p := NewPrivileged("kube-system")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := p.Validate(context.Background(), attrs(Create, "pods", "ns", "web", tt.pod))
			if tt.wantMsg == "" {
				require.NoError(t, err)
				return
			}
			requireStatus(t, err, http.StatusForbidden, `pods "web" is forbidden: violates PodSecurity "baseline:latest": `+tt.wantMsg)
			tt.pod.Namespace = "kube-system"
			require.NoError(t, p.Validate(context.Background(), attrs(Create, "pods", "kube-system", "web", tt.pod)), "exempt namespace")
		})
	}
	require.False(t, p.Handles(Update))
}
