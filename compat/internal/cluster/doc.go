// Package cluster starts orkit's control plane in-process for the compat
// tests and hands them a *rest.Config (system:masters client certificate)
// for client-go, controller-runtime and the other ecosystem clients.
//
//	Start ─▶ startControlPlane (the one call into orkit's control plane)
//	     ─▶ rest.Config from the admin kubeconfig ─▶ client-go
//	Stop / Restart keep the data directory and the address, so clients
//	reconnect to the same server with the same credentials.
//
// Tests that need to break clients' connections route them through a
// CutDialer; RequestLog records what the clients sent and got.
package cluster
