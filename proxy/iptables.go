package proxy

import (
	"bytes"
	"context"
	"fmt"
	"net/netip"
	"os/exec"
	"sort"
	"strings"

	"github.com/orkit/orkit/api/core"
)

// IPTables is the fallback backend for hosts without nft: it programs the
// nat table through iptables-restore, in chains named with Prefix, hooked
// from PREROUTING, OUTPUT and POSTROUTING by one jump each, and the
// rejection of untranslated service addresses in the filter table (one
// chain, hooked from OUTPUT and FORWARD). Unlike the nftables backend it
// rewrites all of its chains on every sync (one iptables-restore
// --noflush transaction). Safe for use by one Proxy.
type IPTables struct {
	// Prefix starts every chain name; empty means "ORKIT-". At most 8
	// characters (iptables chain names are limited to 28).
	Prefix string
	// NetNS, when set, runs the commands in that named network namespace.
	NetNS string
	// ServiceCIDRs are rejected when no Service rule translated them, as
	// Config.ServiceCIDRs (which New copies here when this is nil); nil
	// or empty rejects nothing.
	ServiceCIDRs []netip.Prefix
	// chains are the per-service chains of the last sync, deleted when gone.
	chains map[string]bool
}

// IPTablesAvailable reports whether iptables-restore and iptables are on PATH.
func IPTablesAvailable() bool {
	for _, b := range []string{"iptables", "iptables-restore"} {
		if _, err := exec.LookPath(b); err != nil {
			return false
		}
	}
	return true
}

func (t *IPTables) prefix() string {
	if t.Prefix == "" {
		return "ORKIT-"
	}
	return t.Prefix
}

// RenderIPTables is the iptables-restore input (table nat) that programs
// services and endpoints in chains named with prefix; gone lists chains of
// an earlier sync to delete. It is a pure function of its arguments.
func RenderIPTables(prefix string, services []*core.Service, endpoints []*core.Endpoints, gone []string) (script string, chains map[string]bool) {
	svcChain, npChain, postChain := prefix+"SERVICES", prefix+"NODEPORTS", prefix+"POSTROUTING"
	chains = map[string]bool{}
	var decl, rules []string
	add := func(chain string, rule string) { rules = append(rules, "-A "+chain+" "+rule) }
	for _, sp := range servicePorts(services, endpoints) {
		h := hash(sp.id)[:12]
		svc := prefix + "SVC-" + h
		chains[svc] = true
		comment := fmt.Sprintf("-m comment --comment %q", sp.id)
		add(svcChain, fmt.Sprintf("-d %s/32 -p %s --dport %d %s -j %s", sp.ip, sp.proto, sp.port, comment, svc))
		if sp.nodePort > 0 {
			ext := prefix + "EXT-" + h
			chains[ext] = true
			add(npChain, fmt.Sprintf("-p %s --dport %d %s -j %s", sp.proto, sp.nodePort, comment, ext))
			add(ext, fmt.Sprintf("-j MARK --or-mark 0x%x", MasqueradeMark))
			add(ext, "-j "+svc)
		}
		seps := make([]string, len(sp.backends))
		for i, b := range sp.backends {
			seps[i] = prefix + "SEP-" + hash(sp.id + "|" + b.String())[:12]
			chains[seps[i]] = true
			if sp.affinity > 0 {
				add(svc, fmt.Sprintf("-m recent --name %s --rcheck --seconds %d --reap -j %s", seps[i], sp.affinity, seps[i]))
			}
		}
		for i, b := range sp.backends {
			if n := len(sp.backends) - i; n > 1 {
				add(svc, fmt.Sprintf("-m statistic --mode random --probability %.11f -j %s", 1/float64(n), seps[i]))
			} else {
				add(svc, "-j "+seps[i])
			}
			add(seps[i], fmt.Sprintf("-s %s/32 -j MARK --or-mark 0x%x", b.IP, MasqueradeMark))
			if sp.affinity > 0 {
				add(seps[i], fmt.Sprintf("-m recent --name %s --set", seps[i]))
			}
			add(seps[i], fmt.Sprintf("-p %s %s -j DNAT --to-destination %s", sp.proto, comment, b))
		}
	}
	add(svcChain, fmt.Sprintf("-m addrtype --dst-type LOCAL ! -d 127.0.0.0/8 -j %s", npChain))
	add(postChain, fmt.Sprintf("-m mark --mark 0x%x/0x%x -j MASQUERADE", MasqueradeMark, MasqueradeMark))
	names := []string{svcChain, npChain, postChain}
	for c := range chains {
		names = append(names, c)
	}
	sort.Strings(names[3:])
	for _, c := range names {
		decl = append(decl, ":"+c+" - [0:0]")
	}
	var del []string
	for _, c := range gone {
		if !chains[c] {
			decl = append(decl, ":"+c+" - [0:0]") // flushed first, so it can be deleted
			del = append(del, "-X "+c)
		}
	}
	var b strings.Builder
	b.WriteString("*nat\n")
	for _, l := range [][]string{decl, rules, del} {
		for _, x := range l {
			b.WriteString(x + "\n")
		}
	}
	b.WriteString("COMMIT\n")
	return b.String(), chains
}

// renderIPTablesFilter is the iptables-restore input (table filter) of
// the chain rejecting what still goes to a service address after the nat
// table: no Service port with endpoints translated it.
func renderIPTablesFilter(prefix string, serviceCIDRs []netip.Prefix) string {
	chain := prefix + "FILTER"
	var b strings.Builder
	b.WriteString("*filter\n:" + chain + " - [0:0]\n")
	for _, p := range serviceCIDRs {
		if p.IsValid() && p.Addr().Is4() {
			fmt.Fprintf(&b, "-A %s -d %s -m comment --comment %q -j REJECT\n", chain, p.Masked(), "no Service port with endpoints")
		}
	}
	b.WriteString("COMMIT\n")
	return b.String()
}

// hooks are the jumps from the built-in chains into the proxy's: table,
// then the rule.
func (t *IPTables) hooks() [][]string {
	p := t.prefix()
	return [][]string{
		{"nat", "PREROUTING", "-j", p + "SERVICES"},
		{"nat", "OUTPUT", "-j", p + "SERVICES"},
		{"nat", "POSTROUTING", "-j", p + "POSTROUTING"},
		{"filter", "OUTPUT", "-j", p + "FILTER"},
		{"filter", "FORWARD", "-j", p + "FILTER"},
	}
}

func (t *IPTables) command(ctx context.Context, stdin string, args ...string) error {
	if t.NetNS != "" {
		args = append([]string{"ip", "netns", "exec", t.NetNS}, args...)
	}
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%w: %s: %v: %s", ErrApply, strings.Join(args, " "), err, firstLines(out.String(), 5))
	}
	return nil
}

// Sync programs services and endpoints, then makes sure the hooks exist.
func (t *IPTables) Sync(ctx context.Context, services []*core.Service, endpoints []*core.Endpoints) error {
	var gone []string
	for c := range t.chains {
		gone = append(gone, c)
	}
	sort.Strings(gone)
	script, chains := RenderIPTables(t.prefix(), services, endpoints, gone)
	script += renderIPTablesFilter(t.prefix(), t.ServiceCIDRs)
	if err := t.command(ctx, script, "iptables-restore", "--noflush", "-w"); err != nil {
		t.chains = nil
		return err
	}
	t.chains = chains
	for _, h := range t.hooks() {
		if t.command(ctx, "", append([]string{"iptables", "-w", "-t", h[0], "-C"}, h[1:]...)...) != nil {
			if err := t.command(ctx, "", append([]string{"iptables", "-w", "-t", h[0], "-I"}, h[1:]...)...); err != nil {
				return err
			}
		}
	}
	return nil
}

// Cleanup removes the hooks and every chain with the prefix, in the nat
// and filter tables, also those of an earlier process.
func (t *IPTables) Cleanup(ctx context.Context) error {
	for _, h := range t.hooks() {
		for t.command(ctx, "", append([]string{"iptables", "-w", "-t", h[0], "-D"}, h[1:]...)...) == nil {
		}
	}
	t.chains = nil
	var b strings.Builder
	for _, table := range []string{"nat", "filter"} {
		args := []string{"iptables-save", "-t", table}
		if t.NetNS != "" {
			args = append([]string{"ip", "netns", "exec", t.NetNS}, args...)
		}
		out, err := exec.CommandContext(ctx, args[0], args[1:]...).Output()
		if err != nil {
			return fmt.Errorf("%w: iptables-save: %v", ErrApply, err)
		}
		var mine []string
		for _, l := range strings.Split(string(out), "\n") {
			if name, ok := strings.CutPrefix(l, ":"+t.prefix()); ok {
				mine = append(mine, t.prefix()+strings.Fields(name)[0])
			}
		}
		if len(mine) == 0 {
			continue
		}
		b.WriteString("*" + table + "\n")
		for _, c := range mine {
			b.WriteString(":" + c + " - [0:0]\n")
		}
		for _, c := range mine {
			b.WriteString("-X " + c + "\n")
		}
		b.WriteString("COMMIT\n")
	}
	if b.Len() == 0 {
		return nil
	}
	return t.command(ctx, b.String(), "iptables-restore", "--noflush", "-w")
}
