package netpol

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/netip"
	"slices"
	"sort"
	"strings"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/labels"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/networking"
)

// Ruleset is what Render derives from the policies: for each isolated pod
// a chain of allow rules (each ends in "return", the chain in "drop") and
// the dispatch from the pod's IP to it, for the traffic it receives
// (Ingress) and sends (Egress). The zero value isolates nothing. A
// Ruleset is a plain value; Script turns it into nft input.
type Ruleset struct {
	// Table names the nftables table (family ip); empty means TableName.
	Table string
	// Chains maps a chain name to its rules, in order. Names are hashes
	// of the content, so pods with equal rules share a chain.
	Chains map[string][]string
	// Ingress maps the IP of a pod isolated for ingress to its chain.
	Ingress map[netip.Addr]string
	// Egress maps the IP of a pod isolated for egress to its chain.
	Egress map[netip.Addr]string
	// Problems lists what Render skipped and why (a selector that does
	// not parse, an ipBlock of another family); for logs.
	Problems []string
}

// Render derives the rules that enforce policies for the pods of nodes
// (nil: every pod). A pod with an IPv4 address that is neither host
// network nor finished is isolated for ingress (egress) when some policy
// of its namespace selects it and has that policy type (policyTypes as
// the API server defaults it when empty); then it accepts (sends) only
// what one of those policies' rules allows, plus traffic from (to)
// itself. Peers are the pods of all nodes: podSelector picks pods of the
// policy's namespace, namespaceSelector all pods of the matching
// namespaces, both the matching pods of the matching namespaces, ipBlock
// the CIDR without its excepts. Ports default to TCP; a named port is
// looked up in the containers of the receiving pod (for egress, of each
// destination pod). Render never fails: what it cannot use it skips and
// names in Problems.
func Render(policies []*networking.NetworkPolicy, pods []*core.Pod, namespaces []*core.Namespace, nodes []string) Ruleset {
	r := &renderer{rs: Ruleset{Chains: map[string][]string{}, Ingress: map[netip.Addr]string{}, Egress: map[netip.Addr]string{}},
		nsLabels: map[string]map[string]string{}}
	for _, ns := range namespaces {
		r.nsLabels[ns.Name] = ns.Labels
	}
	for _, p := range pods {
		if ip, ok := podIP(p); ok {
			r.pods = append(r.pods, podInfo{pod: p, ip: ip})
		}
	}
	sort.Slice(r.pods, func(i, j int) bool { return r.pods[i].ip < r.pods[j].ip })
	r.policies = slices.Clone(policies)
	sort.Slice(r.policies, func(i, j int) bool {
		a, b := r.policies[i], r.policies[j]
		return a.Namespace < b.Namespace || (a.Namespace == b.Namespace && a.Name < b.Name)
	})
	for _, p := range r.pods {
		if nodes == nil || slices.Contains(nodes, p.pod.Spec.NodeName) {
			r.renderPod(p)
		}
	}
	return r.rs
}

// podInfo is a pod that has an address the rules can name.
type podInfo struct {
	pod *core.Pod
	ip  uint32
}

type renderer struct {
	rs       Ruleset
	pods     []podInfo
	policies []*networking.NetworkPolicy
	nsLabels map[string]map[string]string
}

// podIP is the IPv4 address of a pod the rules apply to: not host
// network, not finished, with an IPv4 pod IP.
func podIP(p *core.Pod) (uint32, bool) {
	if p.Spec.HostNetwork || p.Status.Phase == core.PodSucceeded || p.Status.Phase == core.PodFailed {
		return 0, false
	}
	candidates := []string{p.Status.PodIP}
	for _, ip := range p.Status.PodIPs {
		candidates = append(candidates, ip.IP)
	}
	for _, s := range candidates {
		if a, err := netip.ParseAddr(s); err == nil {
			if v, ok := addrU32(a); ok {
				return v, true
			}
		}
	}
	return 0, false
}

// renderPod adds the chains of p for the directions it is isolated in.
func (r *renderer) renderPod(p podInfo) {
	var in, out []string
	var isoIn, isoOut bool
	for _, np := range r.policies {
		if np.Namespace != p.pod.Namespace || !r.matches(&np.Spec.PodSelector, p.pod.Labels, np, "spec.podSelector") {
			continue
		}
		ingress, egress := np.Spec.EffectivePolicyTypes()
		if ingress {
			isoIn = true
			for i := range np.Spec.Ingress {
				in = append(in, r.ingressRule(np, &np.Spec.Ingress[i], p)...)
			}
		}
		if egress {
			isoOut = true
			for i := range np.Spec.Egress {
				out = append(out, r.egressRule(np, &np.Spec.Egress[i])...)
			}
		}
	}
	self := u32Addr(p.ip)
	if isoIn {
		r.rs.Ingress[self] = r.addChain("in", append([]string{fmt.Sprintf("ip saddr %s return", self)}, in...))
	}
	if isoOut {
		r.rs.Egress[self] = r.addChain("out", append([]string{fmt.Sprintf("ip daddr %s return", self)}, out...))
	}
}

// addChain stores rules (then "drop") under a name derived from them.
func (r *renderer) addChain(prefix string, rules []string) string {
	rules = append(rules, "drop")
	sum := sha256.Sum256([]byte(strings.Join(rules, "\n")))
	name := prefix + "-" + hex.EncodeToString(sum[:8])
	r.rs.Chains[name] = rules
	return name
}

// matches reports whether sel selects set; a selector that does not
// parse selects nothing and is named in Problems.
func (r *renderer) matches(sel *meta.LabelSelector, set map[string]string, np *networking.NetworkPolicy, where string) bool {
	s, err := labels.SelectorFromLabelSelector(sel)
	if err != nil {
		r.problem(np, "%s: %v", where, err)
		return false
	}
	return s.Matches(labels.Set(set))
}

func (r *renderer) problem(np *networking.NetworkPolicy, format string, args ...any) {
	msg := fmt.Sprintf("networkpolicy %s/%s: ", np.Namespace, np.Name) + fmt.Sprintf(format, args...)
	if !slices.Contains(r.rs.Problems, msg) {
		r.rs.Problems = append(r.rs.Problems, msg)
	}
}
