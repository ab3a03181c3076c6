package core

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/resource"
)

func ephemeralPod(ecs ...EphemeralContainer) *Pod {
	p := &Pod{ObjectMeta: meta.ObjectMeta{Name: "web", Namespace: "default", ResourceVersion: "1"},
		Spec: PodSpec{Containers: []Container{{Name: "app", Image: "orkit.local/hello:v1"}}, EphemeralContainers: ecs}}
	DefaultPod(p)
	return p
}

func debugger(name string) EphemeralContainer {
	return EphemeralContainer{Container: Container{Name: name, Image: "orkit.local/hello:v1", Stdin: true, TTY: true}, TargetContainerName: "app"}
}

func TestValidatePodEphemeralContainersUpdate(t *testing.T) {
	withPorts := debugger("d")
	withPorts.Ports = []ContainerPort{{ContainerPort: 80}}
	withProbe := debugger("d")
	withProbe.ReadinessProbe = &Probe{ProbeHandler: ProbeHandler{Exec: &ExecAction{Command: []string{"true"}}}}
	withResources := debugger("d")
	withResources.Resources.Limits = ResourceList{ResourceCPU: resource.MustParse("1")}
	badTarget := debugger("d")
	badTarget.TargetContainerName = "db"
	noImage := debugger("d")
	noImage.Image = ""
	changed := debugger("d1")
	changed.Image = "orkit.local/pause:v1"
	tests := []struct {
		name     string
		old, new *Pod
		want     []string
	}{
		{"add one", ephemeralPod(), ephemeralPod(debugger("d1")), nil},
		{"add a second", ephemeralPod(debugger("d1")), ephemeralPod(debugger("d1"), debugger("d2")), nil},
		{"name clash with a container", ephemeralPod(), ephemeralPod(debugger("app")), []string{`spec.ephemeralContainers[0].name: Duplicate value: "app"`}},
		{"ports", ephemeralPod(), ephemeralPod(withPorts), []string{"spec.ephemeralContainers[0].ports: Forbidden: cannot be set for an Ephemeral Container"}},
		{"probe", ephemeralPod(), ephemeralPod(withProbe), []string{"spec.ephemeralContainers[0].readinessProbe: Forbidden: cannot be set for an Ephemeral Container"}},
		{"resources", ephemeralPod(), ephemeralPod(withResources), []string{"spec.ephemeralContainers[0].resources: Forbidden: cannot be set for an Ephemeral Container"}},
		{"unknown target", ephemeralPod(), ephemeralPod(badTarget), []string{`spec.ephemeralContainers[0].targetContainerName: Not found: "db"`}},
		{"no image", ephemeralPod(), ephemeralPod(noImage), []string{"spec.ephemeralContainers[0].image: Required value"}},
		{"removed", ephemeralPod(debugger("d1")), ephemeralPod(), []string{"spec.ephemeralContainers: Forbidden: existing ephemeral containers \"d1\" may not be removed\n"}},
		{"changed", ephemeralPod(debugger("d1")), ephemeralPod(changed), []string{"spec.ephemeralContainers[d1]: Forbidden: existing ephemeral containers \"d1\" may not be changed\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, errStrings(ValidatePodEphemeralContainersUpdate(tt.new, tt.old)))
		})
	}
}

func TestEphemeralContainersOnCreateAndUpdate(t *testing.T) {
	assert.Equal(t, []string{"spec.ephemeralContainers: Forbidden: cannot be set on create"},
		errStrings(ValidatePodCreate(ephemeralPod(debugger("d1")))))
	errs := errStrings(ValidatePodUpdate(ephemeralPod(debugger("d1")), ephemeralPod()))
	if assert.Len(t, errs, 1) {
		assert.Contains(t, errs[0], "spec: Forbidden: pod updates may not change fields")
	}
}
