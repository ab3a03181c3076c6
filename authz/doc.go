// Package authz owns the second stage of the API server's handler chain:
// deciding whether the authenticated user may do what the request asks.
//
// An Authorizer answers Allow, Deny or NoOpinion for a request's
// Attributes. Chain asks several in order — first Allow wins, a Deny
// stops, NoOpinion goes on — and the server forbids the request (403,
// worded by ForbiddenMessage) unless the chain allows it. The
// implementations follow kube-apiserver's authorization modes:
//
//	Attributes ─▶ Chain ─┬─ Masters   (group system:masters: always Allow)
//	                     ├─ Node      (system:node:<name>: its pods, secrets, lease, ...; Deny otherwise)
//	                     ├─ RBAC      (Roles, ClusterRoles and their bindings, from the server's caches;
//	                     │             each user's resolved rules kept until an RBAC object changes)
//	                     ├─ ABAC      (a JSON-lines policy file)
//	                     └─ Webhook   (SubjectAccessReview to a remote service, cached)
//
// RuleResolver is the optional ability to list a user's rules, for
// SelfSubjectRulesReview (`kubectl auth can-i --list`): Chain, Masters,
// RBAC, ABAC, AlwaysAllow and AlwaysDeny list theirs; Node (for nodes) and
// Webhook cannot, which marks the answer incomplete.
//
// Escalation prevention (ConfirmNoEscalation, RoleEscalationAuthorized,
// BindingAuthorized, EscalationAllowed, FullAuthority) is what the API
// server asks before it stores a Role, ClusterRole or binding written by a
// user outside system:masters: the user must hold every rule granted
// (rbac.Covers) or be allowed "escalate" (roles) or "bind" (the referenced
// role), as kube-apiserver's RBAC storage has it.
//
// BootstrapPolicy gives the default ClusterRoles and ClusterRoleBindings the
// server seeds at start. Every authorizer is safe for concurrent use.
//
// The package depends only on the object model and authn: the API server
// runs the chain, and admission plugins use its helpers (NodeName), so it
// sits below both. RBAC and Node read their objects through small source
// interfaces that the API server's caches implement.
package authz
