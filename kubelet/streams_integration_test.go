package kubelet

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
)

// safeBuffer collects a process's output while the test reads it.
type safeBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *safeBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *safeBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// portForward is one background kubectl port-forward.
type portForward struct {
	cmd    *exec.Cmd
	port   string // the local port kubectl listens on
	stderr *safeBuffer
	done   chan struct{}
}

var forwardingRE = regexp.MustCompile(`Forwarding from 127\.0\.0\.1:(\d+) ->`)

// startPortForward runs kubectl port-forward with args (which name a
// local port 0, ":8080") until it reports its local port. The process is
// killed at cleanup.
func (k kubectlRunner) startPortForward(args ...string) *portForward {
	k.t.Helper()
	cmd := exec.Command(k.path, append([]string{"--kubeconfig", k.kubeconfig, "port-forward"}, args...)...)
	cmd.Env = append(cmd.Environ(), "HOME="+k.t.TempDir())
	out, err := cmd.StdoutPipe()
	require.NoError(k.t, err)
	pf := &portForward{cmd: cmd, stderr: &safeBuffer{}, done: make(chan struct{})}
	cmd.Stderr = pf.stderr
	require.NoError(k.t, cmd.Start())
	k.t.Cleanup(func() {
		cmd.Process.Kill()
		<-pf.done
	})
	ports := make(chan string, 1)
	go func() { // ends when kubectl's stdout closes
		defer close(pf.done)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := forwardingRE.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case ports <- m[1]:
				default:
				}
			}
		}
		cmd.Wait()
	}()
	select {
	case pf.port = <-ports:
	case <-pf.done:
		k.t.Fatalf("kubectl port-forward %v ended: %s", args, pf.stderr.String())
	case <-time.After(60 * time.Second):
		k.t.Fatalf("kubectl port-forward %v reported no port: %s", args, pf.stderr.String())
	}
	return pf
}

func httpGetTimeout(url string, d time.Duration) (string, error) {
	c := &http.Client{Timeout: d}
	resp, err := c.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// TestRealKubectlPortForward forwards local ports to a pod and to a
// Service with real kubectl (WebSocket-tunnelled SPDY) into real
// containerd, and checks a port nothing listens on ends the forward with
// the kubelet's error.
func TestRealKubectlPortForward(t *testing.T) {
	n := newRealNode(t, "pf-node")
	admin := newKubectl(t, n.tc.cp.AdminKubeconfig)
	ctx := context.Background()
	p := helloPod("pf", "pf-node")
	p.Labels = map[string]string{"app": "pf"}
	_, err := pods(n.tc.admin, "default").Create(ctx, p)
	require.NoError(t, err)
	waitPod(t, n.tc.admin, "default", "pf", 60*time.Second, "running", func(p *core.Pod) bool {
		return running(p) && isReady(p)
	})

	t.Run("pod", func(t *testing.T) {
		pf := admin.startPortForward("pod/pf", ":8080")
		for i := range 3 { // several connections over one forward
			body, err := httpGetTimeout("http://127.0.0.1:"+pf.port+"/", 10*time.Second)
			require.NoError(t, err, "request %d; kubectl: %s", i, pf.stderr.String())
			assert.Equal(t, "pf", strings.TrimSpace(body))
		}
	})

	t.Run("service", func(t *testing.T) {
		svc := &core.Service{ObjectMeta: meta.ObjectMeta{Name: "pf-svc"}, Spec: core.ServiceSpec{
			Selector: map[string]string{"app": "pf"},
			Ports:    []core.ServicePort{{Port: 80, TargetPort: meta.FromInt(8080)}}}}
		_, err := client.For[core.Service](n.tc.admin, "default").Create(ctx, svc)
		require.NoError(t, err)
		pf := admin.startPortForward("svc/pf-svc", ":80")
		body, err := httpGetTimeout("http://127.0.0.1:"+pf.port+"/", 10*time.Second)
		require.NoError(t, err, "kubectl: %s", pf.stderr.String())
		assert.Equal(t, "pf", strings.TrimSpace(body))
	})

	t.Run("nothing listens", func(t *testing.T) {
		pf := admin.startPortForward("pod/pf", ":9999")
		c, err := net.DialTimeout("tcp", "127.0.0.1:"+pf.port, 10*time.Second)
		require.NoError(t, err)
		c.SetDeadline(time.Now().Add(30 * time.Second))
		n, _ := c.Read(make([]byte, 1))
		c.Close()
		assert.Zero(t, n)
		select {
		case <-pf.done:
		case <-time.After(30 * time.Second):
			t.Fatal("kubectl port-forward did not end")
		}
		msg := pf.stderr.String()
		assert.Contains(t, msg, "an error occurred forwarding")
		assert.Contains(t, msg, "error forwarding port 9999 to pod")
		assert.Contains(t, msg, "failed to connect to localhost:9999 inside namespace")
		assert.Contains(t, msg, "connection refused")
		assert.Contains(t, msg, "lost connection to pod")
	})
}

// TestRealKubectlAttachRunCp: kubectl attach (-i), run -i --rm and cp
// both ways against one real node.
func TestRealKubectlAttachRunCp(t *testing.T) {
	n := newRealNode(t, "attach-node")
	admin := newKubectl(t, n.tc.cp.AdminKubeconfig)
	ctx := context.Background()
	onNode := `{"apiVersion":"v1","spec":{"nodeName":"attach-node"}}`

	t.Run("run -i --rm returns the output and deletes the pod", func(t *testing.T) {
		out, errOut, code := admin.run("from stdin\n", "run", "runi", "-i", "--rm", "--restart=Never",
			"--image=orkit.local/hello:v1", "--overrides="+onNode, "--", "cat", "-")
		require.Zero(t, code, "stdout %q stderr %q", out, errOut)
		assert.Contains(t, out, "from stdin\n")
		assert.Contains(t, out, `pod "runi" deleted`)
		_, err := pods(n.tc.admin, "default").Get(ctx, "runi")
		assert.Error(t, err)
	})

	t.Run("run -i reports a failing command's exit code", func(t *testing.T) {
		out, errOut, code := admin.run("", "run", "runfail", "-i", "--rm", "--restart=Never",
			"--image=orkit.local/hello:v1", "--overrides="+onNode, "--", "exit", "3")
		assert.Equal(t, 3, code, "stdout %q stderr %q", out, errOut)
	})

	p := simplePod("att", "attach-node")
	p.Spec.RestartPolicy = core.RestartPolicyNever
	p.Spec.Containers[0].Args = []string{"cat", "-"}
	p.Spec.Containers[0].Stdin, p.Spec.Containers[0].StdinOnce = true, true
	done := p.Spec.Containers[0]
	done.Name, done.Args, done.Stdin, done.StdinOnce = "done", []string{"exit", "0"}, false, false
	p.Spec.Containers = append(p.Spec.Containers, done)
	_, err := pods(n.tc.admin, "default").Create(ctx, p)
	require.NoError(t, err)
	waitPod(t, n.tc.admin, "default", "att", 60*time.Second, "app running, done terminated", func(p *core.Pod) bool {
		var appUp, doneEnded bool
		for _, s := range p.Status.ContainerStatuses {
			appUp = appUp || s.Name == "app" && s.State.Running != nil
			doneEnded = doneEnded || s.Name == "done" && s.State.Terminated != nil
		}
		return appUp && doneEnded
	})

	t.Run("attach to a container that is not running", func(t *testing.T) {
		_, errOut, code := admin.run("", "attach", "att", "-c", "done")
		assert.NotZero(t, code)
		assert.Contains(t, errOut, "container done not found in pod att_default")
	})

	t.Run("attach -i", func(t *testing.T) {
		out, errOut, code := admin.run("typed\n", "attach", "att", "-c", "app", "-i")
		require.Zero(t, code, "stderr %q", errOut)
		assert.Equal(t, "typed\n", out)
	})

	cpPod := helloPod("cp", "attach-node")
	_, err = pods(n.tc.admin, "default").Create(ctx, cpPod)
	require.NoError(t, err)
	waitPod(t, n.tc.admin, "default", "cp", 60*time.Second, "running", running)

	t.Run("cp both ways", func(t *testing.T) {
		local := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(local, "one.txt"), []byte("first file\n"), 0o644))
		require.NoError(t, os.MkdirAll(filepath.Join(local, "tree", "sub"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(local, "tree", "sub", "two.txt"), []byte("second file\n"), 0o644))

		_, errOut, code := admin.run("", "cp", filepath.Join(local, "one.txt"), "cp:/data/one.txt")
		require.Zero(t, code, errOut)
		out, errOut, code := admin.run("", "exec", "cp", "--", "cat", "/data/one.txt")
		require.Zero(t, code, errOut)
		assert.Equal(t, "first file\n", out)
		_, errOut, code = admin.run("", "cp", filepath.Join(local, "tree"), "cp:/data/tree")
		require.Zero(t, code, errOut)

		back := t.TempDir()
		_, errOut, code = admin.run("", "cp", "cp:/data/one.txt", filepath.Join(back, "one.txt"))
		require.Zero(t, code, errOut)
		_, errOut, code = admin.run("", "cp", "cp:/data/tree", filepath.Join(back, "tree"))
		require.Zero(t, code, errOut)
		b, err := os.ReadFile(filepath.Join(back, "one.txt"))
		require.NoError(t, err)
		assert.Equal(t, "first file\n", string(b))
		b, err = os.ReadFile(filepath.Join(back, "tree", "sub", "two.txt"))
		require.NoError(t, err)
		assert.Equal(t, "second file\n", string(b))

		out, errOut, code = admin.run("", "cp", "cp:/data/nope", filepath.Join(back, "nope"))
		assert.NotZero(t, code)
		assert.Contains(t, out+errOut, "tar: /data/nope: Cannot stat: No such file or directory")
	})
}

// TestRealKubectlDebug adds ephemeral containers with real kubectl debug:
// one in the pod's network namespace (it reaches the app on 127.0.0.1),
// one attached interactively, and one whose image is absent.
func TestRealKubectlDebug(t *testing.T) {
	n := newRealNode(t, "debug-node")
	admin := newKubectl(t, n.tc.cp.AdminKubeconfig)
	ctx := context.Background()
	_, err := pods(n.tc.admin, "default").Create(ctx, helloPod("dbg", "debug-node"))
	require.NoError(t, err)
	waitPod(t, n.tc.admin, "default", "dbg", 60*time.Second, "ready", func(p *core.Pod) bool { return running(p) && isReady(p) })
	ephemeral := func(name string, cond func(core.ContainerStatus) bool) {
		t.Helper()
		waitPod(t, n.tc.admin, "default", "dbg", 60*time.Second, "ephemeral container "+name, func(p *core.Pod) bool {
			for _, s := range p.Status.EphemeralContainerStatuses {
				if s.Name == name {
					return cond(s)
				}
			}
			return false
		})
	}

	t.Run("shares the pod's network namespace", func(t *testing.T) {
		_, errOut, code := admin.run("", "debug", "dbg", "--image=orkit.local/hello:v1", "--container=net",
			"--target=app", "--", "wget", "http://127.0.0.1:8080/")
		require.Zero(t, code, errOut)
		ephemeral("net", func(s core.ContainerStatus) bool { return s.State.Terminated != nil })
		out, errOut, code := admin.run("", "logs", "dbg", "-c", "net")
		require.Zero(t, code, errOut)
		assert.Equal(t, "dbg", strings.TrimSpace(out))
		p, err := pods(n.tc.admin, "default").Get(ctx, "dbg")
		require.NoError(t, err)
		assert.Equal(t, core.PodRunning, p.Status.Phase, "an ephemeral container's exit leaves the pod running")
		assert.Zero(t, p.Status.EphemeralContainerStatuses[0].RestartCount)
	})

	t.Run("interactive", func(t *testing.T) {
		cmd := exec.Command(admin.path, "--kubeconfig", admin.kubeconfig, "debug", "dbg", "-i",
			"--image=orkit.local/hello:v1", "--container=shell", "--", "cat", "-")
		cmd.Env = append(cmd.Environ(), "HOME="+t.TempDir())
		stdin, err := cmd.StdinPipe()
		require.NoError(t, err)
		stdout, err := cmd.StdoutPipe()
		require.NoError(t, err)
		var errOut safeBuffer
		cmd.Stderr = &errOut
		require.NoError(t, cmd.Start())
		t.Cleanup(func() { cmd.Process.Kill() })
		io.WriteString(stdin, "hello debugger\n")
		line, err := bufio.NewReader(stdout).ReadString('\n')
		require.NoError(t, err, "kubectl: %s", errOut.String())
		assert.Equal(t, "hello debugger\n", line)
		stdin.Close()
		require.NoError(t, cmd.Wait(), errOut.String())
		assert.Contains(t, errOut.String(), "If you don't see a command prompt, try pressing enter.")
	})

	t.Run("image that is not there", func(t *testing.T) {
		_, errOut, code := admin.run("", "debug", "dbg", "--image=orkit.local/nope:v1", "--image-pull-policy=Never",
			"--container=broken")
		require.Zero(t, code, errOut)
		ephemeral("broken", func(s core.ContainerStatus) bool {
			return s.State.Waiting != nil && s.State.Waiting.Reason == "ErrImageNeverPull"
		})
		out, _, _ := admin.run("", "get", "pod", "dbg", "-o", "jsonpath={.status.ephemeralContainerStatuses[?(@.name==\"broken\")].state.waiting.message}")
		assert.Equal(t, `Container image "orkit.local/nope:v1" is not present with pull policy of Never`, out)
	})

	t.Run("bad requests", func(t *testing.T) {
		_, errOut, code := admin.run("", "debug", "dbg", "--image=orkit.local/hello:v1", "--container=app")
		assert.NotZero(t, code)
		assert.Contains(t, errOut, `spec.ephemeralContainers[3].name: Duplicate value: "app"`)
		_, errOut, code = admin.run("", "debug", "dbg", "--image=orkit.local/hello:v1", "--container=x", "--target=nope")
		assert.NotZero(t, code)
		assert.Contains(t, errOut, `spec.ephemeralContainers[3].targetContainerName: Not found: "nope"`)
	})
}
