package patch

import "strings"

// listStrategy says how a strategic merge treats a list.
type listStrategy int

const (
	// atomic lists are replaced by the patch's list (the default).
	atomic listStrategy = iota
	// mergeByKey lists hold objects merged element by element on a key.
	mergeByKey
	// mergeSet lists hold primitives merged as a set (union, in order).
	mergeSet
)

// listRule is the strategy for one list field, and for mergeByKey its merge
// key: keys[0] identifies an element and must be in every patch element;
// further keys (a Service port's protocol) also must match where both the
// patch element and the list element carry them.
type listRule struct {
	strategy listStrategy
	keys     []string
}

// ruleKey locates a list field: the path of its parent ("spec.template.spec",
// "spec.containers[]" for an element of spec.containers) and its name.
type ruleKey struct {
	parent string
	field  string
}

// schema is the list table for one kind. Known kinds have exact paths; for
// others byField is true and rules are keyed by the parent's last path
// segment ("containers[]", "metadata", "*" for any parent) instead.
type schema struct {
	rules   map[ruleKey]listRule
	byField bool
}

// mergeOn returns the rule for a list of objects merged on keys.
func mergeOn(keys ...string) listRule { return listRule{strategy: mergeByKey, keys: keys} }

// asSet returns the rule for a list of primitives merged as a set.
func asSet() listRule { return listRule{strategy: mergeSet} }

// containerFields returns the PodSpec lists that hold containers.
func containerFields() []string {
	return []string{"containers", "initContainers", "ephemeralContainers"}
}

// podSpecPath returns where the PodSpec is in objects of kind, if they
// carry one.
func podSpecPath(kind string) (string, bool) {
	switch kind {
	case "Pod":
		return "spec", true
	case "PodTemplate":
		return "template.spec", true
	case "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job", "ReplicationController":
		return "spec.template.spec", true
	case "CronJob":
		return "spec.jobTemplate.spec.template.spec", true
	}
	return "", false
}

// newSchema returns the list table for kind, following the patchStrategy and
// patchMergeKey struct tags of the Kubernetes types orkit carries. Lists not
// in the table are atomic.
func newSchema(kind string) schema {
	s := schema{rules: map[ruleKey]listRule{}}
	if !s.known(kind) {
		return fieldDefaults()
	}
	s.addObjectMeta("metadata")
	if ps, ok := podSpecPath(kind); ok {
		s.addPodSpec(ps)
		for _, c := range containerFields() {
			s.addContainer(ps + "." + c + "[]")
		}
		s.addObjectMeta(strings.TrimSuffix(ps, "spec") + "metadata")
		s.set("status", "conditions", mergeOn("type"))
	}
	if kind == "Pod" {
		s.set("status", "podIPs", mergeOn("ip"))
		s.set("status", "hostIPs", mergeOn("ip"))
	}
	switch kind {
	case "Node":
		s.set("spec", "podCIDRs", asSet())
		s.set("status", "addresses", mergeOn("type"))
	case "Service":
		s.set("spec", "ports", mergeOn("port", "protocol"))
	case "ServiceAccount":
		s.set("", "secrets", mergeOn("name"))
	case "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration":
		s.set("", "webhooks", mergeOn("name"))
	case "InitializerConfiguration":
		s.set("", "initializers", mergeOn("name"))
	case "ResourceClaim":
		s.set("status", "reservedFor", mergeOn("uid"))
	case "ResourceClaimTemplate":
		s.addObjectMeta("spec.metadata")
	case "DeviceTaintRule":
		s.set("status", "conditions", mergeOn("type"))
	}
	switch kind {
	case "Node", "Namespace", "Service", "PersistentVolume", "PersistentVolumeClaim":
		s.set("status", "conditions", mergeOn("type"))
	}
	return s
}

// known reports whether kind is one the table describes exactly.
func (s schema) known(kind string) bool {
	if _, ok := podSpecPath(kind); ok {
		return true
	}
	switch kind {
	case "Node", "Namespace", "Service", "Endpoints", "ConfigMap", "Secret", "ServiceAccount",
		"Event", "ResourceQuota", "LimitRange", "PersistentVolume", "PersistentVolumeClaim", "Binding",
		"ControllerRevision", "Lease", "Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding",
		"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration", "InitializerConfiguration",
		"DeviceClass", "ResourceClaim", "ResourceClaimTemplate", "ResourceSlice", "DeviceTaintRule":
		return true
	}
	return false
}

// set records rule for the list field under parent.
func (s schema) set(parent, field string, rule listRule) {
	s.rules[ruleKey{parent, field}] = rule
}

// addObjectMeta records ObjectMeta's lists at path.
func (s schema) addObjectMeta(path string) {
	s.set(path, "finalizers", asSet())
	s.set(path, "ownerReferences", mergeOn("uid"))
	s.set(path+".initializers", "pending", mergeOn("name"))
}

// addPodSpec records PodSpec's and Container's lists with the PodSpec at path.
func (s schema) addPodSpec(path string) {
	for _, c := range containerFields() {
		s.set(path, c, mergeOn("name"))
	}
	s.set(path, "volumes", mergeOn("name"))
	s.set(path, "imagePullSecrets", mergeOn("name"))
	s.set(path, "hostAliases", mergeOn("ip"))
	s.set(path, "schedulingGates", mergeOn("name"))
	s.set(path, "resourceClaims", mergeOn("name"))
	s.set(path, "topologySpreadConstraints",
		mergeOn("topologyKey", "whenUnsatisfiable"))
}

// addContainer records Container's lists with a container at path.
func (s schema) addContainer(path string) {
	s.set(path, "ports", mergeOn("containerPort", "protocol"))
	s.set(path, "env", mergeOn("name"))
	s.set(path, "volumeMounts", mergeOn("mountPath"))
	s.set(path, "volumeDevices", mergeOn("devicePath"))
}

// fieldDefaults is the table for kinds not described exactly: the same
// facts keyed by the parent's last segment, so a PodSpec-shaped object
// anywhere merges its containers by name.
func fieldDefaults() schema {
	s := schema{rules: map[ruleKey]listRule{}, byField: true}
	s.addObjectMeta("metadata")
	s.set("initializers", "pending", mergeOn("name"))
	s.addPodSpec("*")
	for _, c := range containerFields() {
		s.addContainer(c + "[]")
	}
	s.set("*", "conditions", mergeOn("type"))
	s.set("spec", "ports", mergeOn("port", "protocol"))
	return s
}

// rule returns the strategy for the list at path (dot-separated field
// names, "[]" after a list's name for its elements).
func (s schema) rule(path string) listRule {
	parent, field := "", path
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		parent, field = path[:i], path[i+1:]
	}
	if !s.byField {
		return s.rules[ruleKey{parent, field}]
	}
	if i := strings.LastIndexByte(parent, '.'); i >= 0 {
		parent = parent[i+1:]
	}
	if r, ok := s.rules[ruleKey{parent, field}]; ok {
		return r
	}
	return s.rules[ruleKey{"*", field}]
}
