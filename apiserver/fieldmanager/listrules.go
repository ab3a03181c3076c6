package fieldmanager

// fieldRule is how a field of a Go-typed kind merges, as the
// +listType/+listMapKey/+mapType/+structType markers of the Kubernetes
// types say (kube publishes them as x-kubernetes-list-type,
// x-kubernetes-list-map-keys and x-kubernetes-map-type).
type fieldRule struct {
	listType string   // "map", "set" or "atomic"
	keys     []string // map keys of a list of type map
	mapType  string   // "atomic" for a map or struct replaced as a whole
}

// ruleKey names a field: the Go package's last element, the struct type's
// name and the field's JSON name ("core.PodSpec.containers").
type ruleKey string

// listMap, listSet and atomic build rules.
func listMap(keys ...string) fieldRule { return fieldRule{listType: "map", keys: keys} }
func listSet() fieldRule               { return fieldRule{listType: "set"} }
func atomicMap() fieldRule             { return fieldRule{mapType: "atomic"} }

// builtinFieldRules are Kubernetes' markers for the fields of the built-in
// kinds orkit carries. Lists not named here are atomic, except a list
// named "conditions" of structs with a "type" field, which is a map keyed
// by type as in every Kubernetes kind.
var builtinFieldRules = map[ruleKey]fieldRule{
	"meta.ObjectMeta.ownerReferences":                                 listMap("uid"),
	"meta.ObjectMeta.finalizers":                                      listSet(),
	"core.PodSpec.containers":                                         listMap("name"),
	"storage.CSINodeSpec.drivers":                                     listMap("name"),
	"dra.ResourceClaimStatus.reservedFor":                             listMap("uid"),
	"dra.ResourceClaimStatus.devices":                                 listMap("driver", "device", "pool", "shareID"),
	"core.PodSpec.initContainers":                                     listMap("name"),
	"core.PodSpec.ephemeralContainers":                                listMap("name"),
	"core.PodSpec.volumes":                                            listMap("name"),
	"core.PodSpec.imagePullSecrets":                                   listMap("name"),
	"core.PodSpec.hostAliases":                                        listMap("ip"),
	"core.PodSpec.topologySpreadConstraints":                          listMap("topologyKey", "whenUnsatisfiable"),
	"core.PodSpec.schedulingGates":                                    listMap("name"),
	"core.PodSpec.resourceClaims":                                     listMap("name"),
	"core.PodSpec.readinessGates":                                     {listType: "atomic"},
	"core.PodSpec.tolerations":                                        {listType: "atomic"},
	"core.Container.ports":                                            listMap("containerPort", "protocol"),
	"core.Container.env":                                              listMap("name"),
	"core.Container.volumeMounts":                                     listMap("mountPath"),
	"core.Container.volumeDevices":                                    listMap("devicePath"),
	"core.EphemeralContainer.ports":                                   listMap("containerPort", "protocol"),
	"core.EphemeralContainer.env":                                     listMap("name"),
	"core.EphemeralContainer.volumeMounts":                            listMap("mountPath"),
	"core.ResourceRequirements.claims":                                listMap("name"),
	"core.ServiceSpec.ports":                                          listMap("port", "protocol"),
	"core.ServiceSpec.selector":                                       atomicMap(),
	"core.PodStatus.podIPs":                                           listMap("ip"),
	"core.PodStatus.hostIPs":                                          listMap("ip"),
	"core.NodeStatus.addresses":                                       listMap("type"),
	"core.NodeSpec.podCIDRs":                                          listSet(),
	"core.ReplicationControllerSpec.selector":                         atomicMap(),
	"core.PersistentVolumeClaimSpec.accessModes":                      {listType: "atomic"},
	"core.NodeSelectorTerm.matchExpressions":                          {listType: "atomic"},
	"core.NodeSelectorTerm.matchFields":                               {listType: "atomic"},
	"rbac.ClusterRole.rules":                                          {listType: "atomic"},
	"rbac.Role.rules":                                                 {listType: "atomic"},
	"admissionregistration.ValidatingAdmissionPolicySpec.validations": {listType: "atomic"},
}

// atomicStructs are the struct types Kubernetes marks +structType=atomic:
// an applier owns them whole.
var atomicStructs = map[string]bool{
	"meta.LabelSelector":             true,
	"meta.OwnerReference":            true,
	"core.ObjectReference":           true,
	"core.LocalObjectReference":      true,
	"core.NodeSelector":              true,
	"core.TypedLocalObjectReference": true,
	"core.ConfigMapKeySelector":      true,
	"core.SecretKeySelector":         true,
	"core.ObjectFieldSelector":       true,
	"core.ResourceFieldSelector":     true,
}

// keyDefaults are the defaults of list-map key fields that a client may
// leave out (a container port's protocol is TCP).
var keyDefaults = map[ruleKey]any{
	"core.ContainerPort.protocol": "TCP",
	"core.ServicePort.protocol":   "TCP",
}
