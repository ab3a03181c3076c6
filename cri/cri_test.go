package cri_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/orkit/orkit/cri"
)

func TestPodSandboxConfigValidate(t *testing.T) {
	ok := cri.PodSandboxConfig{Metadata: cri.PodSandboxMetadata{Name: "p", UID: "u", Namespace: "default"}}
	tests := []struct {
		name    string
		mutate  func(*cri.PodSandboxConfig)
		wantErr bool
	}{
		{"valid", func(*cri.PodSandboxConfig) {}, false},
		{"no name", func(c *cri.PodSandboxConfig) { c.Metadata.Name = "" }, true},
		{"no uid", func(c *cri.PodSandboxConfig) { c.Metadata.UID = "" }, true},
		{"no namespace", func(c *cri.PodSandboxConfig) { c.Metadata.Namespace = "" }, true},
		{"bad port", func(c *cri.PodSandboxConfig) { c.PortMappings = []cri.PortMapping{{ContainerPort: 70000}} }, true},
		{"negative host port", func(c *cri.PodSandboxConfig) { c.PortMappings = []cri.PortMapping{{ContainerPort: 80, HostPort: -1}} }, true},
		{"network container", func(c *cri.PodSandboxConfig) {
			c.Linux.Security.NamespaceOptions.Network = cri.NamespaceContainer
		}, true},
		{"pid target no id", func(c *cri.PodSandboxConfig) { c.Linux.Security.NamespaceOptions.PID = cri.NamespaceTarget }, true},
		{"pid pod", func(c *cri.PodSandboxConfig) { c.Linux.Security.NamespaceOptions.PID = cri.NamespacePod }, false},
		{"bogus mode", func(c *cri.PodSandboxConfig) { c.Linux.Security.NamespaceOptions.IPC = "HOSTISH" }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ok
			tt.mutate(&c)
			err := c.Validate()
			if tt.wantErr {
				assert.ErrorIs(t, err, cri.ErrInvalidArgument)
			} else {
				assert.NoError(t, err)
			}
		})
	}
}

func TestContainerConfigValidate(t *testing.T) {
	tests := []struct {
		name    string
		cfg     cri.ContainerConfig
		wantErr bool
	}{
		{"valid", cri.ContainerConfig{Metadata: cri.ContainerMetadata{Name: "c"}, Image: cri.ImageSpec{Image: "x"}}, false},
		{"no name", cri.ContainerConfig{Image: cri.ImageSpec{Image: "x"}}, true},
		{"no image", cri.ContainerConfig{Metadata: cri.ContainerMetadata{Name: "c"}}, true},
		{"relative mount", cri.ContainerConfig{Metadata: cri.ContainerMetadata{Name: "c"}, Image: cri.ImageSpec{Image: "x"},
			Mounts: []cri.Mount{{ContainerPath: "data", HostPath: "/tmp"}}}, true},
		{"negative memory", cri.ContainerConfig{Metadata: cri.ContainerMetadata{Name: "c"}, Image: cri.ImageSpec{Image: "x"},
			Linux: cri.LinuxContainerConfig{Resources: &cri.LinuxContainerResources{MemoryLimitInBytes: -5}}}, true},
		{"oom adj", cri.ContainerConfig{Metadata: cri.ContainerMetadata{Name: "c"}, Image: cri.ImageSpec{Image: "x"},
			Linux: cri.LinuxContainerConfig{Resources: &cri.LinuxContainerResources{OOMScoreAdj: 1001}}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if tt.wantErr {
				assert.True(t, errors.Is(err, cri.ErrInvalidArgument), "err = %v", err)
			} else {
				assert.NoError(t, err)
			}
		})
	}
}

func TestFilters(t *testing.T) {
	c := cri.Container{ID: "a", PodSandboxID: "s", State: cri.ContainerRunning, Labels: map[string]string{"app": "web", "tier": "fe"}}
	tests := []struct {
		name string
		f    cri.ContainerFilter
		want bool
	}{
		{"empty", cri.ContainerFilter{}, true},
		{"id", cri.ContainerFilter{ID: "a"}, true},
		{"other id", cri.ContainerFilter{ID: "b"}, false},
		{"sandbox", cri.ContainerFilter{PodSandboxID: "s"}, true},
		{"state", cri.ContainerFilter{State: cri.ContainerExited}, false},
		{"labels", cri.ContainerFilter{LabelSelector: map[string]string{"app": "web"}}, true},
		{"labels mismatch", cri.ContainerFilter{LabelSelector: map[string]string{"app": "db"}}, false},
		{"label missing", cri.ContainerFilter{LabelSelector: map[string]string{"x": ""}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { assert.Equal(t, tt.want, tt.f.Matches(c)) })
	}
	s := cri.PodSandbox{ID: "s", State: cri.SandboxReady}
	assert.True(t, cri.PodSandboxFilter{State: cri.SandboxReady}.Matches(s))
	assert.False(t, cri.PodSandboxFilter{State: cri.SandboxNotReady}.Matches(s))
}

func TestNamespaceDefaults(t *testing.T) {
	var o cri.NamespaceOptions
	assert.Equal(t, cri.NamespacePod, o.NetworkMode())
	assert.Equal(t, cri.NamespacePod, o.IPCMode())
	assert.Equal(t, cri.NamespaceContainer, o.PIDMode())
	st := cri.RuntimeStatus{Conditions: []cri.RuntimeCondition{{Type: cri.RuntimeReady, Status: true}}}
	c, ok := st.Condition(cri.RuntimeReady)
	assert.True(t, ok && c.Status)
	_, ok = st.Condition(cri.NetworkReady)
	assert.False(t, ok)
}

func ExampleContainerFilter_Matches() {
	f := cri.ContainerFilter{State: cri.ContainerRunning, LabelSelector: map[string]string{"app": "web"}}
	fmt.Println(f.Matches(cri.Container{State: cri.ContainerRunning, Labels: map[string]string{"app": "web"}}))
	fmt.Println(f.Matches(cri.Container{State: cri.ContainerExited, Labels: map[string]string{"app": "web"}}))
	// Output:
	// true
	// false
}
