package validation

import (
	"fmt"
	"net"
	"net/netip"
	"strings"
)

// IsValidPortNum checks that p is a usable (non-zero) port number.
func IsValidPortNum(p int) []string {
	if p >= 1 && p <= 65535 {
		return nil
	}
	return []string{InclusiveRangeError(1, 65535)}
}

// IsValidPortName checks that v is an IANA service name as Kubernetes
// allows for named ports: 1 to 15 characters of [-a-z0-9] with at least one
// letter, no leading, trailing or doubled '-'.
func IsValidPortName(v string) []string {
	var errs []string
	if len(v) > 15 {
		errs = append(errs, MaxLenError(15))
	}
	charsetOK, hasLetter := v != "", false
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !isLowerAlnum(c) && c != '-' {
			charsetOK = false
		}
		if c >= 'a' && c <= 'z' {
			hasLetter = true
		}
	}
	if !charsetOK {
		errs = append(errs, "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
	}
	if !hasLetter {
		errs = append(errs, "must contain at least one letter (a-z)")
	}
	if strings.Contains(v, "--") {
		errs = append(errs, "must not contain consecutive hyphens")
	}
	if v != "" && (v[0] == '-' || v[len(v)-1] == '-') {
		errs = append(errs, "must not begin or end with a hyphen")
	}
	return errs
}

// IsValidIP checks that v is an IPv4 or IPv6 address. Like Kubernetes it
// accepts IPv4 octets with leading zeros ("010.0.0.1", read as decimal),
// which the Go standard library rejects.
func IsValidIP(v string) []string {
	if parseIPSloppy(v) == nil {
		return []string{"must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"}
	}
	return nil
}

// IsCIDR checks that v is an IPv4 or IPv6 CIDR ("10.244.0.0/16",
// "2001:db8::/64"), accepting leading zeros in IPv4 octets like IsValidIP.
func IsCIDR(v string) []string {
	if _, _, err := parseCIDRSloppy(v); err != nil {
		return []string{"must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"}
	}
	return nil
}

// IsCanonicalIP checks that v is an IP address as Kubernetes' strict
// IsValidIP wants it for fields newer than its lenient ones (an
// IPAddress's name): no leading zeros, no IPv4-mapped IPv6 address, and
// written in canonical form ("2001:db8::1", not "2001:DB8:0::1").
func IsCanonicalIP(v string) []string {
	ip := parseIPSloppy(v)
	if ip == nil {
		return IsValidIP(v)
	}
	var errs []string
	addr, err := netip.ParseAddr(v)
	if err != nil {
		errs = append(errs, "must not have leading 0s")
	}
	if addr.Is4In6() {
		errs = append(errs, "must not be an IPv4-mapped IPv6 address")
	}
	if len(errs) == 0 && v != ip.String() {
		errs = append(errs, fmt.Sprintf("must be in canonical form (%q)", ip.String()))
	}
	return errs
}

// IsCanonicalCIDR checks that v is a subnet as Kubernetes' strict
// IsValidCIDR wants it (a ServiceCIDR's ranges): no leading zeros, no
// IPv4-mapped IPv6 address, no bits set beyond the prefix length, and
// written in canonical form.
func IsCanonicalCIDR(v string) []string {
	_, ipnet, err := parseCIDRSloppy(v)
	if err != nil {
		return IsCIDR(v)
	}
	prefix, err := netip.ParsePrefix(v)
	switch {
	case err != nil:
		return []string{"must not have leading 0s in IP or prefix length"}
	case prefix.Addr().Is4In6():
		return []string{"must not have an IPv4-mapped IPv6 address"}
	case prefix.Addr() != prefix.Masked().Addr():
		return []string{"must not have bits set beyond the prefix length"}
	case v != ipnet.String():
		return []string{fmt.Sprintf("must be in canonical form (%q)", ipnet.String())}
	}
	return nil
}

// parseIPSloppy parses an IP address, accepting leading zeros in the
// octets of a dotted-quad IPv4 address (alone or at the end of an IPv6
// address), as Go did before 1.17 and Kubernetes still does.
func parseIPSloppy(s string) net.IP {
	return net.ParseIP(stripIPv4LeadingZeros(s))
}

// parseCIDRSloppy is net.ParseCIDR with parseIPSloppy's leniency.
func parseCIDRSloppy(s string) (net.IP, *net.IPNet, error) {
	ip, bits, ok := strings.Cut(s, "/")
	if !ok {
		return net.ParseCIDR(s) // reports the missing '/'
	}
	return net.ParseCIDR(stripIPv4LeadingZeros(ip) + "/" + bits)
}

// stripIPv4LeadingZeros rewrites "010.001.0.1" as "10.1.0.1" (also after
// the last ':' of an IPv6 address). Anything that is not four dotted groups
// of digits is returned unchanged.
func stripIPv4LeadingZeros(s string) string {
	head, quad := "", s
	if i := strings.LastIndexByte(s, ':'); i >= 0 {
		head, quad = s[:i+1], s[i+1:]
	}
	parts := strings.Split(quad, ".")
	if len(parts) != 4 {
		return s
	}
	for i, p := range parts {
		if p == "" || strings.Trim(p, "0123456789") != "" {
			return s
		}
		if t := strings.TrimLeft(p, "0"); t != "" {
			parts[i] = t
		} else {
			parts[i] = "0"
		}
	}
	return head + strings.Join(parts, ".")
}
