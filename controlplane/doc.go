// Package controlplane owns a running control plane: a store and an API
// server in one data directory, started from one Config. It is what an
// embedder calls to get a cluster's API (the minicluster, the examples and
// the integration tests all start theirs here, so they run the same
// wiring):
//
//	cp, err := controlplane.Start(ctx, controlplane.Config{DataDir: dir})
//	cfg, err := cp.ClientConfig("system:kube-scheduler")   // a component's credentials
//	c, err := client.New(cfg)
//
//	Config ─▶ Start ─┬─ PKI:            DataDir/pki/ca.{crt,key} (or PKI.CA), serving certificate,
//	                 │                  front-proxy CA DataDir/pki/front-proxy (or PKI.FrontProxyCA)
//	                 │                  and the proxy client certificate for aggregated APIs
//	                 ├─ store:          bbolt in DataDir/store.db (or Config.Store: any store.Interface)
//	                 ├─ authentication: x509 | token file | basic-auth file | OIDC (| anonymous)
//	                 ├─ authorization:  system:masters, then AuthConfig.AuthorizationMode in order
//	                 │                  (Node, RBAC, ABAC, Webhook, AlwaysAllow, AlwaysDeny)
//	                 ├─ admission:      DefaultAdmission (or Config.Admission, built on it)
//	                 ├─ kinds:          the built-ins and Config.Resources
//	                 ├─ initializers
//	                 ├─ bootstrap objects (namespaces, RBAC policy, system PriorityClasses)
//	                 │  and DataDir/admin.kubeconfig (system:masters)
//	                 ├─ kept every 10s: the kubernetes Service and its endpoints, the
//	                 │  default ServiceCIDR "kubernetes" (10.96.0.0/12, Ready=True)
//	                 └─ kube-system/extension-apiserver-authentication: whom aggregated API
//	                    servers trust (client CA, front-proxy CA, allowed names, headers)
//
// Every choice is a Config field with a documented zero value; nothing
// must be called in a particular order. The control plane runs until
// Start's context ends; Done tells when its store is closed. Bad
// configuration fails Start with an error wrapping ErrInvalidConfig.
package controlplane
