package protobuf

import "strings"

// discovery is the static discovery the recorder serves: enough for kubectl
// to map the kinds the tests create to resources.
var discovery = map[string]string{
	"/api": `{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0","serverAddress":"127.0.0.1"}]}`,
	"/apis": `{"kind":"APIGroupList","apiVersion":"v1","groups":[` + strings.Join([]string{
		group("apps", "v1"), group("rbac.authorization.k8s.io", "v1"), group("authorization.k8s.io", "v1"),
		group("scheduling.k8s.io", "v1"), group("batch", "v1"), group("authentication.k8s.io", "v1"), group("policy", "v1"),
		group("networking.k8s.io", "v1"),
	}, ",") + `]}`,
	"/api/v1": resourceList("v1",
		res("namespaces", "Namespace", false), res("configmaps", "ConfigMap", true), res("secrets", "Secret", true),
		res("services", "Service", true), res("serviceaccounts", "ServiceAccount", true), res("pods", "Pod", true), res("nodes", "Node", false),
		`{"name":"serviceaccounts/token","singularName":"","namespaced":true,"group":"authentication.k8s.io","version":"v1","kind":"TokenRequest","verbs":["create"]}`,
		`{"name":"pods/eviction","singularName":"","namespaced":true,"group":"policy","version":"v1","kind":"Eviction","verbs":["create"]}`,
		res("resourcequotas", "ResourceQuota", true)),
	"/apis/apps/v1": resourceList("apps/v1", res("deployments", "Deployment", true)),
	"/apis/rbac.authorization.k8s.io/v1": resourceList("rbac.authorization.k8s.io/v1",
		res("roles", "Role", true), res("clusterroles", "ClusterRole", false),
		res("rolebindings", "RoleBinding", true), res("clusterrolebindings", "ClusterRoleBinding", false)),
	"/apis/authorization.k8s.io/v1": resourceList("authorization.k8s.io/v1",
		`{"name":"selfsubjectaccessreviews","singularName":"selfsubjectaccessreview","namespaced":false,"kind":"SelfSubjectAccessReview","verbs":["create"]}`,
		`{"name":"selfsubjectrulesreviews","singularName":"selfsubjectrulesreview","namespaced":false,"kind":"SelfSubjectRulesReview","verbs":["create"]}`),
	"/apis/scheduling.k8s.io/v1": resourceList("scheduling.k8s.io/v1", res("priorityclasses", "PriorityClass", false)),
	"/apis/batch/v1":             resourceList("batch/v1", res("jobs", "Job", true), res("cronjobs", "CronJob", true)),
	"/apis/authentication.k8s.io/v1": resourceList("authentication.k8s.io/v1",
		`{"name":"selfsubjectreviews","singularName":"selfsubjectreview","namespaced":false,"kind":"SelfSubjectReview","verbs":["create"]}`),
	"/apis/policy/v1": resourceList("policy/v1", res("poddisruptionbudgets", "PodDisruptionBudget", true)),
	"/apis/networking.k8s.io/v1": resourceList("networking.k8s.io/v1", res("ingresses", "Ingress", true),
		res("ingressclasses", "IngressClass", false)),
}

func group(name, version string) string {
	gv := `{"groupVersion":"` + name + "/" + version + `","version":"` + version + `"}`
	return `{"name":"` + name + `","versions":[` + gv + `],"preferredVersion":` + gv + `}`
}

func resourceList(gv string, resources ...string) string {
	return `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"` + gv + `","resources":[` + strings.Join(resources, ",") + `]}`
}

func res(plural, kind string, namespaced bool) string {
	ns := "false"
	if namespaced {
		ns = "true"
	}
	singular := strings.ToLower(kind)
	return `{"name":"` + plural + `","singularName":"` + singular + `","namespaced":` + ns + `,"kind":"` + kind +
		`","verbs":["create","delete","get","list","patch","update","watch"]}`
}
