package clientgo_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/orkit/orkit/compat/internal/cluster"
	"github.com/orkit/orkit/pki"
)

// kubeWebhook is a webhook server written against k8s.io/api's
// admission/v1 types, decoding strictly: orkit's AdmissionReview must be
// what a Kubernetes webhook expects. It denies pods named deny-*.
func kubeWebhook(t *testing.T) (url string, caBundle []byte) {
	t.Helper()
	ca, err := pki.NewCA("compat-webhook")
	require.NoError(t, err)
	kp, err := ca.IssueServing("webhook", nil, []net.IP{net.ParseIP("127.0.0.1")})
	require.NoError(t, err)
	cert, err := kp.TLSCertificate()
	require.NoError(t, err)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := &http.Server{TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}}, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var review admissionv1.AdmissionReview
		dec := json.NewDecoder(r.Body)
		dec.DisallowUnknownFields()
		if err := dec.Decode(&review); err != nil || review.Request == nil {
			http.Error(w, "bad review: "+err.Error(), http.StatusBadRequest)
			return
		}
		var pod corev1.Pod
		pdec := json.NewDecoder(bytes.NewReader(review.Request.Object.Raw))
		pdec.DisallowUnknownFields()
		resp := &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: true}
		if err := pdec.Decode(&pod); err != nil {
			resp.Allowed, resp.Result = false, &metav1.Status{Code: 400, Message: "pod does not decode: " + err.Error()}
		} else if strings.HasPrefix(pod.Name, "deny-") {
			resp.Allowed, resp.Result = false, &metav1.Status{Code: 403, Message: "denied by a k8s.io/api webhook for " + review.Request.UserInfo.Username}
		}
		review.Response, review.Request = resp, nil
		_ = json.NewEncoder(w).Encode(&review)
	})}
	go func() { _ = srv.ServeTLS(l, "", "") }()
	t.Cleanup(func() { _ = srv.Close() })
	return "https://" + l.Addr().String() + "/validate", ca.CertPEM
}

// TestAdmissionRegistration: client-go's typed admissionregistration/v1
// clients create webhook configurations and validating admission
// policies (with kube's defaults filled), a webhook decoding with
// k8s.io/api's types denies a pod, and a CEL policy denies a Deployment.
func TestAdmissionRegistration(t *testing.T) {
	c := cluster.Start(t, cluster.Options{})
	cs := kubernetes.NewForConfigOrDie(c.RESTConfig())
	ctx := context.Background()
	url, ca := kubeWebhook(t)
	vwc, err := cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "compat"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name: "compat.example.com", ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: ca},
			Rules: []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}}}},
			SideEffects: ptr.To(admissionregistrationv1.SideEffectClassNone), AdmissionReviewVersions: []string{"v1"},
		}},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	h := vwc.Webhooks[0]
	assert.Equal(t, admissionregistrationv1.Fail, *h.FailurePolicy)
	assert.Equal(t, admissionregistrationv1.Equivalent, *h.MatchPolicy)
	assert.Equal(t, int32(10), *h.TimeoutSeconds)
	assert.Equal(t, admissionregistrationv1.AllScopes, *h.Rules[0].Scope)

	deadline := time.Now().Add(20 * time.Second)
	for {
		_, err = cs.CoreV1().Pods("default").Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "deny-me"},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "orkit.local/hello:v1"}}}}, metav1.CreateOptions{})
		if err != nil || time.Now().After(deadline) {
			break
		}
		require.NoError(t, cs.CoreV1().Pods("default").Delete(ctx, "deny-me", metav1.DeleteOptions{GracePeriodSeconds: ptr.To(int64(0))}))
		time.Sleep(100 * time.Millisecond)
	}
	require.Error(t, err)
	assert.Contains(t, err.Error(), `admission webhook "compat.example.com" denied the request: denied by a k8s.io/api webhook for `)
	_, err = cs.CoreV1().Pods("default").Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "allowed"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "orkit.local/hello:v1"}}}}, metav1.CreateOptions{})
	require.NoError(t, err, "the webhook decoded orkit's pod strictly")

	pol, err := cs.AdmissionregistrationV1().ValidatingAdmissionPolicies().Create(ctx, &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "replicas"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
					Rule: admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}}}}}},
			Validations: []admissionregistrationv1.Validation{{Expression: "object.spec.replicas <= 5", Message: "at most 5"}},
		},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	assert.Equal(t, admissionregistrationv1.Fail, *pol.Spec.FailurePolicy)
	assert.NotNil(t, pol.Status.TypeChecking)
	_, err = cs.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings().Create(ctx, &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "replicas"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: "replicas",
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "big"}, Spec: appsv1.DeploymentSpec{Replicas: ptr.To(int32(6)),
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"a": "b"}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "orkit.local/hello:v1"}}}}}}
	deadline = time.Now().Add(20 * time.Second)
	for {
		_, err = cs.AppsV1().Deployments("default").Create(ctx, dep, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	require.Error(t, err)
	assert.Contains(t, err.Error(), "ValidatingAdmissionPolicy 'replicas' with binding 'replicas' denied request: at most 5")
}
