package authz

import "github.com/orkit/orkit/api/rbac"

// The rules below follow Kubernetes' bootstrap policy
// (plugin/pkg/auth/authorizer/rbac/bootstrappolicy), limited to the API
// groups orkit serves or clients commonly ask about.

func aggregateToViewRules() []rbac.PolicyRule {
	return rules(
		verbs(readVerbs...).groups("").resources("pods", "replicationcontrollers", "replicationcontrollers/scale",
			"serviceaccounts", "services", "services/status", "endpoints", "persistentvolumeclaims",
			"persistentvolumeclaims/status", "configmaps"),
		verbs(readVerbs...).groups("").resources("limitranges", "resourcequotas", "bindings", "events",
			"pods/status", "resourcequotas/status", "namespaces/status", "replicationcontrollers/status", "pods/log"),
		verbs(readVerbs...).groups("").resources("namespaces"),
		verbs(readVerbs...).groups("discovery.k8s.io").resources("endpointslices"),
		verbs(readVerbs...).groups("apps").resources("controllerrevisions", "statefulsets", "statefulsets/scale",
			"statefulsets/status", "daemonsets", "daemonsets/status", "deployments", "deployments/scale",
			"deployments/status", "replicasets", "replicasets/scale", "replicasets/status"),
		verbs(readVerbs...).groups("autoscaling").resources("horizontalpodautoscalers", "horizontalpodautoscalers/status"),
		verbs(readVerbs...).groups("batch").resources("cronjobs", "cronjobs/status", "jobs", "jobs/status"),
		verbs(readVerbs...).groups("policy").resources("poddisruptionbudgets", "poddisruptionbudgets/status"),
		verbs(readVerbs...).groups("networking.k8s.io").resources("ingresses", "ingresses/status", "networkpolicies"),
		verbs(readVerbs...).groups("coordination.k8s.io").resources("leases"),
		verbs(readVerbs...).groups(draGroup).resources("resourceclaims", "resourceclaims/status", "resourceclaimtemplates"),
	)
}

// draGroup is Dynamic Resource Allocation's API group.
const draGroup = "resource.k8s.io"

// aggregatedMetricsReaderRules are those of metrics-server's
// system:aggregated-metrics-reader: read the resource metrics of pods and
// nodes (kubectl top).
func aggregatedMetricsReaderRules() []rbac.PolicyRule {
	return rules(verbs("get", "list", "watch").groups("metrics.k8s.io").resources("pods", "nodes"))
}

func aggregateToEditRules() []rbac.PolicyRule {
	return rules(
		verbs(readVerbs...).groups("").resources("pods/attach", "pods/proxy", "pods/exec", "pods/portforward",
			"secrets", "services/proxy"),
		verbs("impersonate").groups("").resources("serviceaccounts"),
		verbs(writeVerbs...).groups("").resources("pods", "pods/attach", "pods/proxy", "pods/exec", "pods/portforward"),
		verbs("create").groups("").resources("pods/eviction"),
		verbs(writeVerbs...).groups("").resources("configmaps", "events", "persistentvolumeclaims",
			"replicationcontrollers", "replicationcontrollers/scale", "secrets", "serviceaccounts", "services",
			"services/proxy", "endpoints"),
		verbs("create").groups("").resources("serviceaccounts/token"),
		verbs(writeVerbs...).groups("apps").resources("statefulsets", "statefulsets/scale", "daemonsets",
			"deployments", "deployments/rollback", "deployments/scale", "replicasets", "replicasets/scale"),
		verbs(writeVerbs...).groups("autoscaling").resources("horizontalpodautoscalers"),
		verbs(writeVerbs...).groups("batch").resources("cronjobs", "jobs"),
		verbs(writeVerbs...).groups("networking.k8s.io").resources("ingresses", "networkpolicies"),
		verbs(writeVerbs...).groups("policy").resources("poddisruptionbudgets"),
		verbs(writeVerbs...).groups("coordination.k8s.io").resources("leases"),
		verbs(writeVerbs...).groups(draGroup).resources("resourceclaims", "resourceclaimtemplates"),
	)
}

func aggregateToAdminRules() []rbac.PolicyRule {
	return rules(
		verbs("create").groups("authorization.k8s.io").resources("localsubjectaccessreviews"),
		verbs(allVerbs...).groups("rbac.authorization.k8s.io").resources("rolebindings", "roles"),
	)
}

func schedulerRules() []rbac.PolicyRule {
	return rules(
		verbs("create", "patch", "update").groups("", "events.k8s.io").resources("events"),
		verbs("create").groups("coordination.k8s.io").resources("leases"),
		verbs("get", "update").groups("coordination.k8s.io").resources("leases").names("kube-scheduler"),
		verbs("create").groups("").resources("endpoints"),
		verbs("get", "update").groups("").resources("endpoints").names("kube-scheduler"),
		verbs(readVerbs...).groups("").resources("nodes"),
		verbs("delete", "get", "list", "watch").groups("").resources("pods"),
		verbs("create").groups("").resources("bindings", "pods/binding"),
		verbs("patch", "update").groups("").resources("pods/status"),
		verbs(readVerbs...).groups("").resources("replicationcontrollers", "services"),
		verbs(readVerbs...).groups("apps").resources("replicasets", "statefulsets"),
		verbs(readVerbs...).groups("policy").resources("poddisruptionbudgets"),
		// orkit's scheduler resolves pods' priorityClassName itself.
		verbs(readVerbs...).groups("scheduling.k8s.io").resources("priorityclasses"),
		verbs(readVerbs...).groups("").resources("persistentvolumeclaims", "persistentvolumes", "namespaces"),
		// VolumeBinding annotates claims with the node it chose (kube's
		// system:volume-scheduler role).
		verbs("patch", "update").groups("").resources("persistentvolumeclaims", "persistentvolumes"),
		verbs("create").groups("authentication.k8s.io").resources("tokenreviews"),
		verbs("create").groups("authorization.k8s.io").resources("subjectaccessreviews"),
		verbs(readVerbs...).groups("storage.k8s.io").resources("csinodes", "csidrivers", "csistoragecapacities", "storageclasses"),
		// Dynamic Resource Allocation: the classes, slices and taint rules
		// it allocates from, the claims it allocates and reserves.
		verbs(readVerbs...).groups(draGroup).resources("deviceclasses", "resourceslices", "devicetaintrules"),
		verbs(append([]string{"update", "patch"}, readVerbs...)...).groups(draGroup).resources("resourceclaims", "resourceclaims/status"),
		verbs("create", "delete").groups(draGroup).resources("resourceclaims"),
	)
}

// controllerManagerRules grants what every built-in controller needs:
// orkit runs them all under the controller manager's own identity (as
// kube-controller-manager does with --use-service-account-credentials=false),
// so the role is the union of Kubernetes' per-controller roles — reading
// and writing workloads, pods, endpoints, nodes and namespaces, and the
// garbage collector's and namespace controller's delete of anything.
func controllerManagerRules() []rbac.PolicyRule {
	return rules(
		verbs("create", "patch", "update").groups("", "events.k8s.io").resources("events"),
		verbs("create").groups("coordination.k8s.io").resources("leases"),
		verbs("get", "update").groups("coordination.k8s.io").resources("leases").names("kube-controller-manager"),
		verbs("create").groups("authentication.k8s.io").resources("tokenreviews"),
		verbs("create").groups("authorization.k8s.io").resources("subjectaccessreviews"),
		verbs("get", "list", "watch", "patch", "update", "delete", "deletecollection").groups("*").resources("*"),
		// the clusterrole-aggregation controller writes aggregated roles'
		// rules, which it does not hold itself
		verbs("escalate").groups("rbac.authorization.k8s.io").resources("clusterroles"),
		verbs(allVerbs...).groups("").resources("pods", "pods/status", "endpoints", "secrets",
			"serviceaccounts", "serviceaccounts/token", "configmaps", "persistentvolumeclaims", "persistentvolumes"),
		verbs("create").groups("").resources("pods/eviction", "pods/binding", "bindings"),
		verbs(allVerbs...).groups("").resources("replicationcontrollers", "replicationcontrollers/status",
			"replicationcontrollers/scale", "resourcequotas", "resourcequotas/status", "podtemplates"),
		verbs(allVerbs...).groups("").resources("nodes", "nodes/status", "namespaces", "namespaces/finalize", "namespaces/status"),
		verbs(allVerbs...).groups("apps").resources("deployments", "deployments/status", "deployments/scale",
			"replicasets", "replicasets/status", "replicasets/scale", "statefulsets", "statefulsets/status",
			"statefulsets/scale", "daemonsets", "daemonsets/status", "controllerrevisions"),
		verbs(allVerbs...).groups("batch").resources("jobs", "jobs/status", "jobs/finalizers", "cronjobs",
			"cronjobs/status", "cronjobs/finalizers"),
		verbs(allVerbs...).groups("discovery.k8s.io").resources("endpointslices"),
		verbs(allVerbs...).groups("coordination.k8s.io").resources("leases"),
		// the resourceclaim controller makes claims from templates
		verbs(allVerbs...).groups(draGroup).resources("resourceclaims", "resourceclaims/status"),
	)
}

// networkPolicyAgentRules are what a NetworkPolicy enforcer reads: the
// policies, and every pod and namespace (peers are cluster-wide).
func networkPolicyAgentRules() []rbac.PolicyRule {
	return rules(
		verbs("list", "watch").groups("").resources("pods", "namespaces"),
		verbs("list", "watch").groups("networking.k8s.io").resources("networkpolicies"),
	)
}

func nodeProxierRules() []rbac.PolicyRule {
	return rules(
		verbs("list", "watch").groups("").resources("services", "endpoints"),
		verbs("get", "list", "watch").groups("").resources("nodes"),
		verbs("create", "patch", "update").groups("", "events.k8s.io").resources("events"),
		verbs("list", "watch").groups("discovery.k8s.io").resources("endpointslices"),
	)
}
