// Package cni owns pod networking: it attaches a pod sandbox's network
// namespace to the node's pod network and detaches it again.
//
// The contract is the Network interface (SetUp, TearDown, Check), which the
// kubelet calls after the runtime has created a sandbox and before it removes
// one. LibCNI implements it on the CNI plugins through libcni: by default it
// generates a bridge network on the node's pod CIDR (bridge with host-local
// IPAM, then portmap for hostPorts) plus a separate loopback network on "lo";
// it can instead use the first configuration file of a CNI configuration
// directory, as the kubelet does.
//
// What the package guarantees beyond libcni:
//
//   - Results are cached under the caller's state directory, so a new LibCNI
//     on the same directories (after a restart) tears down what an earlier one
//     set up, with the same port mappings.
//   - TearDown is idempotent: it succeeds twice in a row, after a failed
//     SetUp, and after the network namespace is gone (it then passes an empty
//     netns path to the plugins, as the kubelet does).
//   - ReclaimLeaked releases IP allocations and cached attachments that name a
//     sandbox no longer alive.
//
// The package also holds the pod DNS policy (PodDNS, WriteResolvConf,
// ParseResolvConf) and the host guard (InstallHostGuard), which makes
// addresses of the cluster CIDR with nothing behind them fail on the host
// instead of leaving through the default route, and routes the service CIDR
// to a local dummy device, so processes on the host can reach cluster IPs
// through the service proxy's rules (which reject the rest).
package cni
