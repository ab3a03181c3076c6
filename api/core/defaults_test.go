package core

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/resource"
)

func TestDefaultPullPolicy(t *testing.T) {
	tests := []struct {
		image string
		want  PullPolicy
	}{
		{"nginx", PullAlways},
		{"nginx:latest", PullAlways},
		{"nginx:1.27", PullIfNotPresent},
		{"registry.example.com:5000/web", PullAlways},
		{"registry.example.com:5000/web:2", PullIfNotPresent},
		{"registry.example.com:5000/web:latest", PullAlways},
		{"nginx@sha256:bc5eac5eafc581aeda3008b4b1f07ebba230de2f27d47767129a6a905c84f470", PullIfNotPresent},
		{"nginx:latest@sha256:bc5eac5eafc581aeda3008b4b1f07ebba230de2f27d47767129a6a905c84f470", PullAlways},
		{"orkit.local/pause:v1", PullIfNotPresent},
		{"", PullIfNotPresent},
	}
	for _, tt := range tests {
		t.Run(tt.image, func(t *testing.T) {
			assert.Equal(t, tt.want, DefaultPullPolicy(tt.image))
		})
	}
}

// TestDefaultPod checks the defaulted pod against what the Kubernetes API
// server stores for the same input, compared as JSON.
func TestDefaultPod(t *testing.T) {
	pod := &Pod{
		ObjectMeta: meta.ObjectMeta{Name: "p", Namespace: "default"},
		Spec: PodSpec{
			DeprecatedServiceAccount: "builder",
			Containers: []Container{{
				Name: "web", Image: "nginx",
				Ports: []ContainerPort{{ContainerPort: 80}},
				Env:   []EnvVar{{Name: "N", ValueFrom: &EnvVarSource{FieldRef: &ObjectFieldSelector{FieldPath: "metadata.name"}}}},
				Resources: ResourceRequirements{
					Limits:   ResourceList{ResourceCPU: resource.MustParse("1"), ResourceMemory: resource.MustParse("1Gi")},
					Requests: ResourceList{ResourceCPU: resource.MustParse("500m")},
				},
				LivenessProbe: &Probe{ProbeHandler: ProbeHandler{HTTPGet: &HTTPGetAction{Port: meta.FromInt(80)}}},
				StartupProbe:  &Probe{ProbeHandler: ProbeHandler{GRPC: &GRPCAction{Port: 9090}}, PeriodSeconds: 3},
				Lifecycle:     &Lifecycle{PreStop: &LifecycleHandler{HTTPGet: &HTTPGetAction{Port: meta.FromString("http")}}},
			}},
			Volumes: []Volume{
				{Name: "scratch"},
				{Name: "cfg", VolumeSource: VolumeSource{ConfigMap: &ConfigMapVolumeSource{LocalObjectReference: LocalObjectReference{Name: "c"}}}},
				{Name: "host", VolumeSource: VolumeSource{HostPath: &HostPathVolumeSource{Path: "/var/log"}}},
				{Name: "tok", VolumeSource: VolumeSource{Projected: &ProjectedVolumeSource{Sources: []VolumeProjection{
					{ServiceAccountToken: &ServiceAccountTokenProjection{Path: "token"}}}}}},
			},
		},
	}
	DefaultPod(pod)
	want := `{
	  "metadata": {"name": "p", "namespace": "default"},
	  "spec": {
	    "volumes": [
	      {"name": "scratch", "emptyDir": {}},
	      {"name": "cfg", "configMap": {"name": "c", "defaultMode": 420}},
	      {"name": "host", "hostPath": {"path": "/var/log", "type": ""}},
	      {"name": "tok", "projected": {"defaultMode": 420, "sources": [{"serviceAccountToken": {"expirationSeconds": 3600, "path": "token"}}]}}
	    ],
	    "containers": [{
	      "name": "web", "image": "nginx",
	      "ports": [{"containerPort": 80, "protocol": "TCP"}],
	      "env": [{"name": "N", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}}],
	      "resources": {"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "500m", "memory": "1Gi"}},
	      "livenessProbe": {"httpGet": {"path": "/", "port": 80, "scheme": "HTTP"},
	        "timeoutSeconds": 1, "periodSeconds": 10, "successThreshold": 1, "failureThreshold": 3},
	      "startupProbe": {"grpc": {"port": 9090, "service": ""},
	        "timeoutSeconds": 1, "periodSeconds": 3, "successThreshold": 1, "failureThreshold": 3},
	      "lifecycle": {"preStop": {"httpGet": {"path": "/", "port": "http", "scheme": "HTTP"}}},
	      "terminationMessagePath": "/dev/termination-log",
	      "terminationMessagePolicy": "File",
	      "imagePullPolicy": "Always"
	    }],
	    "restartPolicy": "Always",
	    "terminationGracePeriodSeconds": 30,
	    "dnsPolicy": "ClusterFirst",
	    "serviceAccountName": "builder",
	    "serviceAccount": "builder",
	    "securityContext": {},
	    "schedulerName": "default-scheduler",
	    "enableServiceLinks": true
	  },
	  "status": {}
	}`
	got, err := json.Marshal(pod)
	require.NoError(t, err)
	assert.JSONEq(t, want, string(got))

	again := meta.DeepCopy(*pod)
	DefaultPod(&again)
	assert.Equal(t, pod, &again, "defaulting is idempotent")
	assert.Empty(t, ValidatePod(pod), "a defaulted pod is valid")
}

func TestDefaultRoundsToMilli(t *testing.T) {
	pod := &Pod{Spec: PodSpec{
		Containers: []Container{{Name: "c", Image: "i:1", Resources: ResourceRequirements{
			Limits:   ResourceList{ResourceCPU: resource.MustParse("0.5m"), ResourceMemory: resource.MustParse("1.5Gi")},
			Requests: ResourceList{ResourceCPU: resource.MustParse("100n")},
		}}},
		Overhead: ResourceList{ResourceCPU: resource.MustParse("1001u")},
	}}
	DefaultPod(pod)
	r := pod.Spec.Containers[0].Resources
	assert.Equal(t, "1m", r.Limits.Cpu().String())
	assert.Equal(t, "1m", r.Requests.Cpu().String())
	assert.Equal(t, "1536Mi", r.Limits.Memory().String(), "exact quantities are kept")
	assert.Equal(t, "2m", pod.Spec.Overhead.Cpu().String())

	q := &ResourceQuota{Spec: ResourceQuotaSpec{Hard: ResourceList{"requests.cpu": resource.MustParse("1e-9"),
		ResourceMemory: resource.MustParse("8E")}}}
	DefaultResourceQuota(q)
	assert.Equal(t, "1e-3", q.Spec.Hard.Name("requests.cpu", resource.DecimalSI).String(), "the format is kept")
	assert.Equal(t, "8E", q.Spec.Hard.Memory().String(), "huge quantities are left alone")
}

func TestDefaultPodHostNetwork(t *testing.T) {
	pod := &Pod{Spec: PodSpec{HostNetwork: true, Containers: []Container{{Name: "c", Image: "i:1",
		Ports: []ContainerPort{{ContainerPort: 9100}, {ContainerPort: 9200, HostPort: 9200}}}}}}
	DefaultPod(pod)
	assert.Equal(t, int32(9100), pod.Spec.Containers[0].Ports[0].HostPort)
	assert.Equal(t, int32(9200), pod.Spec.Containers[0].Ports[1].HostPort)
}

func TestDefaultService(t *testing.T) {
	tests := []struct {
		name string
		in   ServiceSpec
		want string
	}{
		{
			name: "cluster IP",
			in:   ServiceSpec{Ports: []ServicePort{{Port: 80}, {Port: 443, TargetPort: meta.FromString("https")}}},
			want: `{"ports":[{"protocol":"TCP","port":80,"targetPort":80},{"protocol":"TCP","port":443,"targetPort":"https"}],
				"type":"ClusterIP","sessionAffinity":"None","internalTrafficPolicy":"Cluster"}`,
		},
		{
			name: "load balancer with client IP affinity",
			in:   ServiceSpec{Type: ServiceTypeLoadBalancer, SessionAffinity: ServiceAffinityClientIP, Ports: []ServicePort{{Port: 53, Protocol: ProtocolUDP}}},
			want: `{"ports":[{"protocol":"UDP","port":53,"targetPort":53}],"type":"LoadBalancer","sessionAffinity":"ClientIP",
				"externalTrafficPolicy":"Cluster","sessionAffinityConfig":{"clientIP":{"timeoutSeconds":10800}},
				"allocateLoadBalancerNodePorts":true,"internalTrafficPolicy":"Cluster"}`,
		},
		{
			name: "cluster IP with external IPs",
			in:   ServiceSpec{ExternalIPs: []string{"192.0.2.7"}, Ports: []ServicePort{{Port: 80}}},
			want: `{"ports":[{"protocol":"TCP","port":80,"targetPort":80}],"type":"ClusterIP","externalIPs":["192.0.2.7"],
				"sessionAffinity":"None","externalTrafficPolicy":"Cluster","internalTrafficPolicy":"Cluster"}`,
		},
		{
			name: "affinity switched off drops its config",
			in: ServiceSpec{SessionAffinity: ServiceAffinityNone, Ports: []ServicePort{{Port: 80}},
				SessionAffinityConfig: &SessionAffinityConfig{ClientIP: &ClientIPConfig{TimeoutSeconds: ptr(int32(60))}}},
			want: `{"ports":[{"protocol":"TCP","port":80,"targetPort":80}],"type":"ClusterIP","sessionAffinity":"None","internalTrafficPolicy":"Cluster"}`,
		},
		{
			name: "external name",
			in:   ServiceSpec{Type: ServiceTypeExternalName, ExternalName: "db.example.com"},
			want: `{"type":"ExternalName","externalName":"db.example.com","sessionAffinity":"None"}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc := &Service{Spec: tt.in}
			DefaultService(svc)
			got, err := json.Marshal(svc.Spec)
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, string(got))
		})
	}
}

func TestDefaultOtherKinds(t *testing.T) {
	t.Run("namespace", func(t *testing.T) {
		ns := &Namespace{ObjectMeta: meta.ObjectMeta{Name: "demo"}}
		DefaultNamespace(ns)
		DefaultNamespace(ns)
		assert.Equal(t, map[string]string{LabelMetadataName: "demo"}, ns.Labels)
		assert.Equal(t, []FinalizerName{FinalizerKubernetes}, ns.Spec.Finalizers)
		assert.Equal(t, NamespaceActive, ns.Status.Phase)
	})
	t.Run("secret", func(t *testing.T) {
		s := &Secret{}
		DefaultSecret(s)
		assert.Equal(t, SecretTypeOpaque, s.Type)
		s = &Secret{Type: SecretTypeTLS}
		DefaultSecret(s)
		assert.Equal(t, SecretTypeTLS, s.Type)
		s = &Secret{Data: map[string][]byte{"a": []byte("old"), "b": []byte("b")}, StringData: map[string]string{"a": "new", "c": "c"}}
		DefaultSecret(s)
		assert.Equal(t, map[string][]byte{"a": []byte("new"), "b": []byte("b"), "c": []byte("c")}, s.Data, "stringData wins")
		assert.Nil(t, s.StringData, "stringData is write-only")
		s = &Secret{StringData: map[string]string{"k": "v"}}
		DefaultSecret(s)
		assert.Equal(t, map[string][]byte{"k": []byte("v")}, s.Data)
	})
	t.Run("endpoints", func(t *testing.T) {
		ep := &Endpoints{Subsets: []EndpointSubset{{Ports: []EndpointPort{{Port: 80}, {Port: 53, Protocol: ProtocolUDP}}}}}
		DefaultEndpoints(ep)
		assert.Equal(t, ProtocolTCP, ep.Subsets[0].Ports[0].Protocol)
		assert.Equal(t, ProtocolUDP, ep.Subsets[0].Ports[1].Protocol)
	})
	t.Run("node", func(t *testing.T) {
		n := &Node{Status: NodeStatus{Capacity: ResourceList{ResourcePods: resource.MustParse("110")}}}
		DefaultNode(n)
		assert.Equal(t, "110", n.Status.Allocatable.Pods().String())
	})
	t.Run("persistent volume", func(t *testing.T) {
		pv := &PersistentVolume{Spec: PersistentVolumeSpec{PersistentVolumeSource: PersistentVolumeSource{HostPath: &HostPathVolumeSource{Path: "/d"}}}}
		DefaultPersistentVolume(pv)
		assert.Equal(t, PersistentVolumeReclaimRetain, pv.Spec.PersistentVolumeReclaimPolicy)
		assert.Equal(t, PersistentVolumeFilesystem, *pv.Spec.VolumeMode)
		assert.Equal(t, VolumePending, pv.Status.Phase)
		assert.Equal(t, HostPathUnset, *pv.Spec.HostPath.Type)
	})
	t.Run("persistent volume claim", func(t *testing.T) {
		pvc := &PersistentVolumeClaim{}
		DefaultPersistentVolumeClaim(pvc)
		assert.Equal(t, PersistentVolumeFilesystem, *pvc.Spec.VolumeMode)
		assert.Equal(t, ClaimPending, pvc.Status.Phase)
	})
	t.Run("limit range", func(t *testing.T) {
		lr := &LimitRange{Spec: LimitRangeSpec{Limits: []LimitRangeItem{
			{Type: LimitTypeContainer,
				Max:     ResourceList{ResourceCPU: resource.MustParse("2"), ResourceMemory: resource.MustParse("1Gi")},
				Min:     ResourceList{ResourceMemory: resource.MustParse("64Mi"), ResourceEphemeralStorage: resource.MustParse("1Gi")},
				Default: ResourceList{ResourceMemory: resource.MustParse("512Mi")}},
			{Type: LimitTypePod, Max: ResourceList{ResourceCPU: resource.MustParse("4")}},
		}}}
		DefaultLimitRange(lr)
		got, err := json.Marshal(lr.Spec)
		require.NoError(t, err)
		assert.JSONEq(t, `{"limits":[
			{"type":"Container","max":{"cpu":"2","memory":"1Gi"},"min":{"ephemeral-storage":"1Gi","memory":"64Mi"},
			 "default":{"cpu":"2","memory":"512Mi"},"defaultRequest":{"cpu":"2","ephemeral-storage":"1Gi","memory":"512Mi"}},
			{"type":"Pod","max":{"cpu":"4"}}]}`, string(got))
	})
}

func TestDefaultKeepsSingleAndPluralFieldsInStep(t *testing.T) {
	n := &Node{Spec: NodeSpec{PodCIDRs: []string{"10.244.1.0/24", "fd00:1::/64"}}}
	DefaultNode(n)
	assert.Equal(t, "10.244.1.0/24", n.Spec.PodCIDR)
	assert.Empty(t, ValidateNode(&Node{ObjectMeta: meta.ObjectMeta{Name: "n"}, Spec: n.Spec}))
	n = &Node{Spec: NodeSpec{PodCIDR: "10.244.2.0/24"}}
	DefaultNode(n)
	assert.Equal(t, []string{"10.244.2.0/24"}, n.Spec.PodCIDRs)

	svc := &Service{Spec: ServiceSpec{ClusterIP: "10.96.0.10"}}
	DefaultService(svc)
	assert.Equal(t, []string{"10.96.0.10"}, svc.Spec.ClusterIPs)

	pod := &Pod{Status: PodStatus{PodIPs: []PodIP{{IP: "10.244.1.7"}}, HostIP: "172.18.0.2"}}
	DefaultPod(pod)
	assert.Equal(t, "10.244.1.7", pod.Status.PodIP)
	assert.Equal(t, []HostIP{{IP: "172.18.0.2"}}, pod.Status.HostIPs)
}
