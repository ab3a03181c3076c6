package authz

import (
	"slices"

	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/rbac"
	"github.com/orkit/orkit/authn"
)

// Bootstrap labels and annotations, as Kubernetes puts on its defaults.
const (
	BootstrappingLabel = "kubernetes.io/bootstrapping"
	BootstrappingValue = "rbac-defaults"
)

// Well-known user names of the control plane components.
const (
	KubeSchedulerUser         = "system:kube-scheduler"
	KubeControllerManagerUser = "system:kube-controller-manager"
	KubeProxyUser             = "system:kube-proxy"
	// NetworkPolicyAgentUser is the user of a node's NetworkPolicy
	// enforcer (package netpol), bound to the ClusterRole
	// orkit:network-policy-agent.
	NetworkPolicyAgentUser = "system:orkit-netpol"
)

var (
	readVerbs  = []string{"get", "list", "watch"}
	writeVerbs = []string{"create", "delete", "deletecollection", "patch", "update"}
	allVerbs   = slices.Concat(readVerbs, writeVerbs)
)

// rule builds a PolicyRule the way Kubernetes' bootstrap policy reads.
type rule rbac.PolicyRule

func verbs(v ...string) rule                { return rule{Verbs: v} }
func (r rule) groups(g ...string) rule      { r.APIGroups = g; return r }
func (r rule) resources(res ...string) rule { r.Resources = res; return r }
func (r rule) names(n ...string) rule       { r.ResourceNames = n; return r }
func (r rule) urls(u ...string) rule        { r.NonResourceURLs = u; return r }
func rules(rs ...rule) []rbac.PolicyRule {
	out := make([]rbac.PolicyRule, len(rs))
	for i, r := range rs {
		out[i] = rbac.PolicyRule(r)
	}
	return out
}

// BootstrapPolicy returns the default ClusterRoles and ClusterRoleBindings
// the server seeds at start (creating those missing, never overwriting an
// existing one): cluster-admin (bound to system:masters), the
// user-facing admin, edit and view (aggregated, with their rules filled
// in), system:aggregated-metrics-reader (metrics.k8s.io pods and nodes,
// aggregated into view, edit and admin), system:discovery, system:basic-user and system:public-info-viewer
// (the discovery and health paths for authenticated and, for the public
// ones, unauthenticated users), and the roles of the scheduler, the
// controller manager and the node proxier bound to their users,
// system:auth-delegator and, in kube-system, the Role
// extension-apiserver-authentication-reader (see addDelegatedAuthPolicy). Each call
// returns fresh objects the caller owns.
func BootstrapPolicy() *Policy {
	p := &Policy{}
	add := func(name string, rs []rbac.PolicyRule, aggregateTo ...string) *rbac.ClusterRole {
		r := &rbac.ClusterRole{ObjectMeta: bootstrapMeta(name), Rules: rs}
		r.SetGroupVersionKind(meta.GroupVersionKind{Group: rbac.GroupName, Version: rbac.Version, Kind: "ClusterRole"})
		for _, to := range aggregateTo {
			r.Labels["rbac.authorization.k8s.io/aggregate-to-"+to] = "true"
		}
		p.ClusterRoles = append(p.ClusterRoles, r)
		return r
	}
	bind := func(name, role string, subjects ...rbac.Subject) {
		b := &rbac.ClusterRoleBinding{ObjectMeta: bootstrapMeta(name), Subjects: subjects,
			RoleRef: rbac.RoleRef{APIGroup: rbac.GroupName, Kind: "ClusterRole", Name: role}}
		b.SetGroupVersionKind(meta.GroupVersionKind{Group: rbac.GroupName, Version: rbac.Version, Kind: "ClusterRoleBinding"})
		p.ClusterRoleBindings = append(p.ClusterRoleBindings, b)
	}

	add("cluster-admin", rules(verbs("*").groups("*").resources("*"), verbs("*").urls("*")))
	bind("cluster-admin", "cluster-admin", group(authn.GroupMasters))

	toView, toEdit, toAdmin := aggregateToViewRules(), aggregateToEditRules(), aggregateToAdminRules()
	metricsReader := aggregatedMetricsReaderRules()
	add("system:aggregate-to-view", toView, "admin", "edit", "view")
	add("system:aggregate-to-edit", toEdit, "admin", "edit")
	add("system:aggregate-to-admin", toAdmin, "admin")
	// metrics-server's role (its manifests ship it; orkit serves
	// metrics.k8s.io itself): whoever may view may `kubectl top`.
	add("system:aggregated-metrics-reader", metricsReader, "admin", "edit", "view")
	add("admin", slices.Concat(toAdmin, toEdit, toView, metricsReader)).AggregationRule = aggregation("admin")
	add("edit", slices.Concat(toEdit, toView, metricsReader)).AggregationRule = aggregation("edit")
	add("view", slices.Concat(toView, metricsReader)).AggregationRule = aggregation("view")

	add("system:discovery", rules(verbs("get").urls(
		"/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/openapi", "/openapi/*",
		"/readyz", "/version", "/version/")))
	bind("system:discovery", "system:discovery", group(authn.GroupAuthenticated))
	add("system:basic-user", rules(
		verbs("create").groups("authorization.k8s.io").resources("selfsubjectaccessreviews", "selfsubjectrulesreviews"),
		verbs("create").groups("authentication.k8s.io").resources("selfsubjectreviews")))
	bind("system:basic-user", "system:basic-user", group(authn.GroupAuthenticated))
	add("system:public-info-viewer", rules(verbs("get").urls("/healthz", "/livez", "/readyz", "/version", "/version/")))
	bind("system:public-info-viewer", "system:public-info-viewer",
		group(authn.GroupAuthenticated), group(authn.GroupUnauthenticated))

	add("system:service-account-issuer-discovery", rules(verbs("get").urls(
		"/.well-known/openid-configuration", "/.well-known/openid-configuration/", "/openid/v1/jwks", "/openid/v1/jwks/")))
	bind("system:service-account-issuer-discovery", "system:service-account-issuer-discovery", group(authn.GroupServiceAccounts))

	add("system:kube-scheduler", schedulerRules())
	bind("system:kube-scheduler", "system:kube-scheduler", user(KubeSchedulerUser))
	add("system:kube-controller-manager", controllerManagerRules())
	bind("system:kube-controller-manager", "system:kube-controller-manager", user(KubeControllerManagerUser))
	add("system:node-proxier", nodeProxierRules())
	bind("system:node-proxier", "system:node-proxier", user(KubeProxyUser))
	add("orkit:network-policy-agent", networkPolicyAgentRules())
	bind("orkit:network-policy-agent", "orkit:network-policy-agent", user(NetworkPolicyAgentUser))
	addNodeCertificatePolicy(add, bind)
	addDelegatedAuthPolicy(p, add)
	return p
}

// ExtensionAPIServerAuthenticationReader is the Role in kube-system that
// may read the authentication ConfigMap
// (extension-apiserver-authentication), which aggregated API servers
// bind to their service accounts for delegated authentication.
const ExtensionAPIServerAuthenticationReader = "extension-apiserver-authentication-reader"

// addDelegatedAuthPolicy adds Kubernetes' roles for servers that delegate
// authentication and authorization to the API server: the ClusterRole
// system:auth-delegator (create TokenReviews and SubjectAccessReviews)
// and, in kube-system, the Role
// extension-apiserver-authentication-reader (read the authentication
// ConfigMap), bound as Kubernetes binds it to the controller manager and
// the scheduler.
func addDelegatedAuthPolicy(p *Policy, add func(string, []rbac.PolicyRule, ...string) *rbac.ClusterRole) {
	add("system:auth-delegator", rules(
		verbs("create").groups("authentication.k8s.io").resources("tokenreviews"),
		verbs("create").groups("authorization.k8s.io").resources("subjectaccessreviews")))
	const ns = "kube-system"
	r := &rbac.Role{ObjectMeta: bootstrapMeta(ExtensionAPIServerAuthenticationReader),
		Rules: rules(verbs(readVerbs...).groups("").resources("configmaps").names("extension-apiserver-authentication"))}
	r.Namespace = ns
	r.SetGroupVersionKind(meta.GroupVersionKind{Group: rbac.GroupName, Version: rbac.Version, Kind: "Role"})
	p.Roles = append(p.Roles, r)
	b := &rbac.RoleBinding{ObjectMeta: bootstrapMeta("system::" + ExtensionAPIServerAuthenticationReader),
		RoleRef:  rbac.RoleRef{APIGroup: rbac.GroupName, Kind: "Role", Name: ExtensionAPIServerAuthenticationReader},
		Subjects: []rbac.Subject{user(KubeControllerManagerUser), user(KubeSchedulerUser)}}
	b.Namespace = ns
	b.SetGroupVersionKind(meta.GroupVersionKind{Group: rbac.GroupName, Version: rbac.Version, Kind: "RoleBinding"})
	p.RoleBindings = append(p.RoleBindings, b)
}

func bootstrapMeta(name string) meta.ObjectMeta {
	return meta.ObjectMeta{
		Name:        name,
		Labels:      map[string]string{BootstrappingLabel: BootstrappingValue},
		Annotations: map[string]string{rbac.AutoUpdateAnnotationKey: "true"},
	}
}

func aggregation(to string) *rbac.AggregationRule {
	return &rbac.AggregationRule{ClusterRoleSelectors: []meta.LabelSelector{{
		MatchLabels: map[string]string{"rbac.authorization.k8s.io/aggregate-to-" + to: "true"},
	}}}
}

func group(name string) rbac.Subject {
	return rbac.Subject{Kind: rbac.GroupKind, APIGroup: rbac.GroupName, Name: name}
}

func user(name string) rbac.Subject {
	return rbac.Subject{Kind: rbac.UserKind, APIGroup: rbac.GroupName, Name: name}
}

// addNodeCertificatePolicy adds Kubernetes' roles for kubelet client
// certificates and binds them as kubeadm's init does (kubeadm names the
// bindings kubeadm:...): bootstrap tokens (system:bootstrappers) and nodes
// may create and watch CertificateSigningRequests; the approver approves
// a bootstrapper's node client request (nodeclient) and a node's renewal
// of its own certificate (selfnodeclient).
func addNodeCertificatePolicy(add func(string, []rbac.PolicyRule, ...string) *rbac.ClusterRole, bind func(name, role string, subjects ...rbac.Subject)) {
	const (
		csrGroup       = "certificates.k8s.io"
		nodeClient     = "system:certificates.k8s.io:certificatesigningrequests:nodeclient"
		selfNodeClient = "system:certificates.k8s.io:certificatesigningrequests:selfnodeclient"
	)
	add("system:node-bootstrapper", rules(verbs("create", "get", "list", "watch").groups(csrGroup).resources("certificatesigningrequests")))
	add(nodeClient, rules(verbs("create").groups(csrGroup).resources("certificatesigningrequests/nodeclient")))
	add(selfNodeClient, rules(verbs("create").groups(csrGroup).resources("certificatesigningrequests/selfnodeclient")))
	bind("orkit:kubelet-bootstrap", "system:node-bootstrapper", group(authn.GroupBootstrappers), group(authn.GroupNodes))
	bind("orkit:node-autoapprove-bootstrap", nodeClient, group(authn.GroupBootstrappers))
	bind("orkit:node-autoapprove-certificate-rotation", selfNodeClient, group(authn.GroupNodes))
}
