package dns

import (
	"net/netip"
	"sort"
	"strings"

	"golang.org/x/net/dns/dnsmessage"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/proxy"
)

// SRV is one service record: a port of a Service and the host serving it.
type SRV struct {
	Target string
	Port   uint16
}

// Zone is the answer table of the cluster domain at one moment: names
// (lower case, fully qualified with the trailing dot) to addresses,
// service records and reverse names. Build makes one; it is read-only
// afterwards and safe for concurrent use.
type Zone struct {
	// Domain is the cluster domain with a trailing dot, "cluster.local.".
	Domain string
	// A maps a name to its addresses (IPv4 and IPv6 alike).
	A map[string][]netip.Addr
	// SRV maps a _port._proto name to its service records.
	SRV map[string][]SRV
	// PTR maps a reverse name to the names that point to it.
	PTR map[string][]string
	// CNAME maps the name of an ExternalName Service to its external name
	// (fully qualified, lower case).
	CNAME map[string]string
	// names holds every name that exists, with or without records of its
	// own (e.g. "default.svc.cluster.local."): those answer NOERROR with
	// no records instead of NXDOMAIN.
	names map[string]bool
}

// Build makes the zone of domain (e.g. "cluster.local") from Services and
// their Endpoints:
//
//	<svc>.<ns>.svc.<domain>                A  the cluster IP, or for a headless
//	                                          Service every ready endpoint
//	<host>.<svc>.<ns>.svc.<domain>         A  a ready endpoint with a hostname
//	                                          (StatefulSet pods: web-0.web...)
//	_<port>._<proto>.<svc>.<ns>.svc.<domain> SRV for every named port
//	reverse names of cluster IPs and endpoint hostnames  PTR
//	<svc>.<ns>.svc.<domain>                CNAME the external name of an
//	                                          ExternalName Service
//
// Malformed addresses and external names are left out.
func Build(domain string, services []*core.Service, endpoints []*core.Endpoints) *Zone {
	z := &Zone{Domain: fqdn(domain), A: map[string][]netip.Addr{}, SRV: map[string][]SRV{}, PTR: map[string][]string{}, CNAME: map[string]string{}, names: map[string]bool{}}
	eps := make(map[string]*core.Endpoints, len(endpoints))
	for _, e := range endpoints {
		eps[e.Namespace+"/"+e.Name] = e
	}
	for _, svc := range services {
		if svc.Spec.Type == core.ServiceTypeExternalName {
			z.addExternalName(svc)
			continue
		}
		z.addService(svc, eps[svc.Namespace+"/"+svc.Name])
	}
	for _, m := range []map[string][]netip.Addr{z.A} {
		for k, v := range m {
			m[k] = uniqueAddrs(v)
		}
	}
	return z
}

func (z *Zone) addService(svc *core.Service, ep *core.Endpoints) {
	name := strings.ToLower(svc.Name + "." + svc.Namespace + ".svc." + z.Domain)
	z.addName(name)
	headless := svc.Spec.ClusterIP == core.ClusterIPNone
	if !headless {
		if ip, err := netip.ParseAddr(svc.Spec.ClusterIP); err == nil {
			z.A[name] = append(z.A[name], ip)
			z.PTR[reverse(ip)] = append(z.PTR[reverse(ip)], name)
		}
	}
	targets := map[netip.Addr]string{}
	if headless {
		for _, a := range readyAddresses(ep) {
			ip, err := netip.ParseAddr(a.IP)
			if err != nil {
				continue
			}
			z.A[name] = append(z.A[name], ip)
			targets[ip] = name
			if a.Hostname != "" && validLabel(a.Hostname) {
				target := strings.ToLower(a.Hostname) + "." + name
				targets[ip] = target
				z.addName(target)
				z.A[target] = append(z.A[target], ip)
				z.PTR[reverse(ip)] = appendUnique(z.PTR[reverse(ip)], target)
			}
		}
	}
	for _, sp := range svc.Spec.Ports {
		if sp.Name == "" {
			continue
		}
		srv := "_" + strings.ToLower(sp.Name) + "._" + strings.ToLower(string(protocol(sp.Protocol))) + "." + name
		z.addName(srv)
		if !headless {
			z.SRV[srv] = append(z.SRV[srv], SRV{Target: name, Port: uint16(sp.Port)})
			continue
		}
		for _, e := range proxy.ReadyEndpoints(ep, sp) {
			if t, ok := targets[e.IP]; ok {
				z.SRV[srv] = appendUniqueSRV(z.SRV[srv], SRV{Target: t, Port: uint16(e.Port)})
			}
		}
	}
}

// addExternalName records an ExternalName Service's name as an alias of
// its external name, as CoreDNS does; an external name that is not a
// valid domain name is left out (the name then does not exist).
func (z *Zone) addExternalName(svc *core.Service) {
	target := strings.ToLower(strings.TrimSuffix(svc.Spec.ExternalName, "."))
	if target == "" || len(target) > 253 {
		return
	}
	for _, l := range strings.Split(target, ".") {
		if !validLabel(l) && !(strings.HasPrefix(l, "_") && validLabel(l[1:])) {
			return
		}
	}
	name := strings.ToLower(svc.Name + "." + svc.Namespace + ".svc." + z.Domain)
	z.addName(name)
	z.CNAME[name] = target + "."
}

// addName records name and every parent below the domain as existing.
func (z *Zone) addName(name string) {
	for n := name; len(n) >= len(z.Domain) && strings.HasSuffix(n, z.Domain); {
		z.names[n] = true
		i := strings.IndexByte(n, '.')
		if i < 0 || n == z.Domain {
			break
		}
		n = n[i+1:]
	}
}

func readyAddresses(ep *core.Endpoints) []core.EndpointAddress {
	if ep == nil {
		return nil
	}
	var out []core.EndpointAddress
	seen := map[string]bool{}
	for _, ss := range ep.Subsets {
		for _, a := range ss.Addresses {
			if !seen[a.IP+"/"+a.Hostname] {
				seen[a.IP+"/"+a.Hostname] = true
				out = append(out, a)
			}
		}
	}
	return out
}

// Lookup answers a question: the records, and whether the name exists
// at all (false means NXDOMAIN). inZone is false for names outside the
// cluster domain.
func (z *Zone) Lookup(name string, t dnsmessage.Type) (a []netip.Addr, srv []SRV, ptr []string, exists, inZone bool) {
	name = strings.ToLower(fqdn(name))
	inZone = strings.HasSuffix(name, "."+z.Domain) || name == z.Domain || strings.HasSuffix(name, ".in-addr.arpa.") || strings.HasSuffix(name, ".ip6.arpa.")
	exists = z.names[name] || z.PTR[name] != nil || name == z.Domain
	switch t {
	case dnsmessage.TypeA:
		for _, ip := range z.A[name] {
			if ip.Is4() {
				a = append(a, ip)
			}
		}
	case dnsmessage.TypeAAAA:
		for _, ip := range z.A[name] {
			if ip.Is6() {
				a = append(a, ip)
			}
		}
	case dnsmessage.TypeSRV:
		srv = z.SRV[name]
	case dnsmessage.TypePTR:
		ptr = z.PTR[name]
	}
	return a, srv, ptr, exists, inZone
}

// Owns reports whether the zone answers for name itself: the names of the
// cluster domain, and the reverse names of the addresses it knows. The
// server forwards the others to its upstream resolvers, when it has any.
func (z *Zone) Owns(name string) bool {
	name = strings.ToLower(fqdn(name))
	if name == z.Domain || strings.HasSuffix(name, "."+z.Domain) {
		return true
	}
	return z.PTR[name] != nil
}

func fqdn(s string) string {
	if strings.HasSuffix(s, ".") {
		return s
	}
	return s + "."
}

// reverse returns the in-addr.arpa (or ip6.arpa) name of ip.
func reverse(ip netip.Addr) string {
	if ip.Is4() {
		b := ip.As4()
		return itoa(b[3]) + "." + itoa(b[2]) + "." + itoa(b[1]) + "." + itoa(b[0]) + ".in-addr.arpa."
	}
	const hex = "0123456789abcdef"
	b := ip.As16()
	var sb strings.Builder
	for i := 15; i >= 0; i-- {
		sb.WriteByte(hex[b[i]&0xf])
		sb.WriteByte('.')
		sb.WriteByte(hex[b[i]>>4])
		sb.WriteByte('.')
	}
	return sb.String() + "ip6.arpa."
}

func itoa(b byte) string {
	if b < 10 {
		return string('0' + b)
	}
	if b < 100 {
		return string([]byte{'0' + b/10, '0' + b%10})
	}
	return string([]byte{'0' + b/100, '0' + b/10%10, '0' + b%10})
}

func protocol(p core.Protocol) core.Protocol {
	if p == "" {
		return core.ProtocolTCP
	}
	return p
}

func validLabel(s string) bool {
	if len(s) == 0 || len(s) > 63 {
		return false
	}
	for _, c := range s {
		if !(c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

func uniqueAddrs(v []netip.Addr) []netip.Addr {
	sort.Slice(v, func(i, j int) bool { return v[i].Less(v[j]) })
	out := v[:0]
	for i, ip := range v {
		if i == 0 || ip != v[i-1] {
			out = append(out, ip)
		}
	}
	return out
}

func appendUnique(v []string, s string) []string {
	for _, x := range v {
		if x == s {
			return v
		}
	}
	return append(v, s)
}

func appendUniqueSRV(v []SRV, s SRV) []SRV {
	for _, x := range v {
		if x == s {
			return v
		}
	}
	return append(v, s)
}
