package netpol

import (
	"fmt"
	"net/netip"
	"sort"
	"strings"
)

// TableName is the default nftables table (family ip) of the rules.
const TableName = "orkit-netpol"

// The names of the dispatch maps in the table.
const (
	ingressMap = "ingress-pods"
	egressMap  = "egress-pods"
)

func tableRef(name string) string {
	if name == "" {
		name = TableName
	}
	return "ip " + name
}

// DeleteScript removes the table name (empty: TableName), whether or not
// it exists.
func DeleteScript(name string) string {
	t := tableRef(name)
	return fmt.Sprintf("add table %s\ndelete table %s\n", t, t)
}

// Script is the nft script that replaces the table with rs in one
// transaction. The table hooks the forward path (priority 0, after the
// service proxy's DNAT, so rules see pod addresses): established and
// related traffic passes, a packet from a pod isolated for egress goes
// through its egress chain, one to a pod isolated for ingress through its
// ingress chain; a chain that reaches its end drops. Traffic between a
// pod and its own node does not take the forward path and always passes,
// as Kubernetes has it.
func (rs Ruleset) Script() string {
	t := tableRef(rs.Table)
	var b strings.Builder
	b.WriteString(DeleteScript(rs.Table))
	fmt.Fprintf(&b, "add table %s\n", t)
	for _, m := range []string{ingressMap, egressMap} {
		fmt.Fprintf(&b, "add map %s %s { type ipv4_addr : verdict; }\n", t, m)
	}
	fmt.Fprintf(&b, "add chain %s forward { type filter hook forward priority 0; policy accept; }\n", t)
	fmt.Fprintf(&b, "add rule %s forward ct state established,related accept\n", t)
	fmt.Fprintf(&b, "add rule %s forward ip saddr vmap @%s\n", t, egressMap)
	fmt.Fprintf(&b, "add rule %s forward ip daddr vmap @%s\n", t, ingressMap)
	names := make([]string, 0, len(rs.Chains))
	for n := range rs.Chains {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&b, "add chain %s %s\n", t, n)
		for _, r := range rs.Chains[n] {
			fmt.Fprintf(&b, "add rule %s %s %s\n", t, n, r)
		}
	}
	writeElements(&b, t, ingressMap, rs.Ingress)
	writeElements(&b, t, egressMap, rs.Egress)
	return b.String()
}

// writeElements adds the dispatch of m to the map name, 500 a line.
func writeElements(b *strings.Builder, table, name string, m map[netip.Addr]string) {
	ips := make([]netip.Addr, 0, len(m))
	for ip := range m {
		ips = append(ips, ip)
	}
	sort.Slice(ips, func(i, j int) bool { return ips[i].Less(ips[j]) })
	for len(ips) > 0 {
		n := min(len(ips), 500)
		elems := make([]string, n)
		for i, ip := range ips[:n] {
			elems[i] = fmt.Sprintf("%s : jump %s", ip, m[ip])
		}
		fmt.Fprintf(b, "add element %s %s { %s }\n", table, name, strings.Join(elems, ", "))
		ips = ips[n:]
	}
}
