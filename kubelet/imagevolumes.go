package kubelet

import (
	"context"
	"fmt"
	"time"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/cri"
)

// Image volumes (volumes[].image) as the kubelet runs them: nothing is set
// up on the node for the volume itself; before a container that mounts one
// starts, the volume's image is pulled per the volume's pullPolicy (the
// container images' pull path, credentials and back-off), and the
// container's CRI config asks the runtime to mount the image's content
// read-only (cri.Mount.Image, with the mount's subPath as ImageSubPath).
// The runtime releases the mount with the sandbox.

// imageVolume is an image volume a container mounts.
type imageVolume struct {
	name   string
	image  string
	policy core.PullPolicy
}

// imageVolumesOf lists the image volumes c mounts, each once, in the
// order of c's volumeMounts, with the pull policy defaulted as the API
// server defaults it.
func imageVolumesOf(pod *core.Pod, c *core.Container) []imageVolume {
	byName := map[string]*core.ImageVolumeSource{}
	for i := range pod.Spec.Volumes {
		if v := &pod.Spec.Volumes[i]; v.Image != nil {
			byName[v.Name] = v.Image
		}
	}
	var out []imageVolume
	seen := map[string]bool{}
	for _, vm := range c.VolumeMounts {
		iv := byName[vm.Name]
		if iv == nil || seen[vm.Name] {
			continue
		}
		seen[vm.Name] = true
		policy := iv.PullPolicy
		if policy == "" {
			policy = core.DefaultPullPolicy(iv.Reference)
		}
		out = append(out, imageVolume{name: vm.Name, image: iv.Reference, policy: policy})
	}
	return out
}

// ensureImageVolumes makes the images of c's image volumes present, each
// per its volume's pull policy, with Events on the pod (as the kubelet
// records them for image volumes). On failure c (state cs) waits with the
// pull's reason (ErrImagePull, ImagePullBackOff, ErrImageNeverPull); the
// result says when to retry.
func (k *Kubelet) ensureImageVolumes(ctx context.Context, pod *core.Pod, ps *podState, c *core.Container, cs *ctrState) (time.Duration, error) {
	event := func(typ, reason, format string, args ...any) { k.podEvent(pod, typ, reason, format, args...) }
	for _, iv := range imageVolumesOf(pod, c) {
		_, wait, err := k.ensureImageWith(ctx, pod, ps, cs, imagePull{image: iv.image, policy: iv.policy, event: event})
		if err != nil {
			return wait, fmt.Errorf("image volume %q: %w", iv.name, err)
		}
	}
	return 0, nil
}

// imageMount is the CRI mount of image volume iv at vm; subPath is vm's
// subPath (or expanded subPathExpr), a directory of the image. Image
// volumes are always read-only.
func imageMount(iv *core.ImageVolumeSource, vm core.VolumeMount, subPath string) cri.Mount {
	return cri.Mount{ContainerPath: vm.MountPath, Image: &cri.ImageSpec{Image: iv.Reference},
		ImageSubPath: subPath, Readonly: true}
}
