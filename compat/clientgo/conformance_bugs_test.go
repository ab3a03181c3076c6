package clientgo_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/orkit/orkit/compat/internal/cluster"
)

// e2eClient is a clientset configured as the Kubernetes e2e framework
// configures its own: protobuf bodies.
func e2eClient(t *testing.T, c *cluster.Cluster) kubernetes.Interface {
	cfg := c.RESTConfig()
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	return kubernetes.NewForConfigOrDie(cfg)
}

// TestStrictFieldValidationWording sends the conformance suite's
// FieldValidation requests (typed objects) as it sends them and checks
// the errors carry kube-apiserver's words.
func TestStrictFieldValidationWording(t *testing.T) {
	c := cluster.Start(t, cluster.Options{})
	cs := e2eClient(t, c)
	ctx := context.Background()
	cases := []struct{ name, body, want string }{
		{"unknown and duplicate", `{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": {"name": "my-dep", "labels": {"app": "nginx"}},
		"spec": {
			"unknownField": "foo",
			"replicas": 2,
			"replicas": 3,
			"selector": {"matchLabels": {"app": "nginx"}},
			"template": {"metadata": {"labels": {"app": "nginx"}},
				"spec": {"containers": [{"name":  "nginx", "image": "nginx:latest"}]}}
		}}`, `strict decoding error: unknown field "spec.unknownField", duplicate field "spec.replicas"`},
		{"unknown metadata", `{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": {"name": "my-dep", "unknownMeta": "foo", "labels": {"app": "nginx"}},
		"spec": {
			"selector": {"matchLabels": {"app": "nginx"}},
			"template": {"metadata": {"labels": {"app": "nginx"}},
				"spec": {"containers": [{"name":  "nginx", "image": "nginx:latest"}]}}
		}}`, `strict decoding error: unknown field "metadata.unknownMeta"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := cs.CoreV1().RESTClient().Post().AbsPath("/apis/apps/v1").Namespace("default").
				Resource("deployments").Param("fieldManager", "field_validation_mgr").
				Param("fieldValidation", "Strict").Body([]byte(tc.body)).Do(ctx).Get()
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// TestDownwardAPIResourceFieldRef creates, as the conformance suite does
// through client-go, pods whose env vars select resources without a
// container name and whose volume files carry a divisor; client-go sends
// an unset divisor as "0".
func TestDownwardAPIResourceFieldRef(t *testing.T) {
	c := cluster.Start(t, cluster.Options{})
	cs := e2eClient(t, c)
	ctx := context.Background()
	res := corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m"), corev1.ResourceMemory: resource.MustParse("32Mi")},
		Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1250m"), corev1.ResourceMemory: resource.MustParse("64Mi")},
	}
	env := func(name, r string) corev1.EnvVar {
		return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{Resource: r}}}
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "downward"},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "client-container", Image: "busybox", Resources: res,
				Env:          []corev1.EnvVar{env("CPU_LIMIT", "limits.cpu"), env("MEMORY_REQUEST", "requests.memory")},
				VolumeMounts: []corev1.VolumeMount{{Name: "podinfo", MountPath: "/etc/podinfo"}}}},
			Volumes: []corev1.Volume{{Name: "podinfo", VolumeSource: corev1.VolumeSource{DownwardAPI: &corev1.DownwardAPIVolumeSource{
				Items: []corev1.DownwardAPIVolumeFile{{Path: "cpu_limit", ResourceFieldRef: &corev1.ResourceFieldSelector{
					ContainerName: "client-container", Resource: "limits.cpu", Divisor: resource.MustParse("1m")}}},
			}}}},
		},
	}
	created, err := cs.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{})
	require.NoError(t, err)
	ref := created.Spec.Containers[0].Env[0].ValueFrom.ResourceFieldRef
	assert.Equal(t, "", ref.ContainerName)
	assert.True(t, ref.Divisor.IsZero())
	assert.Equal(t, "1m", created.Spec.Volumes[0].DownwardAPI.Items[0].ResourceFieldRef.Divisor.String())

	// A volume file must still name its container, as kube-apiserver says.
	pod.Name = "no-container"
	pod.Spec.Volumes[0].DownwardAPI.Items[0].ResourceFieldRef.ContainerName = ""
	_, err = cs.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "spec.volumes[0].downwardAPI.items[0].resourceFieldRef.containerName: Required value")
}

// TestReplicationControllerAndPodTemplate drives the core/v1 kinds the
// conformance suite's ReplicationController and PodTemplate tests use
// through client-go with protobuf bodies: create, get, scale through the
// scale subresource, update the status, list, delete.
func TestReplicationControllerAndPodTemplate(t *testing.T) {
	c := cluster.Start(t, cluster.Options{})
	cs := e2eClient(t, c)
	ctx := context.Background()
	two := int32(2)
	tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"name": "rc-test"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "httpd", Image: "httpd"}}}}
	rc, err := cs.CoreV1().ReplicationControllers("default").Create(ctx, &corev1.ReplicationController{
		ObjectMeta: metav1.ObjectMeta{Name: "rc-test"},
		Spec:       corev1.ReplicationControllerSpec{Replicas: &two, Template: &tmpl},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"name": "rc-test"}, rc.Spec.Selector)
	assert.Equal(t, "Always", string(rc.Spec.Template.Spec.RestartPolicy))

	scale, err := cs.CoreV1().ReplicationControllers("default").GetScale(ctx, "rc-test", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, int32(2), scale.Spec.Replicas)
	scale.Spec.Replicas = 5
	_, err = cs.CoreV1().ReplicationControllers("default").UpdateScale(ctx, "rc-test", scale, metav1.UpdateOptions{})
	require.NoError(t, err)
	rc, err = cs.CoreV1().ReplicationControllers("default").Get(ctx, "rc-test", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, int32(5), *rc.Spec.Replicas)
	assert.Equal(t, int64(2), rc.Generation)

	rc.Status.Replicas, rc.Status.ReadyReplicas = 1, 1
	rc, err = cs.CoreV1().ReplicationControllers("default").UpdateStatus(ctx, rc, metav1.UpdateOptions{})
	require.NoError(t, err)
	assert.Equal(t, int32(1), rc.Status.ReadyReplicas)

	list, err := cs.CoreV1().ReplicationControllers("").List(ctx, metav1.ListOptions{LabelSelector: "name=rc-test"})
	require.NoError(t, err)
	require.Len(t, list.Items, 1)
	require.NoError(t, cs.CoreV1().ReplicationControllers("default").Delete(ctx, "rc-test", metav1.DeleteOptions{}))

	pt, err := cs.CoreV1().PodTemplates("default").Create(ctx, &corev1.PodTemplate{ObjectMeta: metav1.ObjectMeta{Name: "nginx-pod-template",
		Labels: map[string]string{"podtemplate-static": "true"}}, Template: tmpl}, metav1.CreateOptions{})
	require.NoError(t, err)
	pt.Labels["podtemplate"] = "patched"
	_, err = cs.CoreV1().PodTemplates("default").Update(ctx, pt, metav1.UpdateOptions{})
	require.NoError(t, err)
	pts, err := cs.CoreV1().PodTemplates("").List(ctx, metav1.ListOptions{LabelSelector: "podtemplate-static=true"})
	require.NoError(t, err)
	require.Len(t, pts.Items, 1)
	assert.Equal(t, "patched", pts.Items[0].Labels["podtemplate"])
	require.NoError(t, cs.CoreV1().PodTemplates("default").DeleteCollection(ctx, metav1.DeleteOptions{},
		metav1.ListOptions{LabelSelector: "podtemplate-static=true"}))
}

// TestRuntimeClassClientGo creates, reads and lists a RuntimeClass with
// client-go's protobuf bodies, as the conformance suite's RuntimeClass
// API test does, and checks a pod naming it gets its overhead.
func TestRuntimeClassClientGo(t *testing.T) {
	c := cluster.Start(t, cluster.Options{})
	cs := e2eClient(t, c)
	ctx := context.Background()
	rc, err := cs.NodeV1().RuntimeClasses().Create(ctx, &nodev1.RuntimeClass{ObjectMeta: metav1.ObjectMeta{Name: "conformance"},
		Handler:  "runc",
		Overhead: &nodev1.Overhead{PodFixed: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}},
		Scheduling: &nodev1.Scheduling{NodeSelector: map[string]string{"rc": "yes"},
			Tolerations: []corev1.Toleration{{Key: "t", Operator: corev1.TolerationOpExists}}},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	assert.Equal(t, "runc", rc.Handler)
	list, err := cs.NodeV1().RuntimeClasses().List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	require.Len(t, list.Items, 1)
	name := "conformance"
	pod, err := cs.CoreV1().Pods("default").Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"},
		Spec: corev1.PodSpec{RuntimeClassName: &name, Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}, metav1.CreateOptions{})
	require.NoError(t, err)
	assert.Equal(t, "100m", pod.Spec.Overhead.Cpu().String())
	assert.Equal(t, "yes", pod.Spec.NodeSelector["rc"])
	require.NoError(t, cs.NodeV1().RuntimeClasses().Delete(ctx, "conformance", metav1.DeleteOptions{}))
}
