package proxy

import (
	"fmt"
	"net/netip"
	"sort"
	"strings"
)

// tableRef is the "family name" prefix of every nft command for a table
// name (empty: TableName).
func tableRef(name string) string {
	if name == "" {
		name = TableName
	}
	return TableFamily + " " + name
}

// baseScript creates the table, its hooks, its two dispatch maps and the
// reject rules for untranslated service addresses.
func baseScript(b *strings.Builder, table string, serviceCIDRs []netip.Prefix) {
	fmt.Fprintf(b, "add table %s\n", table)
	fmt.Fprintf(b, "add map %s %s { type ipv4_addr . inet_proto . inet_service : verdict; }\n", table, serviceIPsMap)
	fmt.Fprintf(b, "add map %s %s { type inet_proto . inet_service : verdict; }\n", table, nodePortsMap)
	fmt.Fprintf(b, "add chain %s services\n", table)
	fmt.Fprintf(b, "add rule %s services ip daddr . meta l4proto . th dport vmap @%s\n", table, serviceIPsMap)
	fmt.Fprintf(b, "add rule %s services fib daddr type local ip daddr != 127.0.0.0/8 meta l4proto . th dport vmap @%s\n", table, nodePortsMap)
	fmt.Fprintf(b, "add chain %s nat-prerouting { type nat hook prerouting priority -100; policy accept; }\n", table)
	fmt.Fprintf(b, "add rule %s nat-prerouting jump services\n", table)
	fmt.Fprintf(b, "add chain %s nat-output { type nat hook output priority -100; policy accept; }\n", table)
	fmt.Fprintf(b, "add rule %s nat-output jump services\n", table)
	fmt.Fprintf(b, "add chain %s nat-postrouting { type nat hook postrouting priority 100; policy accept; }\n", table)
	fmt.Fprintf(b, "add rule %s nat-postrouting meta mark & 0x%x == 0x%x masquerade\n", table, MasqueradeMark, MasqueradeMark)
	if cidrs := v4Prefixes(serviceCIDRs); cidrs != "" {
		// After dstnat (priority -100): what still goes to a service
		// address matched no Service port with endpoints.
		for _, hook := range []string{"output", "forward"} {
			fmt.Fprintf(b, "add chain %s filter-%s { type filter hook %s priority 0; policy accept; }\n", table, hook, hook)
			fmt.Fprintf(b, "add rule %s filter-%s ip daddr { %s } reject comment %q\n", table, hook, cidrs, "no Service port with endpoints")
		}
	}
}

// v4Prefixes lists the IPv4 prefixes of ps, comma-separated (the table is
// family ip).
func v4Prefixes(ps []netip.Prefix) string {
	var out []string
	for _, p := range ps {
		if p.IsValid() && p.Addr().Is4() {
			out = append(out, p.Masked().String())
		}
	}
	return strings.Join(out, ", ")
}

// DeleteScript removes the table name (empty: TableName), whether or not
// it exists.
func DeleteScript(name string) string {
	table := tableRef(name)
	return fmt.Sprintf("add table %s\ndelete table %s\n", table, table)
}

// Script is the nft script that replaces whatever the proxy's table holds
// with rs, in one transaction.
func (rs Ruleset) Script() string {
	var b strings.Builder
	b.WriteString(DeleteScript(rs.Table))
	baseScript(&b, tableRef(rs.Table), rs.ServiceCIDRs)
	rs.writeAdds(&b, Ruleset{}, func(string) bool { return true })
	return b.String()
}

// Diff is the nft script that turns the table from old into rs, touching
// only what changed: new and changed chains and sets are (re)written,
// changed map elements replaced, and what is gone deleted after the last
// reference to it is. Applied as one transaction, so packets see either
// the old or the new rules. An empty string means nothing changed.
func Diff(old, rs Ruleset) string {
	table := tableRef(rs.Table)
	var b strings.Builder
	changed := func(name string) bool { c, ok := old.Chains[name]; return !ok || c != rs.Chains[name] }
	// 1. chains that are gone or changed lose their rules (and so their references)
	for _, name := range sortedKeysWhere(old.Chains, func(k, v string) bool { c, ok := rs.Chains[k]; return !ok || c != v }) {
		fmt.Fprintf(&b, "flush chain %s %s\n", table, name)
	}
	// 2. map elements that are gone or changed go
	for _, m := range []struct {
		name     string
		old, new map[string]string
	}{{serviceIPsMap, old.ServiceIPs, rs.ServiceIPs}, {nodePortsMap, old.NodePorts, rs.NodePorts}} {
		for _, k := range sortedKeysWhere(m.old, func(k, v string) bool { n, ok := m.new[k]; return !ok || n != v }) {
			fmt.Fprintf(&b, "delete element %s %s { %s }\n", table, m.name, k)
		}
	}
	// 3. sets: a changed declaration is deleted and added again
	for _, name := range sortedKeysWhere(old.Sets, func(k, v string) bool { d, ok := rs.Sets[k]; return !ok || d != v }) {
		fmt.Fprintf(&b, "delete set %s %s\n", table, name)
	}
	// 4. new chains and sets, rules of new and changed chains, new elements
	rs.writeAdds(&b, old, changed)
	// 5. chains that are gone
	for _, name := range sortedKeysWhere(old.Chains, func(k, _ string) bool { _, ok := rs.Chains[k]; return !ok }) {
		fmt.Fprintf(&b, "delete chain %s %s\n", table, name)
	}
	return b.String()
}

// writeAdds writes the sets, chains, rules and map elements of rs that old
// lacks (or, for chains, that write says to write).
func (rs Ruleset) writeAdds(b *strings.Builder, old Ruleset, write func(string) bool) {
	table := tableRef(rs.Table)
	for _, name := range sortedKeysWhere(rs.Sets, func(k, v string) bool { d, ok := old.Sets[k]; return !ok || d != v }) {
		fmt.Fprintf(b, "add set %s %s { %s }\n", table, name, rs.Sets[name])
	}
	for _, name := range sortedKeysWhere(rs.Chains, func(k, _ string) bool { _, ok := old.Chains[k]; return !ok }) {
		fmt.Fprintf(b, "add chain %s %s\n", table, name)
	}
	// every chain exists by now, so rules may jump to any of them
	for _, name := range sortedKeysWhere(rs.Chains, func(k, _ string) bool { return write(k) }) {
		for _, r := range strings.Split(rs.Chains[name], "\n") {
			fmt.Fprintf(b, "add rule %s %s %s\n", table, name, r)
		}
	}
	for _, m := range []struct {
		name     string
		old, new map[string]string
	}{{serviceIPsMap, old.ServiceIPs, rs.ServiceIPs}, {nodePortsMap, old.NodePorts, rs.NodePorts}} {
		var elems []string
		for _, k := range sortedKeysWhere(m.new, func(k, v string) bool { o, ok := m.old[k]; return !ok || o != v }) {
			elems = append(elems, k+" : "+m.new[k])
		}
		for len(elems) > 0 { // keep lines short for nft's parser
			n := min(len(elems), 500)
			fmt.Fprintf(b, "add element %s %s { %s }\n", table, m.name, strings.Join(elems[:n], ", "))
			elems = elems[n:]
		}
	}
}

// sortedKeysWhere returns the keys of m that keep accepts, sorted (only
// those are sorted: a small change to a big ruleset stays cheap).
func sortedKeysWhere(m map[string]string, keep func(k, v string) bool) []string {
	var out []string
	for k, v := range m {
		if keep(k, v) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
