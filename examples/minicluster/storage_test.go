package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const statefulSetYAML = `
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
spec:
  serviceName: db
  replicas: 1
  selector:
    matchLabels: {app: db}
  template:
    metadata:
      labels: {app: db}
    spec:
      terminationGracePeriodSeconds: 5
      containers:
      - name: db
        image: orkit.local/hello:v1
        volumeMounts:
        - {name: data, mountPath: /data}
  volumeClaimTemplates:
  - metadata:
      name: data
    spec:
      accessModes: [ReadWriteOnce]
      resources:
        requests: {storage: 64Mi}
`

const orphanYAML = `
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: orphan
spec:
  storageClassName: missing
  accessModes: [ReadWriteOnce]
  resources:
    requests: {storage: 1Gi}
---
apiVersion: v1
kind: Pod
metadata:
  name: orphan-user
spec:
  containers:
  - name: c
    image: orkit.local/hello:v1
    volumeMounts:
    - {name: data, mountPath: /data}
  volumes:
  - name: data
    persistentVolumeClaim: {claimName: orphan}
`

// TestKubectlLocalPathStorage drives the local-path class with the real
// kubectl on a real node: the default class is listed; a StatefulSet's
// volumeClaimTemplate gets the default class, a volume on the pod's node,
// and keeps its data when the pod is deleted and recreated; a pod whose
// Immediate claim cannot be bound stays Pending with kube's reason; and
// deleting the claim (reclaim Delete) removes the directory from the node.
func TestKubectlLocalPathStorage(t *testing.T) {
	requireRealNode(t)
	dir := t.TempDir()
	out := &syncBuffer{}
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	c, err := startCluster(ctx, options{DataDir: dir, Listen: freeAddr(t), Nodes: 1, Out: out})
	require.NoError(t, err, out.String())
	defer func() {
		c.Close()
		if t.Failed() {
			t.Log("\n" + out.String())
		}
	}()
	kc := c.cp.AdminKubeconfig
	kubectl := func(stdin string, args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, "kubectl", append([]string{"--kubeconfig", kc}, args...)...)
		cmd.Stdin = strings.NewReader(stdin)
		b, err := cmd.CombinedOutput()
		return string(b), err
	}
	must := func(stdin string, args ...string) string {
		t.Helper()
		got, err := kubectl(stdin, args...)
		require.NoError(t, err, "kubectl %v: %s", args, got)
		return got
	}
	eventually := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(3 * time.Minute)
		for !cond() {
			require.True(t, time.Now().Before(deadline), "timed out: %s", what)
			time.Sleep(250 * time.Millisecond)
		}
	}

	sc := must("", "get", "storageclass")
	assert.Regexp(t, `local-path \(default\)\s+orkit.io/local-path\s+Delete\s+WaitForFirstConsumer\s+false`, sc)

	must(statefulSetYAML, "apply", "-f", "-")
	must("", "wait", "--for=condition=Ready", "pod/db-0", "--timeout=3m")
	assert.Equal(t, "local-path", must("", "get", "pvc", "data-db-0", "-o", "jsonpath={.spec.storageClassName}"), "the default class")
	assert.Equal(t, "node-1", must("", "get", "pvc", "data-db-0", "-o", "jsonpath={.metadata.annotations.volume\\.kubernetes\\.io/selected-node}"))
	pv := must("", "get", "pvc", "data-db-0", "-o", "jsonpath={.spec.volumeName}")
	hostDir := must("", "get", "pv", pv, "-o", "jsonpath={.spec.hostPath.path}")
	assert.Equal(t, filepath.Join(dir, "local-path"), filepath.Dir(hostDir))
	assert.Equal(t, "node-1", must("", "get", "pv", pv, "-o", "jsonpath={.spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values[0]}"))

	must("", "exec", "db-0", "--", "/hello", "write", "/data/state", "kept-across-restarts")
	uid := must("", "get", "pod", "db-0", "-o", "jsonpath={.metadata.uid}")
	must("", "delete", "pod", "db-0", "--wait=true")
	eventually("db-0 recreated and Ready", func() bool {
		got, err := kubectl("", "get", "pod", "db-0", "-o", `jsonpath={.metadata.uid} {.status.conditions[?(@.type=="Ready")].status}`)
		return err == nil && !strings.HasPrefix(got, uid) && strings.HasSuffix(got, " True")
	})
	assert.Contains(t, must("", "exec", "db-0", "--", "/hello", "cat", "/data/state"), "kept-across-restarts", "the recreated pod reads the same data")

	// An unbound Immediate claim (of a class that does not exist) keeps its pod Pending.
	must(orphanYAML, "apply", "-f", "-")
	eventually("orphan-user unschedulable", func() bool {
		got, _ := kubectl("", "get", "pod", "orphan-user", "-o", `jsonpath={.status.conditions[?(@.type=="PodScheduled")].message}`)
		return strings.Contains(got, "pod has unbound immediate PersistentVolumeClaims")
	})
	assert.Equal(t, "Pending", must("", "get", "pod", "orphan-user", "-o", "jsonpath={.status.phase}"))
	assert.Empty(t, must("", "get", "pod", "orphan-user", "-o", "jsonpath={.spec.nodeName}"), "never bound to a node")
	assert.Contains(t, must("", "describe", "pod", "orphan-user"), "pod has unbound immediate PersistentVolumeClaims")

	// Reclaim Delete: the claim goes, a helper pod removes the directory on the node, the volume goes.
	_, err = os.Stat(filepath.Join(hostDir, "state"))
	require.NoError(t, err, "the data is in the volume's directory on the node")
	must("", "delete", "statefulset", "db", "--wait=true")
	eventually("db-0 gone", func() bool {
		got, _ := kubectl("", "get", "pod", "db-0", "--ignore-not-found", "-o", "name")
		return strings.TrimSpace(got) == ""
	})
	must("", "delete", "pvc", "data-db-0", "--wait=true")
	eventually("volume deleted", func() bool {
		got, _ := kubectl("", "get", "pv", pv, "--ignore-not-found", "-o", "name")
		return strings.TrimSpace(got) == ""
	})
	_, err = os.Stat(hostDir)
	assert.True(t, os.IsNotExist(err), "the directory is removed from the node: %v", err)

	// Stop only once the node has torn the helper pod down (its network
	// namespace included), so nothing of it is left when the cluster stops.
	eventually("helper pod gone", func() bool {
		got, _ := kubectl("", "get", "pods", "-n", "kube-system", "-l", "orkit.io/local-path-volume", "-o", "name")
		return strings.TrimSpace(got) == ""
	})
	eventually("no pod sandbox left on the node", func() bool {
		entries, err := os.ReadDir(filepath.Join(dir, "nodes", "node-1", "runtime", "netns"))
		return (err == nil || os.IsNotExist(err)) && len(entries) == 0
	})
}
