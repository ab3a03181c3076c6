package core

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestValidateImageVolume checks image volumes (volumes[].image) as
// kube-apiserver validates them: a reference, a pull policy of the
// container image's values, one source only; mounts of them are ordinary
// mounts (subPath and subPathExpr allowed).
func TestValidateImageVolume(t *testing.T) {
	image := func(ref string, policy PullPolicy) func(*Pod) {
		return func(p *Pod) {
			p.Spec.Volumes[0].VolumeSource = VolumeSource{Image: &ImageVolumeSource{Reference: ref, PullPolicy: policy}}
		}
	}
	tests := []struct {
		name   string
		mutate func(*Pod)
		want   []string
	}{
		{"valid Always", image("registry.k8s.io/e2e-test-images/kitten:1.8", PullAlways), nil},
		{"valid IfNotPresent", image("kitten:1.8", PullIfNotPresent), nil},
		{"valid Never by digest", image("kitten@sha256:bc5eac5eafc581aeda3008b4b1f07ebba230de2f27d47767129a6a905c84f470", PullNever), nil},
		{"no reference", image("", PullAlways), []string{"spec.volumes[0].image.reference: Required value"}},
		{"no pull policy", image("kitten:1.8", ""), []string{"spec.volumes[0].image.pullPolicy: Required value"}},
		{"bad pull policy", image("kitten:1.8", "Sometimes"), []string{
			`spec.volumes[0].image.pullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"`}},
		{"nothing set", image("", ""), []string{
			"spec.volumes[0].image.reference: Required value", "spec.volumes[0].image.pullPolicy: Required value"}},
		{"with another source", func(p *Pod) {
			image("kitten:1.8", PullAlways)(p)
			p.Spec.Volumes[0].EmptyDir = &EmptyDirVolumeSource{}
		}, []string{"spec.volumes[0].image: Forbidden: may not specify more than 1 volume type"}},
		{"subPath mount", func(p *Pod) {
			image("kitten:1.8", PullAlways)(p)
			p.Spec.Containers[0].VolumeMounts[0].SubPath = "etc"
		}, nil},
		{"subPathExpr mount", func(p *Pod) {
			image("kitten:1.8", PullAlways)(p)
			p.Spec.Containers[0].VolumeMounts[0].SubPathExpr = "$(POD_NAME)"
		}, nil},
		{"subPath leaving the volume", func(p *Pod) {
			image("kitten:1.8", PullAlways)(p)
			p.Spec.Containers[0].VolumeMounts[0].SubPath = "../etc"
		}, []string{`spec.containers[0].volumeMounts[0].subPath: Invalid value: "../etc": must not contain '..'`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := validPod()
			tt.mutate(pod)
			assert.Equal(t, tt.want, errStrings(ValidatePod(pod)))
		})
	}
}

func TestDefaultImageVolumePullPolicy(t *testing.T) {
	tests := []struct {
		ref, policy PullPolicy
		want        PullPolicy
	}{
		{"kitten:1.8", "", PullIfNotPresent},
		{"kitten", "", PullAlways},
		{"kitten:latest", "", PullAlways},
		{"kitten@sha256:bc5eac5eafc581aeda3008b4b1f07ebba230de2f27d47767129a6a905c84f470", "", PullIfNotPresent},
		{"kitten", PullNever, PullNever},
		{"kitten:1.8", PullAlways, PullAlways},
	}
	for _, tt := range tests {
		t.Run(string(tt.ref)+"/"+string(tt.policy), func(t *testing.T) {
			v := Volume{Name: "v", VolumeSource: VolumeSource{Image: &ImageVolumeSource{Reference: string(tt.ref), PullPolicy: tt.policy}}}
			DefaultVolume(&v)
			assert.Equal(t, tt.want, v.Image.PullPolicy)
		})
	}
}
