package clientgo_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/orkit/orkit/compat/internal/cluster"
)

// The in-cluster child: the test binary run again in a mount namespace of
// its own, where /var/run/secrets/kubernetes.io/serviceaccount holds what
// the kubelet mounts in a pod, and the environment has the variables the
// kubelet sets.
const (
	envChild     = "ORKIT_COMPAT_INCLUSTER_CHILD"
	envToken     = "ORKIT_COMPAT_INCLUSTER_TOKEN"
	envCA        = "ORKIT_COMPAT_INCLUSTER_CA"
	envNamespace = "ORKIT_COMPAT_INCLUSTER_NAMESPACE"
	saDir        = "/var/run/secrets/kubernetes.io/serviceaccount"
)

// inClusterChild lays out the service-account files, then does what an
// in-cluster program does: rest.InClusterConfig() and list the pods of
// its namespace. It prints "OK <n>" or "ERR <code> <message>" and returns
// the exit code.
func inClusterChild() int {
	if err := layOutServiceAccount(); err != nil {
		fmt.Println("SETUP", err)
		return 2
	}
	cfg, err := rest.InClusterConfig()
	if err != nil {
		fmt.Println("SETUP", err)
		return 2
	}
	ns, err := os.ReadFile(filepath.Join(saDir, "namespace"))
	if err != nil {
		fmt.Println("SETUP", err)
		return 2
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		fmt.Println("SETUP", err)
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pods, err := cs.CoreV1().Pods(string(ns)).List(ctx, metav1.ListOptions{})
	var st apierrors.APIStatus
	switch {
	case errors.As(err, &st):
		fmt.Println("ERR", st.Status().Code, st.Status().Message)
		return 0
	case err != nil:
		fmt.Println("ERR 0", err)
		return 0
	}
	fmt.Println("OK", len(pods.Items))
	return 0
}

// layOutServiceAccount mounts a tmpfs on the directory /var/run resolves
// to (the process has a mount namespace of its own) and writes token,
// ca.crt and namespace under saDir.
func layOutServiceAccount() error {
	run, err := filepath.EvalSymlinks("/var/run")
	if err != nil {
		return err
	}
	if err := syscall.Mount("tmpfs", run, "tmpfs", 0, "mode=0755"); err != nil {
		return fmt.Errorf("mount tmpfs on %s: %w", run, err)
	}
	if err := os.MkdirAll(saDir, 0o755); err != nil {
		return err
	}
	for name, v := range map[string]string{"token": os.Getenv(envToken), "ca.crt": os.Getenv(envCA), "namespace": os.Getenv(envNamespace)} {
		if err := os.WriteFile(filepath.Join(saDir, name), []byte(v), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// runInCluster runs the child with tok and returns its one-line answer.
func runInCluster(t *testing.T, cfg *rest.Config, tok, ns string) string {
	t.Helper()
	u, err := url.Parse(cfg.Host)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envChild+"=1", envToken+"="+tok, envCA+"="+string(cfg.CAData), envNamespace+"="+ns,
		"KUBERNETES_SERVICE_HOST="+u.Hostname(), "KUBERNETES_SERVICE_PORT="+u.Port())
	cmd.SysProcAttr = &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Run(), out.String())
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(line, "OK ") || strings.HasPrefix(line, "ERR ") {
			return line
		}
	}
	t.Fatalf("the in-cluster child said nothing useful: %s", out.String())
	return ""
}

// TestInClusterConfig: a program using rest.InClusterConfig() with a
// pod-bound token of its service account gets 403 listing pods until a
// RoleBinding allows it, then lists them, and gets 401 once its pod is
// deleted.
func TestInClusterConfig(t *testing.T) {
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("TestInClusterConfig needs root (a mount namespace for the service-account files)")
		}
		t.Skip("needs root: a mount namespace for the service-account files")
	}
	c := cluster.Start(t, cluster.Options{})
	cfg := c.RESTConfig()
	cs := kubernetes.NewForConfigOrDie(cfg)
	ctx := context.Background()
	const ns = "agents"
	_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = cs.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "agent"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	pod, err := cs.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "agent"},
		Spec: corev1.PodSpec{ServiceAccountName: "agent", Containers: []corev1.Container{{Name: "c", Image: "orkit.local/hello:v1"}}}},
		metav1.CreateOptions{})
	require.NoError(t, err)
	exp := int64(3600)
	tr, err := cs.CoreV1().ServiceAccounts(ns).CreateToken(ctx, "agent", &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{
		ExpirationSeconds: &exp,
		BoundObjectRef:    &authenticationv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: pod.Name, UID: pod.UID},
	}}, metav1.CreateOptions{})
	require.NoError(t, err)
	require.NotEmpty(t, tr.Status.Token)
	tok := tr.Status.Token

	got := runInCluster(t, cfg, tok, ns)
	require.True(t, strings.HasPrefix(got, "ERR 403 "), got)
	require.Contains(t, got, `User "system:serviceaccount:agents:agent" cannot list resource "pods"`)

	_, err = cs.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "agent-view"},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "view"},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "agent", Namespace: ns}}}, metav1.CreateOptions{})
	require.NoError(t, err)
	deadline := time.Now().Add(30 * time.Second)
	for got = runInCluster(t, cfg, tok, ns); got != "OK 1" && time.Now().Before(deadline); got = runInCluster(t, cfg, tok, ns) {
		time.Sleep(200 * time.Millisecond) // the RBAC cache follows the binding
	}
	require.Equal(t, "OK 1", got)

	zero := int64(0)
	require.NoError(t, cs.CoreV1().Pods(ns).Delete(ctx, pod.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero}))
	deadline = time.Now().Add(30 * time.Second)
	for got = runInCluster(t, cfg, tok, ns); !strings.HasPrefix(got, "ERR 401") && time.Now().Before(deadline); got = runInCluster(t, cfg, tok, ns) {
		time.Sleep(200 * time.Millisecond)
	}
	require.True(t, strings.HasPrefix(got, "ERR 401"), "the deleted pod's token: %s", got)
}
