package main

import (
	"bufio"
	"io"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"time"
)

// resolvConf is what the tools take from /etc/resolv.conf.
type resolvConf struct {
	nameservers []netip.Addr
	search      []string
	ndots       int
	timeout     time.Duration // per try
	attempts    int           // tries per server
	useTCP      bool          // options use-vc
}

// readResolvConf reads path; a missing file means the resolver defaults
// (the local server, no search list), as in glibc.
func readResolvConf(path string) resolvConf {
	f, err := os.Open(path)
	if err != nil {
		return parseResolvConf(strings.NewReader(""))
	}
	defer f.Close()
	return parseResolvConf(f)
}

// parseResolvConf parses resolv.conf text as glibc does: nameserver lines
// (addresses only), the last search or domain line, and the options
// ndots, timeout, attempts and use-vc; other lines are ignored.
func parseResolvConf(r io.Reader) resolvConf {
	rc := resolvConf{ndots: 1, timeout: 5 * time.Second, attempts: 2}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || strings.HasPrefix(f[0], "#") || strings.HasPrefix(f[0], ";") {
			continue
		}
		switch f[0] {
		case "nameserver":
			if len(f) > 1 {
				if ip, err := netip.ParseAddr(f[1]); err == nil {
					rc.nameservers = append(rc.nameservers, ip)
				}
			}
		case "search", "domain":
			rc.search = nil
			for _, d := range f[1:] {
				rc.search = append(rc.search, strings.TrimSuffix(d, "."))
			}
		case "options":
			for _, o := range f[1:] {
				rc.option(o)
			}
		}
	}
	if len(rc.nameservers) == 0 {
		rc.nameservers = []netip.Addr{netip.MustParseAddr("127.0.0.1")}
	}
	return rc
}

func (rc *resolvConf) option(o string) {
	k, v, _ := strings.Cut(o, ":")
	n, err := strconv.Atoi(v)
	switch {
	case k == "use-vc":
		rc.useTCP = true
	case err != nil || n < 0:
	case k == "ndots":
		rc.ndots = min(n, 15)
	case k == "timeout" && n > 0:
		rc.timeout = time.Duration(min(n, 30)) * time.Second
	case k == "attempts" && n > 0:
		rc.attempts = min(n, 5)
	}
}

// searchNames returns the names to try for name in order: a name with a
// trailing dot as it is; one with at least ndots dots as it is, then with
// each search domain; any other with each search domain, then as it is.
// The names carry a trailing dot.
func searchNames(name string, search []string, ndots int) []string {
	if strings.HasSuffix(name, ".") {
		return []string{name}
	}
	var out []string
	asIs := strings.Count(name, ".") >= ndots
	if asIs {
		out = append(out, name+".")
	}
	for _, d := range search {
		if d != "" {
			out = append(out, name+"."+d+".")
		}
	}
	if !asIs {
		out = append(out, name+".")
	}
	return out
}

// hostsEntry is one line of a hosts file.
type hostsEntry struct {
	addr    netip.Addr
	name    string
	aliases []string
}

// readHosts reads a hosts file; a missing one has no entries.
func readHosts(path string) []hostsEntry {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	return parseHosts(f)
}

// parseHosts parses hosts text: "ADDRESS NAME [ALIAS...]" lines, # starts
// a comment, lines with a bad address or no name are skipped.
func parseHosts(r io.Reader) []hostsEntry {
	var out []hostsEntry
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		ip, err := netip.ParseAddr(f[0])
		if err != nil {
			continue
		}
		out = append(out, hostsEntry{addr: ip.WithZone(""), name: f[1], aliases: f[2:]})
	}
	return out
}

// matches reports whether the entry names name (its name or an alias,
// ignoring case and a trailing dot).
func (e hostsEntry) matches(name string) bool {
	name = strings.TrimSuffix(name, ".")
	if strings.EqualFold(e.name, name) {
		return true
	}
	for _, a := range e.aliases {
		if strings.EqualFold(a, name) {
			return true
		}
	}
	return false
}
