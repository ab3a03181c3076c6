package core

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/resource"
)

const dns1123LabelMsg = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', " +
	"and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', " +
	"regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"

// validPod returns a defaulted pod that passes ValidatePod.
func validPod() *Pod {
	pod := &Pod{
		ObjectMeta: meta.ObjectMeta{Name: "web", Namespace: "demo"},
		Spec: PodSpec{
			Volumes: []Volume{{Name: "data"}},
			Containers: []Container{{
				Name: "web", Image: "nginx:1.27",
				Ports:        []ContainerPort{{Name: "http", ContainerPort: 80}},
				VolumeMounts: []VolumeMount{{Name: "data", MountPath: "/data"}},
				Resources: ResourceRequirements{
					Requests: ResourceList{ResourceCPU: resource.MustParse("100m")},
					Limits:   ResourceList{ResourceCPU: resource.MustParse("1")},
				},
				ReadinessProbe: &Probe{ProbeHandler: ProbeHandler{HTTPGet: &HTTPGetAction{Port: meta.FromString("http")}}},
			}},
			InitContainers: []Container{{Name: "init", Image: "busybox:1.36", Command: []string{"true"}}},
		},
	}
	DefaultPod(pod)
	return pod
}

func errStrings(errs field.ErrorList) []string {
	if len(errs) == 0 {
		return nil
	}
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = e.Error()
	}
	return out
}

func TestValidatePod(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*Pod)
		want   []string
	}{
		{"valid", func(*Pod) {}, nil},
		{"no containers", func(p *Pod) { p.Spec.Containers = nil }, []string{"spec.containers: Required value"}},
		{"container name not a DNS label", func(p *Pod) { p.Spec.Containers[0].Name = "Web_1" },
			[]string{`spec.containers[0].name: Invalid value: "Web_1": ` + dns1123LabelMsg}},
		{"container name missing", func(p *Pod) { p.Spec.Containers[0].Name = "" },
			[]string{"spec.containers[0].name: Required value"}},
		{"duplicate container name across init and app", func(p *Pod) { p.Spec.InitContainers[0].Name = "web" },
			[]string{`spec.initContainers[0].name: Duplicate value: "web"`}},
		{"image required", func(p *Pod) { p.Spec.Containers[0].Image = "" },
			[]string{"spec.containers[0].image: Required value"}},
		{"image whitespace", func(p *Pod) { p.Spec.Containers[0].Image = " nginx" },
			[]string{`spec.containers[0].image: Invalid value: " nginx": must not have leading or trailing whitespace`}},
		{"bad pull policy", func(p *Pod) { p.Spec.Containers[0].ImagePullPolicy = "Sometimes" },
			[]string{`spec.containers[0].imagePullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"`}},
		{"termination message policy", func(p *Pod) { p.Spec.Containers[0].TerminationMessagePolicy = "Logs" },
			[]string{`spec.containers[0].terminationMessagePolicy: Invalid value: "Logs": must be 'File' or 'FallbackToLogsOnError'`}},
		{"port out of range", func(p *Pod) { p.Spec.Containers[0].Ports[0].ContainerPort = 70000 },
			[]string{`spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive`}},
		{"port missing", func(p *Pod) { p.Spec.Containers[0].Ports[0].ContainerPort = 0 },
			[]string{`spec.containers[0].ports[0].containerPort: Required value`}},
		{"duplicate port name", func(p *Pod) {
			p.Spec.Containers[0].Ports = append(p.Spec.Containers[0].Ports, ContainerPort{Name: "http", ContainerPort: 81, Protocol: ProtocolTCP})
		}, []string{`spec.containers[0].ports[1].name: Duplicate value: "http"`}},
		{"bad protocol", func(p *Pod) { p.Spec.Containers[0].Ports[0].Protocol = "ICMP" },
			[]string{`spec.containers[0].ports[0].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"`}},
		{"request above limit", func(p *Pod) {
			p.Spec.Containers[0].Resources.Requests[ResourceCPU] = resource.MustParse("2")
		}, []string{`spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1`}},
		{"negative request", func(p *Pod) {
			p.Spec.Containers[0].Resources.Requests[ResourceMemory] = resource.MustParse("-1Mi")
		}, []string{`spec.containers[0].resources.requests[memory]: Invalid value: "-1Mi": must be greater than or equal to 0`}},
		{"unknown resource", func(p *Pod) {
			p.Spec.Containers[0].Resources.Limits["gpu"] = resource.MustParse("1")
		}, []string{`spec.containers[0].resources.limits[gpu]: Invalid value: "gpu": must be a standard resource type or fully qualified`}},
		{"non-container standard resource", func(p *Pod) {
			p.Spec.Containers[0].Resources.Limits[ResourcePods] = resource.MustParse("1")
		}, []string{`spec.containers[0].resources.limits[pods]: Invalid value: "pods": must be a standard resource for containers`}},
		{"extended resource request without limit", func(p *Pod) {
			p.Spec.Containers[0].Resources.Requests["example.com/gpu"] = resource.MustParse("1")
		}, []string{`spec.containers[0].resources.limits: Required value: Limit must be set for non overcommitable resources`}},
		{"fractional extended resource", func(p *Pod) {
			p.Spec.Containers[0].Resources.Limits["example.com/gpu"] = resource.MustParse("500m")
			p.Spec.Containers[0].Resources.Requests["example.com/gpu"] = resource.MustParse("500m")
		}, []string{
			`spec.containers[0].resources.limits[example.com/gpu]: Invalid value: "500m": must be an integer`,
			`spec.containers[0].resources.requests[example.com/gpu]: Invalid value: "500m": must be an integer`,
		}},
		{"sysctl names", func(p *Pod) {
			p.Spec.SecurityContext = &PodSecurityContext{Sysctls: []Sysctl{
				{Name: "foo-", Value: "bar"}, {Name: "kernel.shmmax", Value: "1"}, {Name: "safe-and-unsafe", Value: "1"},
				{Name: "bar..", Value: "42"}, {Name: "net/ipv4/ip_forward", Value: "1"}, {Name: "kernel.shmmax", Value: "2"},
			}}
		}, []string{
			`spec.securityContext.sysctls[0].name: Invalid value: "foo-": must have at most 253 characters and match regex ^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$`,
			`spec.securityContext.sysctls[3].name: Invalid value: "bar..": must have at most 253 characters and match regex ^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$`,
			`spec.securityContext.sysctls[5].name: Duplicate value: "kernel.shmmax"`,
		}},
		{"mount of unknown volume", func(p *Pod) { p.Spec.Containers[0].VolumeMounts[0].Name = "nope" },
			[]string{`spec.containers[0].volumeMounts[0].name: Not found: "nope"`}},
		{"duplicate mount path", func(p *Pod) {
			p.Spec.Containers[0].VolumeMounts = append(p.Spec.Containers[0].VolumeMounts, VolumeMount{Name: "data", MountPath: "/data"})
		}, []string{`spec.containers[0].volumeMounts[1].mountPath: Invalid value: "/data": must be unique`}},
		{"huge pages alone", func(p *Pod) {
			p.Spec.Containers[0].Resources = ResourceRequirements{
				Limits:   ResourceList{"hugepages-2Mi": resource.MustParse("4Mi")},
				Requests: ResourceList{"hugepages-2Mi": resource.MustParse("4Mi")}}
		}, []string{"spec.containers[0].resources: Forbidden: HugePages require cpu or memory"}},
		{"mount with no name", func(p *Pod) { p.Spec.Containers[0].VolumeMounts[0].Name = "" },
			[]string{"spec.containers[0].volumeMounts[0].name: Required value", `spec.containers[0].volumeMounts[0].name: Not found: ""`}},
		{"bidirectional propagation unprivileged", func(p *Pod) {
			p.Spec.Containers[0].VolumeMounts[0].MountPropagation = ptr(MountPropagationBidirectional)
		}, []string{"spec.containers[0].volumeMounts[0].mountPropagation: Forbidden: Bidirectional mount propagation is available only to privileged containers"}},
		{"host port conflict", func(p *Pod) {
			p.Spec.Containers[0].Ports[0].HostPort = 8080
			p.Spec.Containers = append(p.Spec.Containers, Container{Name: "b", Image: "b:1", ImagePullPolicy: PullIfNotPresent,
				TerminationMessagePolicy: TerminationMessageReadFile, Ports: []ContainerPort{{ContainerPort: 81, HostPort: 8080, Protocol: ProtocolTCP}}})
		}, []string{`spec.containers[1].ports[0].hostPort: Duplicate value: "/TCP/8080"`}},
		{"deletion cost", func(p *Pod) { p.Annotations = map[string]string{AnnotationPodDeletionCost: "high"} },
			[]string{`metadata.annotations[controller.kubernetes.io/pod-deletion-cost]: Invalid value: "high": must be a 32bit integer`}},
		{"duplicate volume", func(p *Pod) { p.Spec.Volumes = append(p.Spec.Volumes, p.Spec.Volumes[0]) },
			[]string{`spec.volumes[1].name: Duplicate value: "data"`}},
		{"two volume sources", func(p *Pod) {
			p.Spec.Volumes[0].HostPath = &HostPathVolumeSource{Path: "/x"}
		}, []string{`spec.volumes[0].emptyDir: Forbidden: may not specify more than 1 volume type`}},
		{"secret volume without name", func(p *Pod) {
			p.Spec.Volumes[0].VolumeSource = VolumeSource{Secret: &SecretVolumeSource{DefaultMode: ptr(int32(0o1000))}}
		}, []string{
			`spec.volumes[0].secret.secretName: Required value`,
			`spec.volumes[0].secret.defaultMode: Invalid value: 512: must be a number between 0 and 0777 (octal), both inclusive`,
		}},
		{"restart policy", func(p *Pod) { p.Spec.RestartPolicy = "Sometimes" },
			[]string{`spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"`}},
		{"restart policy empty", func(p *Pod) { p.Spec.RestartPolicy = "" }, []string{`spec.restartPolicy: Required value`}},
		{"dns policy", func(p *Pod) { p.Spec.DNSPolicy = "Cluster" },
			[]string{`spec.dnsPolicy: Unsupported value: "Cluster": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"`}},
		{"dns none without config", func(p *Pod) { p.Spec.DNSPolicy = DNSNone },
			[]string{"spec.dnsConfig: Required value: must provide `dnsConfig` when `dnsPolicy` is None"}},
		{"active deadline", func(p *Pod) { p.Spec.ActiveDeadlineSeconds = ptr(int64(0)) },
			[]string{`spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive`}},
		{"negative grace period", func(p *Pod) { p.Spec.TerminationGracePeriodSeconds = ptr(int64(-5)) },
			[]string{`spec.terminationGracePeriodSeconds: Invalid value: -5: must be greater than or equal to 0`}},
		{"probe without handler", func(p *Pod) { p.Spec.Containers[0].ReadinessProbe.ProbeHandler = ProbeHandler{} },
			[]string{`spec.containers[0].readinessProbe: Required value: must specify a handler type`}},
		{"liveness success threshold", func(p *Pod) {
			p.Spec.Containers[0].LivenessProbe = &Probe{ProbeHandler: ProbeHandler{TCPSocket: &TCPSocketAction{Port: meta.FromInt(80)}}, SuccessThreshold: 2}
		}, []string{`spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1`}},
		{"probe on regular init container", func(p *Pod) {
			p.Spec.InitContainers[0].ReadinessProbe = &Probe{ProbeHandler: ProbeHandler{Exec: &ExecAction{Command: []string{"true"}}}}
		}, []string{`spec.initContainers[0].readinessProbe: Forbidden: may not be set for init containers without restartPolicy=Always`}},
		{"env without name and two sources", func(p *Pod) {
			p.Spec.Containers[0].Env = []EnvVar{{ValueFrom: &EnvVarSource{
				ConfigMapKeyRef: &ConfigMapKeySelector{LocalObjectReference: LocalObjectReference{Name: "c"}, Key: "k"},
				SecretKeyRef:    &SecretKeySelector{LocalObjectReference: LocalObjectReference{Name: "s"}, Key: "k"},
			}}}
		}, []string{
			`spec.containers[0].env[0].name: Required value`,
			`spec.containers[0].env[0].valueFrom: Invalid value: "": may not have more than one field specified at a time`,
		}},
		{"toleration with empty key and Equal", func(p *Pod) { p.Spec.Tolerations = []Toleration{{Value: "x"}} },
			[]string{"spec.tolerations[0].operator: Invalid value: \"\": operator must be Exists when `key` is empty, which means \"match all values and all keys\""}},
		{"toleration seconds need NoExecute", func(p *Pod) {
			p.Spec.Tolerations = []Toleration{{Key: "k", Operator: TolerationOpExists, Effect: TaintEffectNoSchedule, TolerationSeconds: ptr(int64(5))}}
		}, []string{"spec.tolerations[0].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set"}},
		{"node affinity operator", func(p *Pod) {
			p.Spec.Affinity = &Affinity{NodeAffinity: &NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &NodeSelector{
				NodeSelectorTerms: []NodeSelectorTerm{{MatchExpressions: []NodeSelectorRequirement{{Key: "zone", Operator: NodeSelectorOpIn}}}}}}}
		}, []string{"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'"}},
		{"pod anti-affinity without topology key", func(p *Pod) {
			p.Spec.Affinity = &Affinity{PodAntiAffinity: &PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []PodAffinityTerm{{}}}}
		}, []string{"spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Required value: can not be empty"}},
		{"preferred weight", func(p *Pod) {
			p.Spec.Affinity = &Affinity{PodAffinity: &PodAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []WeightedPodAffinityTerm{
				{Weight: 101, PodAffinityTerm: PodAffinityTerm{TopologyKey: LabelHostname}}}}}
		}, []string{"spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 101: must be in the range 1-100"}},
		{"node name", func(p *Pod) { p.Spec.NodeName = "Node_1" },
			[]string{`spec.nodeName: Invalid value: "Node_1": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`}},
		{"host network port mismatch", func(p *Pod) {
			p.Spec.HostNetwork = true
			p.Spec.Containers[0].Ports[0].HostPort = 8080
		}, []string{"spec.containers[0].ports[0].hostPort: Invalid value: 8080: must match `containerPort` when `hostNetwork` is true"}},
		{"user namespace with host PID", func(p *Pod) { p.Spec.HostUsers, p.Spec.HostPID = ptr(false), true },
			[]string{"spec.HostPID: Forbidden: when `pod.Spec.HostUsers` is false"}},
		{"topology spread", func(p *Pod) {
			c := TopologySpreadConstraint{MaxSkew: 1, TopologyKey: LabelTopologyZone, WhenUnsatisfiable: ScheduleAnyway}
			p.Spec.TopologySpreadConstraints = []TopologySpreadConstraint{c, c, {MaxSkew: 0, WhenUnsatisfiable: "Never", MinDomains: ptr(int32(2))}}
		}, []string{
			`spec.topologySpreadConstraints[0].{topologyKey, whenUnsatisfiable}: Duplicate value: "{topology.kubernetes.io/zone, ScheduleAnyway}"`,
			`spec.topologySpreadConstraints[2].maxSkew: Invalid value: 0: must be greater than zero`,
			`spec.topologySpreadConstraints[2].topologyKey: Required value: can not be empty`,
			`spec.topologySpreadConstraints[2].whenUnsatisfiable: Unsupported value: "Never": supported values: "DoNotSchedule", "ScheduleAnyway"`,
			`spec.topologySpreadConstraints[2].minDomains: Invalid value: 2: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not Never`,
		}},
		{"topology spread policies and matchLabelKeys", func(p *Pod) {
			sel := &meta.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
			p.Spec.TopologySpreadConstraints = []TopologySpreadConstraint{
				{MaxSkew: 1, TopologyKey: LabelTopologyZone, WhenUnsatisfiable: DoNotSchedule, LabelSelector: sel,
					NodeAffinityPolicy: ptr("Sometimes"), NodeTaintsPolicy: ptr(NodeInclusionPolicyHonor), MatchLabelKeys: []string{"app", "pod-template-hash"}},
				{MaxSkew: 1, TopologyKey: LabelHostname, WhenUnsatisfiable: DoNotSchedule, MatchLabelKeys: []string{"version"}},
			}
		}, []string{
			`spec.topologySpreadConstraints[0].nodeAffinityPolicy: Unsupported value: "Sometimes": supported values: "Honor", "Ignore"`,
			`spec.topologySpreadConstraints[0].matchLabelKeys[0]: Invalid value: "app": exists in both matchLabelKeys and labelSelector`,
			`spec.topologySpreadConstraints[1].matchLabelKeys: Forbidden: must not be specified when labelSelector is not set`,
		}},
		{"share process namespace with host PID", func(p *Pod) { p.Spec.ShareProcessNamespace, p.Spec.HostPID = ptr(true), true },
			[]string{"spec.securityContext.shareProcessNamespace: Invalid value: true: ShareProcessNamespace and HostPID cannot both be enabled"}},
		{"duplicate scheduling gate", func(p *Pod) { p.Spec.SchedulingGates = []PodSchedulingGate{{Name: "a"}, {Name: "a"}} },
			[]string{`spec.schedulingGates[1]: Duplicate value: "a"`}},
		{"overhead resource", func(p *Pod) { p.Spec.Overhead = ResourceList{ResourcePods: resource.MustParse("1")} },
			[]string{`spec.overhead.limits[pods]: Invalid value: "pods": must be a standard resource for containers`}},
		{"missing namespace", func(p *Pod) { p.Namespace = "" }, []string{"metadata.namespace: Required value"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := validPod()
			tt.mutate(pod)
			assert.Equal(t, tt.want, errStrings(ValidatePod(pod)))
		})
	}
}

func TestValidatePodUpdate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*Pod)
		want   []string
	}{
		{"no change", func(*Pod) {}, nil},
		{"image", func(p *Pod) {
			p.Spec.Containers[0].Image = "nginx:1.28"
			p.Spec.InitContainers[0].Image = "busybox:1.37"
		}, nil},
		{"labels", func(p *Pod) { p.Labels = map[string]string{"a": "b"} }, nil},
		{"set active deadline", func(p *Pod) { p.Spec.ActiveDeadlineSeconds = ptr(int64(60)) }, nil},
		{"add toleration", func(p *Pod) {
			p.Spec.Tolerations = append(p.Spec.Tolerations, Toleration{Key: "k", Operator: TolerationOpExists})
		}, nil},
		{"restart policy", func(p *Pod) { p.Spec.RestartPolicy = RestartPolicyNever },
			[]string{"spec: Forbidden: " + podUpdateForbidden + "\n- spec.restartPolicy: \"Always\"\n+ spec.restartPolicy: \"Never\""}},
		{"add container", func(p *Pod) {
			p.Spec.Containers = append(p.Spec.Containers, Container{Name: "b", Image: "x:1", ImagePullPolicy: PullAlways, TerminationMessagePolicy: "File"})
		},
			[]string{"spec.containers: Forbidden: pod updates may not add or remove containers"}},
		{"name", func(p *Pod) { p.Name = "other" },
			[]string{`metadata.name: Invalid value: "other": field is immutable`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old, pod := validPod(), validPod()
			tt.mutate(pod)
			assert.Equal(t, tt.want, errStrings(ValidatePodUpdate(pod, old)))
		})
	}

	t.Run("active deadline", func(t *testing.T) {
		old, pod := validPod(), validPod()
		old.Spec.ActiveDeadlineSeconds = ptr(int64(60))
		pod.Spec.ActiveDeadlineSeconds = ptr(int64(120))
		assert.Equal(t, []string{`spec.activeDeadlineSeconds: Invalid value: 120: must be less than or equal to previous value`},
			errStrings(ValidatePodUpdate(pod, old)))
		pod.Spec.ActiveDeadlineSeconds = nil
		assert.Equal(t, []string{`spec.activeDeadlineSeconds: Invalid value: must not update from a positive integer to nil value`},
			errStrings(ValidatePodUpdate(pod, old)))
	})
	t.Run("modify toleration", func(t *testing.T) {
		old, pod := validPod(), validPod()
		old.Spec.Tolerations = []Toleration{{Key: "k", Operator: TolerationOpEqual, Value: "a", Effect: TaintEffectNoExecute, TolerationSeconds: ptr(int64(60))}}
		pod.Spec.Tolerations = []Toleration{{Key: "k", Operator: TolerationOpEqual, Value: "a", Effect: TaintEffectNoExecute, TolerationSeconds: ptr(int64(10))}}
		assert.Empty(t, ValidatePodUpdate(pod, old), "tolerationSeconds may change")
		pod.Spec.Tolerations[0].Value = "b"
		assert.Equal(t, []string{"spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds"},
			errStrings(ValidatePodUpdate(pod, old)))
	})
	t.Run("scheduling gates", func(t *testing.T) {
		old, pod := validPod(), validPod()
		old.Spec.SchedulingGates = []PodSchedulingGate{{Name: "a"}, {Name: "b"}}
		pod.Spec.SchedulingGates = []PodSchedulingGate{{Name: "b"}}
		assert.Empty(t, ValidatePodUpdate(pod, old))
		pod.Spec.SchedulingGates = []PodSchedulingGate{{Name: "c"}}
		assert.Equal(t, []string{"spec.schedulingGates[0]: Forbidden: only deletion is allowed, but found new scheduling gate 'c'"},
			errStrings(ValidatePodUpdate(pod, old)))
	})
	t.Run("grace period from negative to 1", func(t *testing.T) {
		old, pod := validPod(), validPod()
		old.Spec.TerminationGracePeriodSeconds = ptr(int64(-1))
		pod.Spec.TerminationGracePeriodSeconds = ptr(int64(1))
		assert.Empty(t, ValidatePodUpdate(pod, old))
	})
	t.Run("inputs are not modified", func(t *testing.T) {
		old, pod := validPod(), validPod()
		pod.Spec.Containers[0].Image = "nginx:2"
		_ = ValidatePodUpdate(pod, old)
		assert.Equal(t, "nginx:2", pod.Spec.Containers[0].Image)
	})
}

func TestValidatePodStatusUpdate(t *testing.T) {
	running := func() *Pod {
		p := validPod()
		p.Spec.NodeName = "node-1"
		p.Spec.RestartPolicy = RestartPolicyNever
		p.Status = PodStatus{Phase: PodRunning, PodIP: "10.244.0.5", PodIPs: []PodIP{{IP: "10.244.0.5"}},
			ContainerStatuses: []ContainerStatus{{Name: "web", State: ContainerState{Terminated: &ContainerStateTerminated{ExitCode: 0}}}}}
		return p
	}
	tests := []struct {
		name   string
		mutate func(*Pod)
		want   []string
	}{
		{"condition", func(p *Pod) {
			p.Status.Conditions = []PodCondition{{Type: PodReady, Status: meta.ConditionTrue}}
		}, nil},
		{"bad condition status", func(p *Pod) {
			p.Status.Conditions = []PodCondition{{Type: PodReady, Status: "Yes"}}
		}, []string{`status.conditions[0].status: Unsupported value: "Yes": supported values: "True", "False", "Unknown"`}},
		{"node name", func(p *Pod) { p.Spec.NodeName = "node-2" },
			[]string{"status.nodeName: Forbidden: may not be changed directly"}},
		{"restart terminated container", func(p *Pod) {
			p.Status.ContainerStatuses[0].State = ContainerState{Running: &ContainerStateRunning{}}
		}, []string{"status.containerStatuses[0].state: Forbidden: may not be transitioned to non-terminated state"}},
		{"pod IP mismatch", func(p *Pod) { p.Status.PodIPs = []PodIP{{IP: "10.244.0.6"}} },
			[]string{`status.podIPs[0].ip: Invalid value: "10.244.0.6": must be equal to podIP`}},
		{"bad phase", func(p *Pod) { p.Status.Phase = "Exploded" },
			[]string{`status.phase: Unsupported value: "Exploded": supported values: "Pending", "Running", "Succeeded", "Failed", "Unknown"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old, pod := running(), running()
			tt.mutate(pod)
			assert.Equal(t, tt.want, errStrings(ValidatePodStatusUpdate(pod, old)))
		})
	}
	t.Run("terminal phase", func(t *testing.T) {
		old, pod := running(), running()
		old.Status.Phase = PodSucceeded
		assert.Equal(t, []string{"status.phase: Forbidden: may not be changed from Succeeded to Running"},
			errStrings(ValidatePodStatusUpdate(pod, old)))
	})
}

func TestValidatePodSpecDiffIsBounded(t *testing.T) {
	old, pod := validPod(), validPod()
	old.Spec.NodeSelector, pod.Spec.NodeSelector = map[string]string{}, map[string]string{}
	for i := 0; i < 30; i++ {
		k := fmt.Sprintf("k%02d", i)
		old.Spec.NodeSelector[k], pod.Spec.NodeSelector[k] = "a", "b"
	}
	pod.Spec.Containers[0].Args = []string{strings.Repeat("x", 1000)}
	errs := ValidatePodUpdate(pod, old)
	if assert.Len(t, errs, 1) {
		msg := errs[0].Error()
		assert.Contains(t, msg, "+ spec.containers[0].args: [\"xxxx")
		assert.Contains(t, msg, "- spec.nodeSelector.k00: \"a\"")
		assert.Contains(t, msg, "  ... and 41 more")
		assert.Less(t, len(msg), 2000)
	}
}

func TestValidatePodTemplateSpec(t *testing.T) {
	tmpl := &PodTemplateSpec{
		ObjectMeta: meta.ObjectMeta{Labels: map[string]string{"app": "agent"}},
		Spec: PodSpec{HostNetwork: true, Containers: []Container{{Name: "agent", Image: "agent:1",
			Ports: []ContainerPort{{ContainerPort: 9100}}}}},
	}
	DefaultPodTemplateSpec(tmpl)
	p := field.NewPath("spec", "template")
	assert.Empty(t, ValidatePodTemplateSpec(tmpl, p), "a template may leave host ports to pod defaulting")

	tmpl.Spec.Containers[0].Ports[0].HostPort = 9200
	tmpl.Labels["bad key!"] = "x"
	tmpl.Spec.EphemeralContainers = []EphemeralContainer{{Container: Container{Name: "debug", Image: "busybox:1", TerminationMessagePolicy: TerminationMessageReadFile, ImagePullPolicy: PullIfNotPresent}}}
	assert.Equal(t, []string{
		`spec.template.metadata.labels: Invalid value: "bad key!": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
		"spec.template.spec.ephemeralContainers: Forbidden: ephemeral containers not allowed in pod template",
		"spec.template.spec.containers[0].ports[0].hostPort: Invalid value: 9200: must match `containerPort` when `hostNetwork` is true",
	}, errStrings(ValidatePodTemplateSpec(tmpl, p)))
}
