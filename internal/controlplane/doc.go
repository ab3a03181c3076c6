// Package controlplane assembles the store, the PKI and the API server
// into a running control plane in one data directory. The minicluster and
// the integration tests start the control plane through it, so both run
// the same wiring:
//
//	Config ─▶ Start ─┬─ pki/ (cluster CA, serving certificate)
//	                 ├─ store.db (bbolt)
//	                 ├─ authentication: x509 | basic-auth file | token file | OIDC (| anonymous)
//	                 ├─ authorization:  system:masters, then AuthConfig.AuthorizationMode in order
//	                 │                  (Node, RBAC, ABAC, Webhook, AlwaysAllow, AlwaysDeny)
//	                 ├─ admission:      DefaultAdmission (or Config.Admission)
//	                 ├─ initializers
//	                 └─ bootstrap objects (namespaces, RBAC policy, system PriorityClasses)
//
// Bad configuration fails Start with an error wrapping ErrInvalidConfig.
package controlplane
