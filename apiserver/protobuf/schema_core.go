package protobuf

// Field numbers in this file are data taken from k8s.io/api core/v1
// generated.proto; the JSON names are the Go types' json tags.

// coreMessages covers Namespace, ConfigMap, Secret, ServiceAccount, Service,
// Endpoints, Event and object references.
func coreMessages() map[string]fields {
	return map[string]fields{
		"core.Namespace":          {1: objectMeta(), 2: msg("spec", "core.NamespaceSpec"), 3: msg("status", "core.NamespaceStatus")},
		"core.NamespaceSpec":      {1: strs("finalizers")},
		"core.NamespaceStatus":    {1: str("phase"), 2: msgs("conditions", "core.NamespaceCondition")},
		"core.NamespaceCondition": {1: strp("type"), 2: strp("status"), 4: timeField("lastTransitionTime"), 5: str("reason"), 6: str("message")},
		"core.ConfigMap": {
			1: objectMeta(), 4: blnp("immutable"), 2: mapStr("data"), 3: mapBytes("binaryData"),
		},
		"core.Secret": {
			1: objectMeta(), 5: blnp("immutable"), 2: mapBytes("data"), 4: mapStr("stringData"), 3: str("type"),
		},
		"core.ServiceAccount": {
			1: objectMeta(), 2: msgs("secrets", "core.ObjectReference"),
			3: msgs("imagePullSecrets", "core.LocalObjectReference"), 4: blnp("automountServiceAccountToken"),
		},
		"core.LocalObjectReference": {1: str("name")},
		"core.ObjectReference": {
			1: str("kind"), 2: str("namespace"), 3: str("name"), 4: str("uid"),
			5: str("apiVersion"), 6: str("resourceVersion"), 7: str("fieldPath"),
		},
		"core.TypedLocalObjectReference": {1: strp("apiGroup"), 2: strp("kind"), 3: strp("name")},
		"core.TypedObjectReference":      {1: strp("apiGroup"), 2: strp("kind"), 3: strp("name"), 4: strp("namespace")},
		"core.SecretReference":           {1: str("name"), 2: str("namespace")},
		"core.Service":                   {1: objectMeta(), 2: msg("spec", "core.ServiceSpec"), 3: msg("status", "core.ServiceStatus")},
		"core.ServiceSpec": {
			1: msgs("ports", "core.ServicePort"), 2: mapStr("selector"), 3: str("clusterIP"),
			18: strs("clusterIPs"), 4: str("type"), 5: strs("externalIPs"), 7: str("sessionAffinity"),
			8: str("loadBalancerIP"), 9: strs("loadBalancerSourceRanges"), 10: str("externalName"),
			11: str("externalTrafficPolicy"), 12: i32("healthCheckNodePort"), 13: bln("publishNotReadyAddresses"),
			14: msg("sessionAffinityConfig", "core.SessionAffinityConfig"), 19: strs("ipFamilies"),
			17: strp("ipFamilyPolicy"), 20: blnp("allocateLoadBalancerNodePorts"), 21: strp("loadBalancerClass"),
			22: strp("internalTrafficPolicy"), 23: strp("trafficDistribution"),
		},
		"core.ServicePort": {
			1: str("name"), 2: str("protocol"), 6: strp("appProtocol"), 3: i32p("port"),
			4: intOrString("targetPort"), 5: i32("nodePort"),
		},
		"core.SessionAffinityConfig": {1: msg("clientIP", "core.ClientIPConfig")},
		"core.ClientIPConfig":        {1: i32p("timeoutSeconds")},
		"core.ServiceStatus":         {1: msg("loadBalancer", "core.LoadBalancerStatus"), 2: msgs("conditions", "meta.Condition")},
		"core.LoadBalancerStatus":    {1: msgs("ingress", "core.LoadBalancerIngress")},
		"core.LoadBalancerIngress": {
			1: str("ip"), 2: str("hostname"), 3: strp("ipMode"), 4: msgs("ports", "core.PortStatus"),
		},
		"core.PortStatus": {1: i32p("port"), 2: strp("protocol"), 3: strp("error")},
		"core.Endpoints":  {1: objectMeta(), 2: msgs("subsets", "core.EndpointSubset")},
		"core.EndpointSubset": {
			1: msgs("addresses", "core.EndpointAddress"), 2: msgs("notReadyAddresses", "core.EndpointAddress"),
			3: msgs("ports", "core.EndpointPort"),
		},
		"core.EndpointAddress": {1: strp("ip"), 3: str("hostname"), 4: strp("nodeName"), 2: msg("targetRef", "core.ObjectReference")},
		"core.EndpointPort":    {1: str("name"), 2: i32p("port"), 3: str("protocol"), 4: strp("appProtocol")},
		"core.Event": {
			1: objectMeta(), 2: msg("involvedObject", "core.ObjectReference"), 3: str("reason"), 4: str("message"),
			5: msg("source", "core.EventSource"), 6: timeField("firstTimestamp"), 7: timeField("lastTimestamp"),
			8: i32("count"), 9: str("type"), 10: msg("eventTime", typeMicroTime), 11: msg("series", "core.EventSeries"),
			12: str("action"), 13: msg("related", "core.ObjectReference"), 14: strp("reportingComponent"),
			15: strp("reportingInstance"),
		},
		"core.EventSeries": {1: i32("count"), 2: msg("lastObservedTime", typeMicroTime)},
		"core.EventSource": {1: str("component"), 2: str("host")},
	}
}

// coreClusterMessages covers ResourceQuota, LimitRange, Binding and Node.
func coreClusterMessages() map[string]fields {
	return map[string]fields{
		"core.ResourceQuota": {1: objectMeta(), 2: msg("spec", "core.ResourceQuotaSpec"), 3: msg("status", "core.ResourceQuotaStatus")},
		"core.ResourceQuotaSpec": {
			1: quantities("hard"), 2: strs("scopes"), 3: msg("scopeSelector", "core.ScopeSelector"),
		},
		"core.ResourceQuotaStatus":               {1: quantities("hard"), 2: quantities("used")},
		"core.ScopeSelector":                     {1: msgs("matchExpressions", "core.ScopedResourceSelectorRequirement")},
		"core.ScopedResourceSelectorRequirement": {1: strp("scopeName"), 2: strp("operator"), 3: strs("values")},
		"core.LimitRange":                        {1: objectMeta(), 2: msg("spec", "core.LimitRangeSpec")},
		"core.LimitRangeSpec":                    {1: msgs("limits", "core.LimitRangeItem")},
		"core.LimitRangeItem": {
			1: strp("type"), 2: quantities("max"), 3: quantities("min"), 4: quantities("default"),
			5: quantities("defaultRequest"), 6: quantities("maxLimitRequestRatio"),
		},
		"core.Binding": {1: objectMeta(), 2: msg("target", "core.ObjectReference")},
		"core.Node":    {1: objectMeta(), 2: msg("spec", "core.NodeSpec"), 3: msg("status", "core.NodeStatus")},
		"core.NodeSpec": {
			1: str("podCIDR"), 7: strs("podCIDRs"), 3: str("providerID"), 4: bln("unschedulable"),
			5: msgs("taints", "core.Taint"), 6: msg("configSource", "core.NodeConfigSource"), 2: str("externalID"),
		},
		"core.Taint": {1: strp("key"), 2: str("value"), 3: strp("effect"), 4: timeField("timeAdded")},
		"core.NodeStatus": {
			1: quantities("capacity"), 2: quantities("allocatable"), 3: str("phase"),
			4: msgs("conditions", "core.NodeCondition"), 5: msgs("addresses", "core.NodeAddress"),
			6: msg("daemonEndpoints", "core.NodeDaemonEndpoints"), 7: msg("nodeInfo", "core.NodeSystemInfo"),
			8: msgs("images", "core.ContainerImage"), 9: strs("volumesInUse"),
			10: msgs("volumesAttached", "core.AttachedVolume"), 11: msg("config", "core.NodeConfigStatus"),
			12: msgs("runtimeHandlers", "core.NodeRuntimeHandler"), 13: msg("features", "core.NodeFeatures"),
			14: strs("declaredFeatures"),
		},
		"core.NodeCondition": {
			1: strp("type"), 2: strp("status"), 3: timeField("lastHeartbeatTime"),
			4: timeField("lastTransitionTime"), 5: str("reason"), 6: str("message"),
		},
		"core.NodeAddress":         {1: strp("type"), 2: strp("address")},
		"core.NodeDaemonEndpoints": {1: msg("kubeletEndpoint", "core.DaemonEndpoint")},
		"core.DaemonEndpoint":      {1: i32p("Port")},
		"core.NodeSystemInfo": {
			1: strp("machineID"), 2: strp("systemUUID"), 3: strp("bootID"), 4: strp("kernelVersion"),
			5: strp("osImage"), 6: strp("containerRuntimeVersion"), 7: strp("kubeletVersion"),
			8: strp("kubeProxyVersion"), 9: strp("operatingSystem"), 10: strp("architecture"),
			11: msg("swap", "core.NodeSwapStatus"),
		},
		"core.NodeSwapStatus":   {1: i64p("capacity")},
		"core.ContainerImage":   {1: strs("names"), 2: i64("sizeBytes")},
		"core.AttachedVolume":   {1: strp("name"), 2: strp("devicePath")},
		"core.NodeConfigSource": {2: msg("configMap", "core.ConfigMapNodeConfigSource")},
		"core.ConfigMapNodeConfigSource": {
			1: strp("namespace"), 2: strp("name"), 3: str("uid"), 4: str("resourceVersion"), 5: strp("kubeletConfigKey"),
		},
		"core.NodeConfigStatus": {
			1: msg("assigned", "core.NodeConfigSource"), 2: msg("active", "core.NodeConfigSource"),
			3: msg("lastKnownGood", "core.NodeConfigSource"), 4: str("error"),
		},
		"core.NodeRuntimeHandler":         {1: str("name"), 2: msg("features", "core.NodeRuntimeHandlerFeatures")},
		"core.NodeRuntimeHandlerFeatures": {1: blnp("recursiveReadOnlyMounts"), 2: blnp("userNamespaces")},
		"core.NodeFeatures":               {1: blnp("supplementalGroupsPolicy"), 2: blnp("containerUlimits")},
	}
}

// coreStorageMessages covers PersistentVolumeClaim and PersistentVolume.
func coreStorageMessages() map[string]fields {
	return map[string]fields{
		"core.PersistentVolumeClaim": {
			1: objectMeta(), 2: msg("spec", "core.PersistentVolumeClaimSpec"), 3: msg("status", "core.PersistentVolumeClaimStatus"),
		},
		"core.PersistentVolumeClaimSpec": {
			1: strs("accessModes"), 4: labelSelector("selector"), 2: msg("resources", "core.VolumeResourceRequirements"),
			3: str("volumeName"), 5: strp("storageClassName"), 6: strp("volumeMode"),
			7: msg("dataSource", "core.TypedLocalObjectReference"), 8: msg("dataSourceRef", "core.TypedObjectReference"),
			9: strp("volumeAttributesClassName"),
		},
		"core.VolumeResourceRequirements": {1: quantities("limits"), 2: quantities("requests")},
		"core.PersistentVolumeClaimStatus": {
			1: str("phase"), 2: strs("accessModes"), 3: quantities("capacity"),
			4: msgs("conditions", "core.PersistentVolumeClaimCondition"), 5: quantities("allocatedResources"),
			7: mapStr("allocatedResourceStatuses"), 8: strp("currentVolumeAttributesClassName"),
			9: msg("modifyVolumeStatus", "core.ModifyVolumeStatus"),
		},
		"core.PersistentVolumeClaimCondition": {
			1: strp("type"), 2: strp("status"), 3: timeField("lastProbeTime"), 4: timeField("lastTransitionTime"),
			5: str("reason"), 6: str("message"),
		},
		"core.ModifyVolumeStatus": {1: str("targetVolumeAttributesClassName"), 2: strp("status")},
		"core.PersistentVolume": {
			1: objectMeta(), 2: msg("spec", "core.PersistentVolumeSpec"), 3: msg("status", "core.PersistentVolumeStatus"),
		},
		"core.PersistentVolumeSpec": {
			1: quantities("capacity"), 2: inl("core.PersistentVolumeSource"), 3: strs("accessModes"),
			4: msg("claimRef", "core.ObjectReference"), 5: str("persistentVolumeReclaimPolicy"),
			6: str("storageClassName"), 7: strs("mountOptions"), 8: strp("volumeMode"),
			9: msg("nodeAffinity", "core.VolumeNodeAffinity"), 10: strp("volumeAttributesClassName"),
		},
		"core.PersistentVolumeSource": {
			3: msg("hostPath", "core.HostPathVolumeSource"), 5: msg("nfs", "core.NFSVolumeSource"),
			20: msg("local", "core.LocalVolumeSource"), 22: msg("csi", "core.CSIPersistentVolumeSource"),
		},
		"core.LocalVolumeSource": {1: strp("path"), 2: strp("fsType")},
		"core.CSIPersistentVolumeSource": {
			1: strp("driver"), 2: strp("volumeHandle"), 3: bln("readOnly"), 4: str("fsType"),
			5: mapStr("volumeAttributes"), 6: msg("controllerPublishSecretRef", "core.SecretReference"),
			7: msg("nodeStageSecretRef", "core.SecretReference"), 8: msg("nodePublishSecretRef", "core.SecretReference"),
			9: msg("controllerExpandSecretRef", "core.SecretReference"), 10: msg("nodeExpandSecretRef", "core.SecretReference"),
		},
		"core.VolumeNodeAffinity": {1: msg("required", "core.NodeSelector")},
		"core.PersistentVolumeStatus": {
			1: str("phase"), 2: str("message"), 3: str("reason"), 4: timeField("lastPhaseTransitionTime"),
		},
	}
}

// coreVolumeMessages covers core/v1 Volume and the volume sources orkit
// carries (other sources' field numbers are skipped as unknown).
func coreVolumeMessages() map[string]fields {
	return map[string]fields{
		"core.Volume": {1: strp("name"), 2: inl("core.VolumeSource")},
		"core.VolumeSource": {
			1: msg("hostPath", "core.HostPathVolumeSource"), 2: msg("emptyDir", "core.EmptyDirVolumeSource"),
			6: msg("secret", "core.SecretVolumeSource"), 7: msg("nfs", "core.NFSVolumeSource"),
			10: msg("persistentVolumeClaim", "core.PersistentVolumeClaimVolumeSource"),
			16: msg("downwardAPI", "core.DownwardAPIVolumeSource"), 19: msg("configMap", "core.ConfigMapVolumeSource"),
			26: msg("projected", "core.ProjectedVolumeSource"), 28: msg("csi", "core.CSIVolumeSource"),
			29: msg("ephemeral", "core.EphemeralVolumeSource"), 30: msg("image", "core.ImageVolumeSource"),
		},
		"core.HostPathVolumeSource": {1: strp("path"), 2: strp("type")},
		"core.EmptyDirVolumeSource": {1: str("medium"), 2: quantity("sizeLimit")},
		"core.SecretVolumeSource": {
			1: str("secretName"), 2: msgs("items", "core.KeyToPath"), 3: i32p("defaultMode"), 4: blnp("optional"),
		},
		"core.KeyToPath":                         {1: strp("key"), 2: strp("path"), 3: i32p("mode")},
		"core.NFSVolumeSource":                   {1: strp("server"), 2: strp("path"), 3: bln("readOnly")},
		"core.PersistentVolumeClaimVolumeSource": {1: strp("claimName"), 2: bln("readOnly")},
		"core.DownwardAPIVolumeSource":           {1: msgs("items", "core.DownwardAPIVolumeFile"), 2: i32p("defaultMode")},
		"core.DownwardAPIVolumeFile": {
			1: strp("path"), 2: msg("fieldRef", "core.ObjectFieldSelector"),
			3: msg("resourceFieldRef", "core.ResourceFieldSelector"), 4: i32p("mode"),
		},
		"core.ConfigMapVolumeSource": {
			1: inl("core.LocalObjectReference"), 2: msgs("items", "core.KeyToPath"), 3: i32p("defaultMode"), 4: blnp("optional"),
		},
		"core.ProjectedVolumeSource": {1: required(msgs("sources", "core.VolumeProjection")), 2: i32p("defaultMode")},
		"core.VolumeProjection": {
			1: msg("secret", "core.SecretProjection"), 2: msg("downwardAPI", "core.DownwardAPIProjection"),
			3: msg("configMap", "core.ConfigMapProjection"), 4: msg("serviceAccountToken", "core.ServiceAccountTokenProjection"),
			5: msg("clusterTrustBundle", "core.ClusterTrustBundleProjection"), 6: msg("podCertificate", "core.PodCertificateProjection"),
		},
		"core.SecretProjection":      {1: inl("core.LocalObjectReference"), 2: msgs("items", "core.KeyToPath"), 4: blnp("optional")},
		"core.ConfigMapProjection":   {1: inl("core.LocalObjectReference"), 2: msgs("items", "core.KeyToPath"), 4: blnp("optional")},
		"core.DownwardAPIProjection": {1: msgs("items", "core.DownwardAPIVolumeFile")},
		"core.ServiceAccountTokenProjection": {
			1: str("audience"), 2: i64p("expirationSeconds"), 3: strp("path"),
		},
		"core.ClusterTrustBundleProjection": {
			1: strp("name"), 2: strp("signerName"), 3: labelSelector("labelSelector"), 5: blnp("optional"), 4: strp("path"),
		},
		"core.PodCertificateProjection": {
			1: strp("signerName"), 2: strp("keyType"), 3: i32p("maxExpirationSeconds"), 4: str("credentialBundlePath"),
			5: str("keyPath"), 6: str("certificateChainPath"), 7: mapStr("userAnnotations"),
		},
		"core.CSIVolumeSource": {
			1: strp("driver"), 2: blnp("readOnly"), 3: strp("fsType"), 4: mapStr("volumeAttributes"),
			5: localObjectRef("nodePublishSecretRef"),
		},
		"core.EphemeralVolumeSource": {1: msg("volumeClaimTemplate", "core.PersistentVolumeClaimTemplate")},
		"core.PersistentVolumeClaimTemplate": {
			1: objectMeta(), 2: msg("spec", "core.PersistentVolumeClaimSpec"),
		},
		"core.ImageVolumeSource": {1: str("reference"), 2: str("pullPolicy")},
	}
}
