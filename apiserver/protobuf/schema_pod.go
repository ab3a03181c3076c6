package protobuf

// Field numbers in this file are data taken from k8s.io/api core/v1
// generated.proto; the JSON names are the Go types' json tags.

// containerFields is shared by Container and EphemeralContainerCommon,
// which carry the same field numbers.
func containerFields() fields {
	return fields{
		1: strp("name"), 2: str("image"), 3: strs("command"), 4: strs("args"), 5: str("workingDir"),
		6: msgs("ports", "core.ContainerPort"), 19: msgs("envFrom", "core.EnvFromSource"),
		7: msgs("env", "core.EnvVar"), 8: msg("resources", "core.ResourceRequirements"),
		23: msgs("resizePolicy", "core.ContainerResizePolicy"), 24: strp("restartPolicy"),
		25: msgs("restartPolicyRules", "core.ContainerRestartRule"),
		9:  msgs("volumeMounts", "core.VolumeMount"), 21: msgs("volumeDevices", "core.VolumeDevice"),
		10: msg("livenessProbe", "core.Probe"), 11: msg("readinessProbe", "core.Probe"),
		22: msg("startupProbe", "core.Probe"), 12: msg("lifecycle", "core.Lifecycle"),
		13: str("terminationMessagePath"), 20: str("terminationMessagePolicy"), 14: str("imagePullPolicy"),
		15: msg("securityContext", "core.SecurityContext"), 16: bln("stdin"), 17: bln("stdinOnce"), 18: bln("tty"),
	}
}

// podSpecFields is core/v1 PodSpec.
func podSpecFields() fields {
	return fields{
		1: msgs("volumes", "core.Volume"), 20: msgs("initContainers", "core.Container"),
		2: msgs("containers", "core.Container"), 34: msgs("ephemeralContainers", "core.EphemeralContainer"),
		3: str("restartPolicy"), 4: i64p("terminationGracePeriodSeconds"), 5: i64p("activeDeadlineSeconds"),
		6: str("dnsPolicy"), 7: mapStr("nodeSelector"), 8: str("serviceAccountName"), 9: str("serviceAccount"),
		21: blnp("automountServiceAccountToken"), 10: str("nodeName"), 11: bln("hostNetwork"),
		12: bln("hostPID"), 13: bln("hostIPC"), 27: blnp("shareProcessNamespace"),
		14: msg("securityContext", "core.PodSecurityContext"),
		15: msgs("imagePullSecrets", "core.LocalObjectReference"), 16: str("hostname"), 17: str("subdomain"),
		18: msg("affinity", "core.Affinity"), 19: str("schedulerName"), 22: msgs("tolerations", "core.Toleration"),
		23: msgs("hostAliases", "core.HostAlias"), 24: str("priorityClassName"), 25: i32p("priority"),
		26: msg("dnsConfig", "core.PodDNSConfig"), 28: msgs("readinessGates", "core.PodReadinessGate"),
		29: strp("runtimeClassName"), 30: blnp("enableServiceLinks"), 31: strp("preemptionPolicy"),
		32: quantities("overhead"), 33: msgs("topologySpreadConstraints", "core.TopologySpreadConstraint"),
		35: blnp("setHostnameAsFQDN"), 36: msg("os", "core.PodOS"), 37: blnp("hostUsers"),
		38: msgs("schedulingGates", "core.PodSchedulingGate"), 39: msgs("resourceClaims", "core.PodResourceClaim"),
		40: msg("resources", "core.ResourceRequirements"), 41: strp("hostnameOverride"),
	}
}

// corePodMessages covers Pod, PodTemplate(Spec), containers, environment,
// resources, probes and lifecycle hooks.
func corePodMessages() map[string]fields {
	return map[string]fields{
		"core.Pod":             {1: objectMeta(), 2: msg("spec", "core.PodSpec"), 3: msg("status", "core.PodStatus")},
		"core.PodTemplateSpec": {1: objectMeta(), 2: msg("spec", "core.PodSpec")},
		"core.PodTemplate":     {1: objectMeta(), 2: msg("template", "core.PodTemplateSpec")},
		"core.ReplicationController": {
			1: objectMeta(), 2: msg("spec", "core.ReplicationControllerSpec"), 3: msg("status", "core.ReplicationControllerStatus"),
		},
		"core.ReplicationControllerSpec": {
			1: i32p("replicas"), 4: i32("minReadySeconds"), 2: mapStr("selector"), 3: msg("template", "core.PodTemplateSpec"),
		},
		"core.ReplicationControllerStatus": {
			1: i32p("replicas"), 2: i32("fullyLabeledReplicas"), 4: i32("readyReplicas"), 5: i32("availableReplicas"),
			3: i64("observedGeneration"), 6: msgs("conditions", "core.ReplicationControllerCondition"),
		},
		"core.ReplicationControllerCondition": conditionFields(),
		"core.PodSpec":                        podSpecFields(),
		"core.Container":                      containerFields(),
		"core.EphemeralContainerCommon":       containerFields(),
		"core.EphemeralContainer": {
			1: inl("core.EphemeralContainerCommon"), 2: str("targetContainerName"),
		},
		"core.ContainerPort": {
			1: str("name"), 2: i32("hostPort"), 3: i32p("containerPort"), 4: str("protocol"), 5: str("hostIP"),
		},
		"core.EnvFromSource": {
			1: str("prefix"), 2: msg("configMapRef", "core.ConfigMapEnvSource"), 3: msg("secretRef", "core.SecretEnvSource"),
		},
		"core.ConfigMapEnvSource": {1: inl("core.LocalObjectReference"), 2: blnp("optional")},
		"core.SecretEnvSource":    {1: inl("core.LocalObjectReference"), 2: blnp("optional")},
		"core.EnvVar":             {1: strp("name"), 2: str("value"), 3: msg("valueFrom", "core.EnvVarSource")},
		"core.EnvVarSource": {
			1: msg("fieldRef", "core.ObjectFieldSelector"), 2: msg("resourceFieldRef", "core.ResourceFieldSelector"),
			3: msg("configMapKeyRef", "core.ConfigMapKeySelector"), 4: msg("secretKeyRef", "core.SecretKeySelector"),
			5: msg("fileKeyRef", "core.FileKeySelector"),
		},
		"core.ObjectFieldSelector":   {1: str("apiVersion"), 2: strp("fieldPath")},
		"core.ResourceFieldSelector": {1: str("containerName"), 2: strp("resource"), 3: quantity("divisor")},
		"core.ConfigMapKeySelector":  {1: inl("core.LocalObjectReference"), 2: strp("key"), 3: blnp("optional")},
		"core.SecretKeySelector":     {1: inl("core.LocalObjectReference"), 2: strp("key"), 3: blnp("optional")},
		"core.FileKeySelector":       {1: strp("volumeName"), 2: strp("path"), 3: strp("key"), 4: blnp("optional")},
		"core.ResourceRequirements": {
			1: quantities("limits"), 2: quantities("requests"), 3: msgs("claims", "core.ResourceClaim"),
		},
		"core.ResourceClaim":                   {1: strp("name"), 2: str("request")},
		"core.ContainerResizePolicy":           {1: strp("resourceName"), 2: strp("restartPolicy")},
		"core.ContainerRestartRule":            {1: strp("action"), 2: msg("exitCodes", "core.ContainerRestartRuleOnExitCodes")},
		"core.ContainerRestartRuleOnExitCodes": {1: strp("operator"), 2: i32s("values")},
		"core.VolumeMount": {
			1: strp("name"), 2: bln("readOnly"), 7: strp("recursiveReadOnly"), 3: strp("mountPath"),
			4: str("subPath"), 5: strp("mountPropagation"), 6: str("subPathExpr"),
		},
		"core.VolumeDevice": {1: strp("name"), 2: strp("devicePath")},
		"core.Probe": {
			1: inl("core.ProbeHandler"), 2: i32("initialDelaySeconds"), 3: i32("timeoutSeconds"),
			4: i32("periodSeconds"), 5: i32("successThreshold"), 6: i32("failureThreshold"),
			7: i64p("terminationGracePeriodSeconds"),
		},
		"core.ProbeHandler": {
			1: msg("exec", "core.ExecAction"), 2: msg("httpGet", "core.HTTPGetAction"),
			3: msg("tcpSocket", "core.TCPSocketAction"), 4: msg("grpc", "core.GRPCAction"),
		},
		"core.ExecAction": {1: strs("command")},
		"core.HTTPGetAction": {
			1: str("path"), 2: intOrString("port"), 3: str("host"), 4: str("scheme"),
			5: msgs("httpHeaders", "core.HTTPHeader"),
		},
		"core.HTTPHeader":      {1: strp("name"), 2: strp("value")},
		"core.TCPSocketAction": {1: intOrString("port"), 2: str("host")},
		"core.GRPCAction":      {1: i32p("port"), 2: strp("service")},
		"core.Lifecycle": {
			1: msg("postStart", "core.LifecycleHandler"), 2: msg("preStop", "core.LifecycleHandler"), 3: strp("stopSignal"),
		},
		"core.LifecycleHandler": {
			1: msg("exec", "core.ExecAction"), 2: msg("httpGet", "core.HTTPGetAction"),
			3: msg("tcpSocket", "core.TCPSocketAction"), 4: msg("sleep", "core.SleepAction"),
		},
		"core.SleepAction": {1: i64p("seconds")},
	}
}

// coreSecurityMessages covers container and pod security contexts.
func coreSecurityMessages() map[string]fields {
	return map[string]fields{
		"core.SecurityContext": {
			1: msg("capabilities", "core.Capabilities"), 2: blnp("privileged"),
			3: msg("seLinuxOptions", "core.SELinuxOptions"), 10: msg("windowsOptions", "core.WindowsSecurityContextOptions"),
			4: i64p("runAsUser"), 8: i64p("runAsGroup"), 5: blnp("runAsNonRoot"), 6: blnp("readOnlyRootFilesystem"),
			7: blnp("allowPrivilegeEscalation"), 9: strp("procMount"), 11: msg("seccompProfile", "core.SeccompProfile"),
			12: msg("appArmorProfile", "core.AppArmorProfile"), 13: msgs("ulimits", "core.Ulimit"),
		},
		"core.Capabilities":   {1: strs("add"), 2: strs("drop")},
		"core.SELinuxOptions": {1: str("user"), 2: str("role"), 3: str("type"), 4: str("level")},
		"core.WindowsSecurityContextOptions": {
			1: strp("gmsaCredentialSpecName"), 2: strp("gmsaCredentialSpec"), 3: strp("runAsUserName"), 4: blnp("hostProcess"),
		},
		"core.SeccompProfile":  {1: strp("type"), 2: strp("localhostProfile")},
		"core.AppArmorProfile": {1: strp("type"), 2: strp("localhostProfile")},
		"core.Ulimit":          {1: strp("name"), 2: i64p("hard"), 3: i64p("soft")},
		"core.PodSecurityContext": {
			1: msg("seLinuxOptions", "core.SELinuxOptions"), 8: msg("windowsOptions", "core.WindowsSecurityContextOptions"),
			2: i64p("runAsUser"), 6: i64p("runAsGroup"), 3: blnp("runAsNonRoot"), 4: i64s("supplementalGroups"),
			12: strp("supplementalGroupsPolicy"), 5: i64p("fsGroup"), 7: msgs("sysctls", "core.Sysctl"),
			9: strp("fsGroupChangePolicy"), 10: msg("seccompProfile", "core.SeccompProfile"),
			11: msg("appArmorProfile", "core.AppArmorProfile"), 13: strp("seLinuxChangePolicy"),
		},
		"core.Sysctl": {1: strp("name"), 2: strp("value")},
	}
}

// coreSchedulingMessages covers affinity, tolerations, DNS, topology
// spread and scheduling gates.
func coreSchedulingMessages() map[string]fields {
	return map[string]fields{
		"core.Affinity": {
			1: msg("nodeAffinity", "core.NodeAffinity"), 2: msg("podAffinity", "core.PodAffinity"),
			3: msg("podAntiAffinity", "core.PodAntiAffinity"),
		},
		"core.NodeAffinity": {
			1: msg("requiredDuringSchedulingIgnoredDuringExecution", "core.NodeSelector"),
			2: msgs("preferredDuringSchedulingIgnoredDuringExecution", "core.PreferredSchedulingTerm"),
		},
		"core.NodeSelector": {1: required(msgs("nodeSelectorTerms", "core.NodeSelectorTerm"))},
		"core.NodeSelectorTerm": {
			1: msgs("matchExpressions", "core.NodeSelectorRequirement"), 2: msgs("matchFields", "core.NodeSelectorRequirement"),
		},
		"core.NodeSelectorRequirement": {1: strp("key"), 2: strp("operator"), 3: strs("values")},
		"core.PreferredSchedulingTerm": {1: i32p("weight"), 2: msg("preference", "core.NodeSelectorTerm")},
		"core.PodAffinity": {
			1: msgs("requiredDuringSchedulingIgnoredDuringExecution", "core.PodAffinityTerm"),
			2: msgs("preferredDuringSchedulingIgnoredDuringExecution", "core.WeightedPodAffinityTerm"),
		},
		"core.PodAntiAffinity": {
			1: msgs("requiredDuringSchedulingIgnoredDuringExecution", "core.PodAffinityTerm"),
			2: msgs("preferredDuringSchedulingIgnoredDuringExecution", "core.WeightedPodAffinityTerm"),
		},
		"core.PodAffinityTerm": {
			1: labelSelector("labelSelector"), 2: strs("namespaces"), 3: strp("topologyKey"),
			4: labelSelector("namespaceSelector"), 5: strs("matchLabelKeys"), 6: strs("mismatchLabelKeys"),
		},
		"core.WeightedPodAffinityTerm": {1: i32p("weight"), 2: msg("podAffinityTerm", "core.PodAffinityTerm")},
		"core.Toleration": {
			1: str("key"), 2: str("operator"), 3: str("value"), 4: str("effect"), 5: i64p("tolerationSeconds"),
		},
		"core.HostAlias":          {1: strp("ip"), 2: strs("hostnames")},
		"core.PodDNSConfig":       {1: strs("nameservers"), 2: strs("searches"), 3: msgs("options", "core.PodDNSConfigOption")},
		"core.PodDNSConfigOption": {1: str("name"), 2: strp("value")},
		"core.PodReadinessGate":   {1: strp("conditionType")},
		"core.TopologySpreadConstraint": {
			1: i32p("maxSkew"), 2: strp("topologyKey"), 3: strp("whenUnsatisfiable"), 4: labelSelector("labelSelector"),
			5: i32p("minDomains"), 6: strp("nodeAffinityPolicy"), 7: strp("nodeTaintsPolicy"), 8: strs("matchLabelKeys"),
		},
		"core.PodOS":             {1: strp("name")},
		"core.PodSchedulingGate": {1: strp("name")},
		"core.PodResourceClaim": {
			1: strp("name"), 3: strp("resourceClaimName"), 4: strp("resourceClaimTemplateName"),
		},
	}
}

// corePodStatusMessages covers PodStatus and container statuses.
func corePodStatusMessages() map[string]fields {
	return map[string]fields{
		"core.PodStatus": {
			17: i64("observedGeneration"), 1: str("phase"), 2: msgs("conditions", "core.PodCondition"),
			3: str("message"), 4: str("reason"), 11: str("nominatedNodeName"), 5: str("hostIP"),
			16: msgs("hostIPs", "core.HostIP"), 6: str("podIP"), 12: msgs("podIPs", "core.PodIP"),
			7: timeField("startTime"), 10: msgs("initContainerStatuses", "core.ContainerStatus"),
			8: msgs("containerStatuses", "core.ContainerStatus"), 9: str("qosClass"),
			13: msgs("ephemeralContainerStatuses", "core.ContainerStatus"), 14: str("resize"),
			15: msgs("resourceClaimStatuses", "core.PodResourceClaimStatus"), 19: quantities("allocatedResources"),
			20: msg("resources", "core.ResourceRequirements"),
		},
		"core.PodCondition": {
			1: strp("type"), 7: i64("observedGeneration"), 2: strp("status"), 3: timeField("lastProbeTime"),
			4: timeField("lastTransitionTime"), 5: str("reason"), 6: str("message"),
		},
		"core.HostIP":                 {1: strp("ip")},
		"core.PodIP":                  {1: strp("ip")},
		"core.PodResourceClaimStatus": {1: strp("name"), 2: strp("resourceClaimName")},
		"core.ContainerStatus": {
			1: strp("name"), 2: msg("state", "core.ContainerState"), 3: msg("lastState", "core.ContainerState"),
			4: blnp("ready"), 5: i32p("restartCount"), 6: strp("image"), 7: strp("imageID"), 8: str("containerID"),
			9: blnp("started"), 10: quantities("allocatedResources"), 11: msg("resources", "core.ResourceRequirements"),
			12: msgs("volumeMounts", "core.VolumeMountStatus"), 13: msg("user", "core.ContainerUser"),
			14: msgs("allocatedResourcesStatus", "core.ResourceStatus"), 15: strp("stopSignal"),
		},
		"core.ContainerState": {
			1: msg("waiting", "core.ContainerStateWaiting"), 2: msg("running", "core.ContainerStateRunning"),
			3: msg("terminated", "core.ContainerStateTerminated"),
		},
		"core.ContainerStateWaiting": {1: str("reason"), 2: str("message")},
		"core.ContainerStateRunning": {1: timeField("startedAt")},
		"core.ContainerStateTerminated": {
			1: i32p("exitCode"), 2: i32("signal"), 3: str("reason"), 4: str("message"),
			5: timeField("startedAt"), 6: timeField("finishedAt"), 7: str("containerID"),
		},
		"core.VolumeMountStatus": {
			1: strp("name"), 2: strp("mountPath"), 3: bln("readOnly"), 4: strp("recursiveReadOnly"),
			5: inl("core.VolumeStatus"),
		},
		"core.VolumeStatus":       {1: msg("image", "core.ImageVolumeStatus")},
		"core.ImageVolumeStatus":  {1: strp("imageRef")},
		"core.ContainerUser":      {1: msg("linux", "core.LinuxContainerUser")},
		"core.LinuxContainerUser": {1: i64p("uid"), 2: i64p("gid"), 3: i64s("supplementalGroups")},
		"core.ResourceStatus":     {1: strp("name"), 2: msgs("resources", "core.ResourceHealth")},
		"core.ResourceHealth":     {1: strp("resourceID"), 2: str("health"), 6: strp("message")},
	}
}
