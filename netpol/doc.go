// Package netpol enforces networking.k8s.io/v1 NetworkPolicies on a node
// with nftables. A node runs it beside the service proxy, in the network
// namespace its pods' bridge lives in.
//
//	NetworkPolicies, Pods, Namespaces ──watch──▶ Enforcer ──changed──▶ sync
//	    Render (pure): Ruleset {chain per isolated pod, IP ─▶ chain maps}
//	    Script ──▶ one nft transaction rewriting the table "ip orkit-netpol"
//	    (through proxy.Runner: the same nft runner as the service proxy)
//
// The rules, as Kubernetes defines them:
//
//   - A pod selected by no policy of a type is not isolated for that type:
//     everything passes. A pod is isolated for ingress (egress) once a
//     policy of its namespace selects it with that type in policyTypes;
//     an empty policyTypes means Ingress, plus Egress when the policy has
//     egress rules (the API server sets this; Render assumes the same).
//   - An isolated pod accepts (sends) only what at least one rule of the
//     policies selecting it allows; rules add up, order does not matter.
//     A rule without peers allows every address, without ports every port.
//   - Peers: podSelector alone picks pods of the policy's namespace;
//     namespaceSelector alone every pod of the matching namespaces; both
//     together the matching pods of the matching namespaces; ipBlock a
//     CIDR without its excepts (IPv4: orkit's pod network is IPv4 only).
//     Host-network and finished pods are neither isolated nor peers.
//   - Ports: protocol TCP unless given (UDP, SCTP); a number, a range
//     port..endPort, a named container port (looked up in the receiving
//     pod for ingress; for egress in each destination pod that has it), or
//     no port for the whole protocol.
//   - Replies of allowed connections (conntrack established or related)
//     always pass; a pod always reaches itself; traffic between a pod and
//     its own node never takes the forward path and is never filtered.
//
// The table hooks forward at priority 0, after the service proxy's DNAT,
// so a connection to a ClusterIP meets the policies of the pod it is
// translated to:
//
//	forward: ct state established,related accept
//	         ip saddr vmap @egress-pods  ─▶ out-<h>: [allow rules: return]… drop
//	         ip daddr vmap @ingress-pods ─▶ in-<h>:  [allow rules: return]… drop
//
// Pods of one node share a Linux bridge, which switches their traffic at
// layer 2: it never reaches the ip family's forward hook unless the bridge
// hands it over (br_netfilter, with the host-wide
// net.bridge.bridge-nf-call-iptables sysctl or the bridge's own
// nf_call_iptables option, which EnableBridgeNetfilter sets).
// TestBridgedTrafficMeetsRules shows both sides in a namespace of its own.
// Run refuses to start without br_netfilter (ErrNoBridgeNetfilter).
//
// Render takes the nodes whose pods it isolates: one enforcer for every
// node of a network namespace (the all-in-one minicluster) passes nil;
// per-node enforcers in one namespace each isolate their own pods, and
// since a packet passes every table's hook, their verdicts add up as one
// would. The enforcer rewrites the whole table in one transaction when
// the rendered script changes (policies are few; packets see the old or
// the new rules, never a mix), and removes it when Run returns.
//
// The reading identity needs list and watch of pods, namespaces and
// networkpolicies in every namespace: the bootstrap ClusterRole
// orkit:network-policy-agent, bound to authz.NetworkPolicyAgentUser.
package netpol
