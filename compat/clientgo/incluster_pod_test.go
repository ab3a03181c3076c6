package clientgo_test

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// listerImage is compat/cmd/inclusterlist, built by the minicluster.
const listerImage = "orkit.local/inclusterlist:v1"

// TestInClusterClientGoPod: a client-go program built into an image the
// way the bundled images are built (the minicluster's --image) runs as a
// pod on a real node with rest.InClusterConfig(): through the kubernetes
// Service, with the service-account token and CA the kubelet mounts, it
// is refused (403) until a RoleBinding lets its service account list
// pods, then lists them.
func TestInClusterClientGoPod(t *testing.T) {
	requireRealNode(t)
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	cs := startMinicluster(ctx, t, "--image", listerImage+"=github.com/orkit/orkit/compat/cmd/inclusterlist")

	out, phase := runLister(ctx, t, cs, "lister-denied")
	assert.Equal(t, corev1.PodFailed, phase, out)
	assert.Contains(t, out, `ERR 403 pods is forbidden: User "system:serviceaccount:default:default" cannot list resource "pods"`)

	_, err := cs.RbacV1().Roles("default").Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "pod-reader"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list"}}}}, metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = cs.RbacV1().RoleBindings("default").Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "pod-reader"},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "pod-reader"},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "default", Namespace: "default"}}}, metav1.CreateOptions{})
	require.NoError(t, err)
	out, phase = runLister(ctx, t, cs, "lister-allowed")
	assert.Equal(t, corev1.PodSucceeded, phase, out)
	assert.Regexp(t, `^OK [1-9][0-9]*\s*$`, out, "the pod lists its namespace's pods, itself included")
}

// runLister runs the lister as pod name until it ends and returns its
// output and final phase.
func runLister(ctx context.Context, t *testing.T, cs kubernetes.Interface, name string) (string, corev1.PodPhase) {
	t.Helper()
	_, err := cs.CoreV1().Pods("default").Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
			Containers: []corev1.Container{{Name: "lister", Image: listerImage, ImagePullPolicy: corev1.PullNever}}}}, metav1.CreateOptions{})
	require.NoError(t, err)
	var phase corev1.PodPhase
	pollFor(ctx, t, 3*time.Minute, name+" to finish", func() bool {
		p, err := cs.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{})
		if err == nil {
			phase = p.Status.Phase
		}
		return phase == corev1.PodSucceeded || phase == corev1.PodFailed
	})
	logs, err := cs.CoreV1().Pods("default").GetLogs(name, &corev1.PodLogOptions{}).DoRaw(ctx)
	require.NoError(t, err)
	return string(logs), phase
}

// startMinicluster builds examples/minicluster, runs it in this module's
// directory (so the images it builds come from this module's packages:
// the go command finds client-go here) as a process with one real node and extra flags, and returns an admin
// clientset once the node is Ready. The process is stopped (SIGINT, by
// PID) when the test ends.
func startMinicluster(ctx context.Context, t *testing.T, extra ...string) kubernetes.Interface {
	t.Helper()
	moduleRoot, err := filepath.Abs("..") // compat: the lister's module
	require.NoError(t, err)
	bin := filepath.Join(t.TempDir(), "minicluster")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./examples/minicluster")
	build.Dir = filepath.Dir(moduleRoot) // orkit's module, with the minicluster's dependencies
	out, err := build.CombinedOutput()
	require.NoError(t, err, string(out))

	dir := t.TempDir()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	cmd := exec.Command(bin, append([]string{"--data-dir", dir, "--listen", addr, "--nodes", "1"}, extra...)...)
	cmd.Dir = moduleRoot
	var log lockedBuffer
	cmd.Stdout, cmd.Stderr = &log, &log
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGINT) // a clean stop removes the node's containers and network
		select {
		case <-done:
		case <-time.After(90 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("minicluster output:\n%s", log.String())
		}
	})

	kubeconfig := filepath.Join(dir, "admin.kubeconfig")
	var cs kubernetes.Interface
	pollFor(ctx, t, 5*time.Minute, "the minicluster's node to be Ready", func() bool {
		select {
		case err := <-done:
			done <- err
			t.Fatalf("minicluster exited: %v\n%s", err, log.String())
		default:
		}
		if cs == nil {
			if _, err := os.Stat(kubeconfig); err != nil {
				return false
			}
			cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
			if err != nil {
				return false
			}
			if cs, err = kubernetes.NewForConfig(cfg); err != nil {
				return false
			}
		}
		n, err := cs.CoreV1().Nodes().Get(ctx, "node-1", metav1.GetOptions{})
		if err != nil {
			return false
		}
		for _, c := range n.Status.Conditions {
			if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
				return strings.Contains(log.String(), listerImage)
			}
		}
		return false
	})
	return cs
}

// requireRealNode skips the test (fails it under CI=true) unless this
// machine can run a real node: root, containerd, runc, the CNI plugins.
func requireRealNode(t *testing.T) {
	t.Helper()
	var missing []string
	if os.Geteuid() != 0 {
		missing = append(missing, "root")
	}
	for _, b := range []string{"containerd", "runc", "kubectl"} {
		if _, err := exec.LookPath(b); err != nil {
			missing = append(missing, b)
		}
	}
	for _, p := range []string{"bridge", "host-local", "loopback", "portmap"} {
		if _, err := os.Stat(filepath.Join("/usr/lib/cni", p)); err != nil {
			missing = append(missing, "CNI plugin "+p)
		}
	}
	if len(missing) == 0 {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("prerequisite missing (CI=true, so this fails instead of skipping): %s", strings.Join(missing, ", "))
	}
	t.Skipf("prerequisite missing: %s", strings.Join(missing, ", "))
}

// pollFor polls cond until it holds, failing the test after d.
func pollFor(ctx context.Context, t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) || ctx.Err() != nil {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// lockedBuffer is a bytes.Buffer safe for a child's stdout and stderr
// and the test's reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
