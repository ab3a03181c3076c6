// Package kubeletclient owns the API server's connections to kubelets:
// the subresources whose answer comes from the node a pod runs on
// (pods/log, pods/exec; pods/attach and pods/portforward fit the same way)
// go through a Client, which finds the pod's Node, picks its address and
// kubelet port, dials that kubelet over TLS with the API server's own
// client certificate, and then either streams the answer back (logs) or
// proxies the connection upgrade and the raw stream after it (exec).
//
//	pods/log  ─▶ Client.Logs ──▶ location ─▶ GET  https://<node>:<port>/containerLogs/<ns>/<pod>/<container>?<PodLogOptions.Query>
//	pods/exec ─▶ Client.Exec ──▶ location ─▶ Upgrade https://<node>:<port>/exec/<ns>/<pod>/<container>?<PodExecOptions.KubeletQuery>
//	                               │
//	                               └─ Node (NodeGetter): status.addresses by PreferredAddressTypes,
//	                                  status.daemonEndpoints.kubeletEndpoint.port
//
// The API server authenticates, authorizes and checks a request before it
// hands it here, and configures the Client from apiserver.Config.Kubelet
// (kube-apiserver's --kubelet-client-certificate, --kubelet-client-key and
// --kubelet-certificate-authority). Only what a protocol upgrade needs is
// forwarded to a kubelet, never the caller's credentials. The kubelet's
// side of these endpoints is package kubelet; the option types and their
// query encodings both sides use are in api/core, so neither side imports
// the other.
//
// Errors are *meta.Status values (api/errors) worded as kube-apiserver
// words them: a node without a kubelet endpoint is a 400, a kubelet that
// cannot be reached a 400 for logs and a 503 for upgrades.
package kubeletclient
