package fieldmanager_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/core"
)

// configMapWith returns a ConfigMap with 20 data values, one of them v.
func configMapWith(v int) map[string]any {
	data := map[string]any{}
	for i := 0; i < 20; i++ {
		data[fmt.Sprintf("key-%02d", i)] = fmt.Sprintf("value-%d", i)
	}
	data["key-00"] = fmt.Sprintf("v-%d", v)
	return map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "c", "namespace": "ns"}, "data": data}
}

// BenchmarkApplyConfigMap measures one Apply of a 20-value ConfigMap that
// changes one value, over a live object its manager already owns.
func BenchmarkApplyConfigMap(b *testing.B) {
	fm := newManager(&testing.T{}, reflect.TypeFor[core.ConfigMap](), "v1")
	res, err := fm.Apply(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "c", "namespace": "ns"}}, configMapWith(0), "m", false, true)
	if err != nil {
		b.Fatal(err)
	}
	live := withManaged(&testing.T{}, res.Object, res.ManagedFields)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := fm.Apply(live, configMapWith(i), "m", false, false); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUpdateDeployment measures the ownership bookkeeping of an
// ordinary update of a Deployment (one container, replicas changed).
func BenchmarkUpdateDeployment(b *testing.B) {
	fm := newManager(&testing.T{}, reflect.TypeFor[apps.Deployment](), "apps/v1", "status")
	t := &testing.T{}
	live := obj(t, `{apiVersion: apps/v1, kind: Deployment, metadata: {name: d, namespace: ns}, spec: {replicas: 1, selector: {matchLabels: {app: w}}, template: {metadata: {labels: {app: w}}, spec: {containers: [{name: w, image: img, ports: [{containerPort: 80}], env: [{name: A, value: "1"}]}]}}}}`)
	next := obj(t, `{apiVersion: apps/v1, kind: Deployment, metadata: {name: d, namespace: ns}, spec: {replicas: 2, selector: {matchLabels: {app: w}}, template: {metadata: {labels: {app: w}}, spec: {containers: [{name: w, image: img, ports: [{containerPort: 80}], env: [{name: A, value: "1"}]}]}}}}`)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := fm.Update(live, next, "kubectl"); err != nil {
			b.Fatal(err)
		}
	}
}

// podYAML is a pod as a Deployment and the scheduler leave it, with
// status.phase, the Ready condition and the container's state given.
func podYAML(phase, ready, state string) string {
	return `{apiVersion: v1, kind: Pod,
metadata: {name: web-7d9c5-abcde, namespace: ns, generateName: web-7d9c5-, uid: 0b7c, resourceVersion: "41",
  labels: {app: web, pod-template-hash: 7d9c5},
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-7d9c5, uid: 9e1f, controller: true, blockOwnerDeletion: true}]},
spec: {nodeName: node-17, schedulerName: default-scheduler, restartPolicy: Always, terminationGracePeriodSeconds: 30,
  dnsPolicy: ClusterFirst, serviceAccountName: default, enableServiceLinks: true, priority: 0,
  containers: [{name: web, image: "registry.example/web:1.2", imagePullPolicy: IfNotPresent,
    ports: [{containerPort: 8080, protocol: TCP}], env: [{name: MODE, value: prod}, {name: LEVEL, value: info}],
    resources: {requests: {cpu: 100m, memory: 64Mi}, limits: {memory: 128Mi}},
    volumeMounts: [{name: kube-api-access, mountPath: /var/run/secrets/kubernetes.io/serviceaccount, readOnly: true}],
    terminationMessagePath: /dev/termination-log, terminationMessagePolicy: File}],
  volumes: [{name: kube-api-access, projected: {defaultMode: 420, sources: [{serviceAccountToken: {expirationSeconds: 3607, path: token}}]}}],
  tolerations: [{key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 300},
    {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 300}]},
status: {phase: ` + phase + `, hostIP: 10.0.0.17, podIP: 10.244.17.5, qosClass: Burstable, startTime: "2026-01-02T03:04:05Z",
  conditions: [{type: PodScheduled, status: "True", lastTransitionTime: "2026-01-02T03:04:05Z"},
    {type: Initialized, status: "True", lastTransitionTime: "2026-01-02T03:04:05Z"},
    {type: Ready, status: "` + ready + `", lastTransitionTime: "2026-01-02T03:04:06Z"},
    {type: ContainersReady, status: "` + ready + `", lastTransitionTime: "2026-01-02T03:04:06Z"}],
  containerStatuses: [{name: web, image: "registry.example/web:1.2", imageID: "sha256:ab", ready: ` + map[string]string{"True": "true", "False": "false"}[ready] + `,
    restartCount: 0, started: true, state: ` + state + `}]}}`
}

// BenchmarkUpdatePodStatus measures the ownership bookkeeping of a
// kubelet's status update of a running pod: the phase, two conditions
// and the container's state change; metadata and spec do not.
func BenchmarkUpdatePodStatus(b *testing.B) {
	t := &testing.T{}
	fm := newManager(t, reflect.TypeFor[core.Pod](), "v1", "spec", "metadata.deletionTimestamp", "metadata.ownerReferences")
	live := obj(t, podYAML("Pending", "False", `{waiting: {reason: ContainerCreating}}`))
	entries, err := fm.Update(map[string]any{"apiVersion": "v1", "kind": "Pod"}, live, "kube-controller-manager")
	if err != nil {
		b.Fatal(err)
	}
	live = withManaged(t, live, entries)
	next := obj(t, podYAML("Running", "True", `{running: {startedAt: "2026-01-02T03:04:06Z"}}`))
	next["metadata"].(map[string]any)["managedFields"] = live["metadata"].(map[string]any)["managedFields"]
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := fm.Update(live, next, "kubelet"); err != nil {
			b.Fatal(err)
		}
	}
}
