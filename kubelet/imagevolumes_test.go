package kubelet

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/cri"
	"github.com/orkit/orkit/cri/fake"
)

func imageVol(name, ref string, policy core.PullPolicy) core.Volume {
	return core.Volume{Name: name, VolumeSource: core.VolumeSource{Image: &core.ImageVolumeSource{Reference: ref, PullPolicy: policy}}}
}

func TestImageVolumesOf(t *testing.T) {
	pod := &core.Pod{Spec: core.PodSpec{Volumes: []core.Volume{
		imageVol("kitten", "registry.k8s.io/e2e-test-images/kitten:1.8", core.PullAlways),
		imageVol("latest", "example.com/tools", ""),
		imageVol("pinned", "example.com/tools:v2", ""),
		imageVol("unused", "example.com/unused:v1", core.PullNever),
		{Name: "scratch", VolumeSource: core.VolumeSource{EmptyDir: &core.EmptyDirVolumeSource{}}},
	}}}
	tests := []struct {
		name   string
		mounts []core.VolumeMount
		want   []imageVolume
	}{
		{"no mounts", nil, nil},
		{"only other volumes", []core.VolumeMount{{Name: "scratch", MountPath: "/s"}}, nil},
		{"one image volume, pull policy as given", []core.VolumeMount{{Name: "kitten", MountPath: "/volume"}},
			[]imageVolume{{name: "kitten", image: "registry.k8s.io/e2e-test-images/kitten:1.8", policy: core.PullAlways}}},
		{"policy defaulted as the API server does", []core.VolumeMount{
			{Name: "latest", MountPath: "/a"}, {Name: "pinned", MountPath: "/b"}, {Name: "scratch", MountPath: "/c"}},
			[]imageVolume{{name: "latest", image: "example.com/tools", policy: core.PullAlways},
				{name: "pinned", image: "example.com/tools:v2", policy: core.PullIfNotPresent}}},
		{"mounted twice, pulled once", []core.VolumeMount{
			{Name: "kitten", MountPath: "/a"}, {Name: "kitten", MountPath: "/b", SubPath: "etc"}},
			[]imageVolume{{name: "kitten", image: "registry.k8s.io/e2e-test-images/kitten:1.8", policy: core.PullAlways}}},
		{"unknown volume name", []core.VolumeMount{{Name: "nope", MountPath: "/x"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &core.Container{Name: "c", VolumeMounts: tt.mounts}
			assert.Equal(t, tt.want, imageVolumesOf(pod, c))
		})
	}
}

func TestImageMount(t *testing.T) {
	iv := &core.ImageVolumeSource{Reference: "kitten:1.8", PullPolicy: core.PullAlways}
	got := imageMount(iv, core.VolumeMount{Name: "v", MountPath: "/volume", ReadOnly: false}, "etc")
	assert.Equal(t, cri.Mount{ContainerPath: "/volume", Image: &cri.ImageSpec{Image: "kitten:1.8"}, ImageSubPath: "etc", Readonly: true}, got,
		"image volumes are read-only even when the mount does not ask")
}

// TestFakeImageVolume runs pods with image volumes on cri/fake: the
// volume's image is pulled per its policy before the container starts and
// the container's config asks the runtime to mount it (subPath and
// subPathExpr honoured, read-only); pull failures hold the container
// with the pull's waiting reason.
func TestFakeImageVolume(t *testing.T) {
	tc := startCluster(t)
	root := t.TempDir()
	_, rt := tc.startFakeKubelet(t, "node-iv", func(c *Config) {
		c.RootDir = root
		c.Runtime = mustFake(t, fake.WithImages("orkit.local/hello:v1", "orkit.local/pause:v1", "example.com/present:v1"),
			fake.WithRegistry(func(ref string) bool { return strings.Contains(ref, "kitten") }))
	})
	ctx := context.Background()

	p := simplePod("iv", "node-iv")
	p.Spec.Volumes = []core.Volume{imageVol("volume", "registry.k8s.io/e2e-test-images/kitten:1.8", core.PullAlways)}
	p.Spec.Containers[0].Env = []core.EnvVar{{Name: "SUB", Value: "etc"}}
	p.Spec.Containers[0].VolumeMounts = []core.VolumeMount{
		{Name: "volume", MountPath: "/volume"},
		{Name: "volume", MountPath: "/etc-a", SubPath: "etc"},
		{Name: "volume", MountPath: "/etc-b", SubPathExpr: "$(SUB)"},
	}
	_, err := pods(tc.admin, "default").Create(ctx, p)
	require.NoError(t, err)
	got := waitPod(t, tc.admin, "default", "iv", 10*time.Second, "Running", running)
	assert.GreaterOrEqual(t, rt.Calls("PullImage"), 1, "pull policy Always pulls")
	_, err = rt.ImageStatus(ctx, cri.ImageSpec{Image: "registry.k8s.io/e2e-test-images/kitten:1.8"})
	require.NoError(t, err)
	ctrs, err := rt.ListContainers(ctx, cri.ContainerFilter{LabelSelector: map[string]string{labelPodUID: string(got.UID)}})
	require.NoError(t, err)
	require.Len(t, ctrs, 1)
	st, err := rt.ContainerStatus(ctx, ctrs[0].ID)
	require.NoError(t, err)
	var images []cri.Mount
	for _, m := range st.Mounts {
		if m.Image != nil {
			images = append(images, m)
		}
	}
	kitten := &cri.ImageSpec{Image: "registry.k8s.io/e2e-test-images/kitten:1.8"}
	assert.Equal(t, []cri.Mount{
		{ContainerPath: "/volume", Image: kitten, Readonly: true},
		{ContainerPath: "/etc-a", Image: kitten, ImageSubPath: "etc", Readonly: true},
		{ContainerPath: "/etc-b", Image: kitten, ImageSubPath: "etc", Readonly: true},
	}, images)

	// Failures hold the container with the pull's reason.
	tests := []struct {
		name, ref string
		policy    core.PullPolicy
		reason    string
	}{
		{"never and absent", "example.com/absent:v1", core.PullNever, ReasonErrImageNeverPull},
		{"not in the registry", "example.com/nothing:v1", core.PullAlways, ReasonErrImagePull},
		{"present, never pulled", "example.com/present:v1", core.PullNever, ""},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := "iv-bad-" + string(rune('a'+i))
			p := simplePod(name, "node-iv")
			p.Spec.Volumes = []core.Volume{imageVol("v", tt.ref, tt.policy)}
			p.Spec.Containers[0].VolumeMounts = []core.VolumeMount{{Name: "v", MountPath: "/v"}}
			_, err := pods(tc.admin, "default").Create(ctx, p)
			require.NoError(t, err)
			if tt.reason == "" {
				waitPod(t, tc.admin, "default", name, 10*time.Second, "Running", running)
				return
			}
			waitPod(t, tc.admin, "default", name, 10*time.Second, tt.reason, func(p *core.Pod) bool {
				return waitingReason(p) == tt.reason
			})
		})
	}
}

// TestRealImageVolume runs a pod with an image volume on a real node: the
// image's files are readable in the container (root and subPath), the
// mount is read-only, and deleting the pod leaves no mount behind.
func TestRealImageVolume(t *testing.T) {
	n := newRealNode(t, "real-iv")
	ctx := context.Background()
	p := helloPod("iv", "real-iv")
	p.Spec.Volumes = []core.Volume{imageVol("img", "orkit.local/hello:v1", core.PullIfNotPresent)}
	p.Spec.Containers[0].VolumeMounts = []core.VolumeMount{
		{Name: "img", MountPath: "/volume"},
		{Name: "img", MountPath: "/tools", SubPath: "bin"},
	}
	_, err := pods(n.tc.admin, "default").Create(ctx, p)
	require.NoError(t, err)
	got := waitPod(t, n.tc.admin, "default", "iv", 60*time.Second, "Running", running)

	assert.Contains(t, n.exec(t, got, "app", "/hello", "ls", "/volume"), "hello")
	assert.Contains(t, n.exec(t, got, "app", "/hello", "ls", "/tools"), "cat")
	var id string
	for _, cs := range got.Status.ContainerStatuses {
		id = strings.TrimPrefix(cs.ContainerID, "cri://")
	}
	res, err := n.rt.ExecSync(ctx, id, []string{"/hello", "write", "/volume/x", "y"}, 10*time.Second)
	require.NoError(t, err)
	assert.NotEqual(t, int32(0), res.ExitCode)
	assert.Contains(t, string(res.Stderr), "read-only file system")
	assert.NotEmpty(t, mountsUnder(filepath.Join(n.env.StateDir, "sandboxes")), "the image is mounted under the runtime's sandbox dir")

	require.NoError(t, pods(n.tc.admin, "default").Delete(ctx, "iv", nil))
	waitFor(t, 60*time.Second, "pod gone and its image mount released", func() bool {
		_, err := pods(n.tc.admin, "default").Get(ctx, "iv")
		return apierrors.IsNotFound(err) && len(mountsUnder(filepath.Join(n.env.StateDir, "sandboxes"))) == 0
	})
}
