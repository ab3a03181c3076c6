package clientgo_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/orkit/orkit/compat/internal/cluster"
)

// protobufMedia is what kube's own components ask for.
const protobufMedia = "application/vnd.kubernetes.protobuf"

// TestProtobufClientset: a clientset configured as kube-scheduler and
// kube-controller-manager are (protobuf bodies, protobuf first in
// Accept) gets protobuf responses, lists and watch streams for built-in
// kinds, and every verb works as it does in JSON (issue 20 item 2).
func TestProtobufClientset(t *testing.T) {
	c := cluster.Start(t, cluster.Options{})
	var log cluster.RequestLog
	cfg := c.RESTConfig()
	cfg.ContentType = protobufMedia
	cfg.AcceptContentTypes = protobufMedia + ",application/json"
	cfg.WrapTransport = log.Wrap
	cs := kubernetes.NewForConfigOrDie(cfg)

	t.Run("CRUD", func(t *testing.T) { testCRUD(t, cs) })
	t.Run("ListPagination", func(t *testing.T) { testListPagination(t, cs) })
	t.Run("Watch", func(t *testing.T) { testWatch(t, cs) })
	t.Run("Patch", func(t *testing.T) { testPatch(t, cs) })
	t.Run("RichObjects", func(t *testing.T) { testProtobufRichObjects(t, cs) })
	t.Run("Informer", func(t *testing.T) { testProtobufInformer(t, cs) })

	byType := map[string]int{}
	for _, r := range log.Since(time.Time{}) {
		if r.Code != 0 {
			byType[strings.SplitN(r.ContentType, ";", 2)[0]]++
		}
	}
	t.Logf("responses by content type: %v", byType)
	assert.Greater(t, byType[protobufMedia], 50, "responses by content type: %v", byType)
	streams := log.Count(func(r cluster.Request) bool { return r.IsWatch() && r.ContentType == protobufMedia+";stream=watch" })
	assert.Positive(t, streams, "protobuf watch streams")
}

// testProtobufRichObjects round-trips objects with times, quantities,
// int-or-strings, byte maps and nested lists through protobuf both ways.
func testProtobufRichObjects(t *testing.T, cs kubernetes.Interface) {
	ctx := context.Background()
	sec, err := cs.CoreV1().Secrets("default").Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "pb-secret"},
		Data: map[string][]byte{"bin": {0, 1, 2, 255}}, StringData: map[string]string{"s": "text"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	assert.Equal(t, []byte{0, 1, 2, 255}, sec.Data["bin"])
	assert.Equal(t, []byte("text"), sec.Data["s"])

	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "pb-deploy", Labels: map[string]string{"app": "pb"}},
		Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](0), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "pb"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "pb"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "img",
					Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m")}},
					Ports:     []corev1.ContainerPort{{ContainerPort: 8080, Protocol: corev1.ProtocolTCP}},
					Env:       []corev1.EnvVar{{Name: "A", Value: "1"}}}}}}}}
	created, err := cs.AppsV1().Deployments("default").Create(ctx, d, metav1.CreateOptions{})
	require.NoError(t, err)
	assert.Equal(t, "25%", created.Spec.Strategy.RollingUpdate.MaxSurge.String(), "defaulted int-or-string")
	assert.Equal(t, "250m", created.Spec.Template.Spec.Containers[0].Resources.Requests.Cpu().String())
	assert.False(t, created.CreationTimestamp.IsZero())
	require.NotEmpty(t, created.ManagedFields)
	assert.NotNil(t, created.ManagedFields[0].FieldsV1)

	renew := metav1.NewMicroTime(time.Date(2026, 1, 2, 3, 4, 5, 123456000, time.UTC))
	lease, err := cs.CoordinationV1().Leases("default").Create(ctx, &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "pb-lease"},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To("me"), LeaseDurationSeconds: ptr.To[int32](40), RenewTime: &renew}}, metav1.CreateOptions{})
	require.NoError(t, err)
	assert.True(t, renew.Equal(lease.Spec.RenewTime), "renewTime %v", lease.Spec.RenewTime)

	// Errors come back as Status, decoded into their reason.
	_, err = cs.CoreV1().ConfigMaps("default").Get(ctx, "missing", metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "get missing: %v", err)
	_, err = cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "Bad_Name"}}, metav1.CreateOptions{})
	assert.True(t, apierrors.IsInvalid(err), "invalid name: %v", err)
}

// testProtobufInformer: shared informers over protobuf lists and watch
// streams converge on what was written.
func testProtobufInformer(t *testing.T, cs kubernetes.Interface) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for i := 0; i < 20; i++ {
		_, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("pbi-%d", i)}}, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			require.NoError(t, err)
		}
	}
	f := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace("default"))
	inf := f.Core().V1().ConfigMaps().Informer()
	f.Start(ctx.Done())
	require.True(t, cache.WaitForCacheSync(ctx.Done(), inf.HasSynced))
	_, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "pbi-late"}, Data: map[string]string{"k": "v"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		obj, ok, _ := inf.GetStore().GetByKey("default/pbi-late")
		return ok && obj.(*corev1.ConfigMap).Data["k"] == "v"
	}, 30*time.Second, 20*time.Millisecond)
	assert.GreaterOrEqual(t, len(inf.GetStore().List()), 21)
}
