package cni

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Resolver limits, as the kubelet enforces them (glibc reads at most three
// nameservers; the search line is bounded).
const (
	MaxNameservers  = 3
	MaxSearches     = 32
	MaxSearchLength = 2048
	// maxResolvConfSize bounds what ParseResolvConf reads.
	maxResolvConfSize = 64 << 10
)

// DNSConfig is the content of a resolv.conf: nameserver addresses, search
// domains and resolver options ("ndots:5", "edns0"), each in order.
type DNSConfig struct {
	Nameservers []netip.Addr
	Searches    []string
	Options     []string
}

// DNSPolicy is a pod's dnsPolicy.
type DNSPolicy string

// The pod DNS policies of Kubernetes. The empty policy means ClusterFirst.
const (
	DNSClusterFirst            DNSPolicy = "ClusterFirst"
	DNSClusterFirstWithHostNet DNSPolicy = "ClusterFirstWithHostNet"
	DNSDefault                 DNSPolicy = "Default"
	DNSNone                    DNSPolicy = "None"
)

// PodDNSInput is what PodDNS needs to compute a pod's resolv.conf.
type PodDNSInput struct {
	// Policy is the pod's spec.dnsPolicy; "" means ClusterFirst.
	Policy DNSPolicy
	// HostNetwork is the pod's spec.hostNetwork.
	HostNetwork bool
	// Namespace is the pod's namespace (for the first search domain).
	Namespace string
	// ClusterDomain is the cluster's DNS domain ("cluster.local").
	ClusterDomain string
	// ClusterDNS are the cluster DNS service IPs; with none, ClusterFirst
	// falls back to Default, as the kubelet does.
	ClusterDNS []netip.Addr
	// Host is the node's own resolver configuration (see ParseResolvConf).
	Host DNSConfig
	// Pod is the pod's spec.dnsConfig, merged on top of the policy's result.
	Pod DNSConfig
}

// PodDNS returns the resolver configuration Kubernetes gives a pod:
//
//   - ClusterFirst: the cluster DNS servers, the search domains
//     <ns>.svc.<domain>, svc.<domain>, <domain> followed by the host's, and
//     ndots:5. A hostNetwork pod with ClusterFirst gets Default instead.
//   - ClusterFirstWithHostNet: ClusterFirst, also for hostNetwork pods.
//   - Default: the host's configuration.
//   - None: only Pod.
//
// Pod's nameservers and searches are then appended and its options merged
// (an option of the same name replaces the policy's); duplicates are
// dropped. It returns an error wrapping ErrInvalidDNS if the result breaks
// the resolver limits or the policy is unknown.
func PodDNS(in PodDNSInput) (DNSConfig, error) {
	policy := in.Policy
	if policy == "" {
		policy = DNSClusterFirst
	}
	if policy == DNSClusterFirst && in.HostNetwork {
		policy = DNSDefault
	}
	if (policy == DNSClusterFirst || policy == DNSClusterFirstWithHostNet) && len(in.ClusterDNS) == 0 {
		policy = DNSDefault
	}
	var out DNSConfig
	switch policy {
	case DNSClusterFirst, DNSClusterFirstWithHostNet:
		if in.Namespace == "" || in.ClusterDomain == "" {
			return DNSConfig{}, fmt.Errorf("%w: policy %s needs the pod namespace and cluster domain", ErrInvalidDNS, policy)
		}
		out.Nameservers = slices.Clone(in.ClusterDNS)
		out.Searches = append([]string{
			in.Namespace + ".svc." + in.ClusterDomain,
			"svc." + in.ClusterDomain,
			in.ClusterDomain,
		}, in.Host.Searches...)
		out.Options = []string{"ndots:5"}
	case DNSDefault:
		out = DNSConfig{
			Nameservers: slices.Clone(in.Host.Nameservers),
			Searches:    slices.Clone(in.Host.Searches),
			Options:     slices.Clone(in.Host.Options),
		}
	case DNSNone:
	default:
		return DNSConfig{}, fmt.Errorf("%w: unknown DNS policy %q", ErrInvalidDNS, in.Policy)
	}
	out.Nameservers = dedupe(append(out.Nameservers, in.Pod.Nameservers...))
	out.Searches = dedupe(append(out.Searches, in.Pod.Searches...))
	out.Options = mergeOptions(out.Options, in.Pod.Options)
	return out, out.Validate()
}

func dedupe[T comparable](in []T) []T {
	seen := make(map[T]bool, len(in))
	out := in[:0]
	for _, v := range in {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// mergeOptions appends extra to base; an option whose name (the part before
// ':') is already present replaces it in place.
func mergeOptions(base, extra []string) []string {
	out := slices.Clone(base)
	index := make(map[string]int, len(out)+len(extra))
	for i, o := range out {
		name, _, _ := strings.Cut(o, ":")
		if _, dup := index[name]; !dup {
			index[name] = i
		}
	}
	for _, opt := range extra {
		name, _, _ := strings.Cut(opt, ":")
		if i, ok := index[name]; ok {
			out[i] = opt
			continue
		}
		index[name] = len(out)
		out = append(out, opt)
	}
	return out
}

// Validate checks c against the resolver's limits: at most MaxNameservers
// valid addresses, at most MaxSearches domains and MaxSearchLength
// characters of search line, no whitespace or control characters in a
// domain or option. Errors wrap ErrInvalidDNS.
func (c DNSConfig) Validate() error {
	if len(c.Nameservers) > MaxNameservers {
		return fmt.Errorf("%w: %d nameservers, at most %d", ErrInvalidDNS, len(c.Nameservers), MaxNameservers)
	}
	for _, ns := range c.Nameservers {
		if !ns.IsValid() || ns.IsUnspecified() {
			return fmt.Errorf("%w: nameserver %q is not a usable address", ErrInvalidDNS, ns)
		}
	}
	if len(c.Searches) > MaxSearches {
		return fmt.Errorf("%w: %d search domains, at most %d", ErrInvalidDNS, len(c.Searches), MaxSearches)
	}
	if n := len(strings.Join(c.Searches, " ")); n > MaxSearchLength {
		return fmt.Errorf("%w: search line of %d characters, at most %d", ErrInvalidDNS, n, MaxSearchLength)
	}
	for _, s := range c.Searches {
		if !isWord(s) || len(s) > 253 {
			return fmt.Errorf("%w: search domain %q", ErrInvalidDNS, s)
		}
	}
	for _, o := range c.Options {
		if !isWord(o) {
			return fmt.Errorf("%w: option %q", ErrInvalidDNS, o)
		}
	}
	return nil
}

// isWord reports whether s is non-empty printable ASCII without spaces.
func isWord(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

// Format renders c as resolv.conf text. It does not validate; WriteResolvConf does.
func (c DNSConfig) Format() []byte {
	var b bytes.Buffer
	for _, ns := range c.Nameservers {
		fmt.Fprintf(&b, "nameserver %s\n", ns)
	}
	if len(c.Searches) > 0 {
		fmt.Fprintf(&b, "search %s\n", strings.Join(c.Searches, " "))
	}
	if len(c.Options) > 0 {
		fmt.Fprintf(&b, "options %s\n", strings.Join(c.Options, " "))
	}
	return b.Bytes()
}

// WriteResolvConf validates c and writes it as a resolv.conf to path,
// atomically (a temporary file in the same directory, then rename), mode
// 0644. An invalid c leaves path untouched and returns an error wrapping
// ErrInvalidDNS.
func WriteResolvConf(path string, c DNSConfig) error {
	if err := c.Validate(); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".resolv.conf-*")
	if err != nil {
		return fmt.Errorf("write resolv.conf %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if _, err := tmp.Write(c.Format()); err != nil {
		tmp.Close()
		return fmt.Errorf("write resolv.conf %s: %w", path, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("write resolv.conf %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write resolv.conf %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write resolv.conf %s: %w", path, err)
	}
	return nil
}

// ParseResolvConf reads a resolv.conf as the kubelet reads the host's: the
// nameserver lines, the last search (or domain) line and the options lines;
// comments (# or ;) and other keywords are ignored. A nameserver that is not
// an IP address, or input over 64 KiB, is an error wrapping ErrInvalidDNS.
// The result is not checked against the resolver limits (the host's file may
// exceed them); PodDNS checks what it builds.
func ParseResolvConf(r io.Reader) (DNSConfig, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxResolvConfSize+1))
	if err != nil {
		return DNSConfig{}, fmt.Errorf("read resolv.conf: %w", err)
	}
	if len(data) > maxResolvConfSize {
		return DNSConfig{}, fmt.Errorf("%w: resolv.conf larger than %d bytes", ErrInvalidDNS, maxResolvConfSize)
	}
	var c DNSConfig
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), maxResolvConfSize+1)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if i := strings.IndexAny(text, "#;"); i >= 0 {
			text = text[:i]
		}
		fields := strings.Fields(text)
		if len(fields) == 0 {
			continue
		}
		switch fields[0] {
		case "nameserver":
			if len(fields) < 2 {
				return DNSConfig{}, fmt.Errorf("%w: line %d: nameserver without address", ErrInvalidDNS, line)
			}
			ip, err := netip.ParseAddr(fields[1])
			if err != nil {
				return DNSConfig{}, fmt.Errorf("%w: line %d: nameserver %q: %w", ErrInvalidDNS, line, fields[1], err)
			}
			c.Nameservers = append(c.Nameservers, ip)
		case "search", "domain":
			c.Searches = slices.Clone(fields[1:]) // the last one wins, as in glibc
		case "options":
			c.Options = mergeOptions(c.Options, fields[1:])
		}
	}
	if err := sc.Err(); err != nil {
		return DNSConfig{}, fmt.Errorf("%w: %w", ErrInvalidDNS, err)
	}
	return c, nil
}
