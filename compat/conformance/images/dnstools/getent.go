package main

import (
	"context"
	"fmt"
	"io"
	"net/netip"
	"strings"

	"golang.org/x/net/dns/dnsmessage"
)

// getent's exit codes.
const (
	getentOK       = 0
	getentUsage    = 1
	getentNotFound = 2
)

// host is one hostent: the canonical name, aliases and addresses.
type host struct {
	name    string
	aliases []string
	addrs   []netip.Addr
}

// getentMain runs getent with args. Only the hosts database is known:
// without keys it lists the hosts file, with keys it looks each up as
// glibc's getent does (an address by address, a name as IPv6 then IPv4)
// and stops at the first not found, exit 2.
func getentMain(args []string, stdout, stderr io.Writer, sys system) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "Usage: getent hosts [KEY...]")
		return getentUsage
	}
	if args[0] != "hosts" {
		fmt.Fprintf(stderr, "Unknown database: %s\n", args[0])
		return getentUsage
	}
	hosts := readHosts(sys.hosts)
	if len(args) == 1 {
		for _, e := range hosts {
			printHost(stdout, host{name: e.name, aliases: e.aliases, addrs: []netip.Addr{e.addr}})
		}
		return getentOK
	}
	r := &hostResolver{hosts: hosts, rc: readResolvConf(sys.resolvConf), port: sys.port}
	for _, key := range args[1:] {
		h, ok := r.lookup(context.Background(), key)
		if !ok {
			return getentNotFound
		}
		printHost(stdout, h)
	}
	return getentOK
}

// printHost writes a hostent as glibc's getent: one line an address,
// "%-15s %s" and the aliases.
func printHost(w io.Writer, h host) {
	for _, a := range h.addrs {
		line := fmt.Sprintf("%-15s %s", a, h.name)
		for _, al := range h.aliases {
			line += " " + al
		}
		fmt.Fprintln(w, line)
	}
}

// hostResolver is NSS "hosts: files dns".
type hostResolver struct {
	hosts []hostsEntry
	rc    resolvConf
	port  uint16
}

// lookup resolves key: an address to its names, a name to its IPv6
// addresses or, failing those, its IPv4 ones.
func (r *hostResolver) lookup(ctx context.Context, key string) (host, bool) {
	if ip, err := netip.ParseAddr(key); err == nil {
		return r.byAddr(ctx, ip.WithZone(""))
	}
	if h, ok := r.byName(ctx, key, true); ok {
		return h, true
	}
	return r.byName(ctx, key, false)
}

// byName looks name up in one family: the first hosts line with it, else
// DNS through the search list.
func (r *hostResolver) byName(ctx context.Context, name string, v6 bool) (host, bool) {
	for _, e := range r.hosts {
		if e.addr.Is6() == v6 && e.matches(name) {
			return host{name: e.name, aliases: e.aliases, addrs: []netip.Addr{e.addr}}, true
		}
	}
	qtype := dnsmessage.TypeA
	if v6 {
		qtype = dnsmessage.TypeAAAA
	}
	m, ok := r.search(ctx, name, qtype)
	if !ok {
		return host{}, false
	}
	var h host
	for _, rr := range m.Answers {
		owner := strings.TrimSuffix(rr.Header.Name.String(), ".")
		switch b := rr.Body.(type) {
		case *dnsmessage.CNAMEResource:
			h.aliases = append(h.aliases, owner)
		case *dnsmessage.AResource:
			h.name, h.addrs = owner, append(h.addrs, netip.AddrFrom4(b.A))
		case *dnsmessage.AAAAResource:
			h.name, h.addrs = owner, append(h.addrs, netip.AddrFrom16(b.AAAA))
		}
	}
	return h, len(h.addrs) > 0
}

// byAddr looks an address up: the first hosts line with it, else its PTR
// records.
func (r *hostResolver) byAddr(ctx context.Context, ip netip.Addr) (host, bool) {
	for _, e := range r.hosts {
		if e.addr == ip {
			return host{name: e.name, aliases: e.aliases, addrs: []netip.Addr{ip}}, true
		}
	}
	m, ok := r.query(ctx, reverseName(ip), dnsmessage.TypePTR)
	if !ok {
		return host{}, false
	}
	h := host{addrs: []netip.Addr{ip}}
	for _, rr := range m.Answers {
		if p, ok := rr.Body.(*dnsmessage.PTRResource); ok {
			n := strings.TrimSuffix(p.PTR.String(), ".")
			if h.name == "" {
				h.name = n
			} else {
				h.aliases = append(h.aliases, n)
			}
		}
	}
	return h, h.name != ""
}

// search is glibc's res_search: each name of the search rules in turn
// until one has answers of the type; NXDOMAIN, no data and SERVFAIL go on
// to the next.
func (r *hostResolver) search(ctx context.Context, name string, qtype dnsmessage.Type) (dnsmessage.Message, bool) {
	for _, n := range searchNames(name, r.rc.search, r.rc.ndots) {
		m, ok := r.query(ctx, n, qtype)
		if !ok {
			continue
		}
		for _, rr := range m.Answers {
			if rr.Header.Type == qtype {
				return m, true
			}
		}
	}
	return dnsmessage.Message{}, false
}

// query asks resolv.conf's servers once for name and type; ok is false
// when none answered NOERROR.
func (r *hostResolver) query(ctx context.Context, name string, qtype dnsmessage.Type) (dnsmessage.Message, bool) {
	c := &client{timeout: r.rc.timeout, tries: r.rc.attempts, tcp: r.rc.useTCP, recurse: true}
	for _, a := range r.rc.nameservers {
		c.servers = append(c.servers, netip.AddrPortFrom(a.Unmap(), r.port))
	}
	rep, err := c.query(ctx, name, qtype)
	if err != nil || rep.msg.RCode != dnsmessage.RCodeSuccess {
		return dnsmessage.Message{}, false
	}
	return rep.msg, true
}
