package validation

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestIsValidPortNum(t *testing.T) {
	for _, p := range []int{1, 80, 65535} {
		assert.Nil(t, IsValidPortNum(p), p)
	}
	for _, p := range []int{0, -1, 65536, 1 << 40} {
		assert.Equal(t, []string{"must be between 1 and 65535, inclusive"}, IsValidPortNum(p), p)
	}
}

func TestIsValidPortName(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"http", nil}, {"h2c", nil}, {"web-8080", nil}, {"a", nil}, {"abcdefghijklmno", nil},
		{"", []string{"must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)", "must contain at least one letter (a-z)"}},
		{"8080", []string{"must contain at least one letter (a-z)"}},
		{"HTTP", []string{"must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)", "must contain at least one letter (a-z)"}},
		{"a--b", []string{"must not contain consecutive hyphens"}},
		{"-a", []string{"must not begin or end with a hyphen"}},
		{"abcdefghijklmnop", []string{"must be no more than 15 characters"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) { assert.Equal(t, tt.want, IsValidPortName(tt.in)) })
	}
}

func TestIsValidIP(t *testing.T) {
	valid := []string{"10.9.8.7", "0.0.0.0", "255.255.255.255", "2001:db8::ffff", "::", "::1", "::ffff:1.2.3.4",
		"010.001.0.1", "1.2.3.04", "::ffff:01.2.3.4"}
	for _, v := range valid {
		assert.Nil(t, IsValidIP(v), v)
	}
	invalid := []string{"", "1.2.3", "1.2.3.4.5", "256.1.1.1", "1.2.3.0256", "a.b.c.d", "1.2.3.4/32", " 1.2.3.4",
		"2001:db8::g", "fe80::1%eth0", "1..2.3", "example.com"}
	for _, v := range invalid {
		assert.Equal(t, []string{"must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"}, IsValidIP(v), v)
	}
}

func TestIsCIDR(t *testing.T) {
	valid := []string{"10.244.0.0/16", "10.96.0.0/12", "0.0.0.0/0", "1.2.3.4/32", "2001:db8::/64", "::/0", "010.0.0.0/8",
		"10.1.2.3/8"}
	for _, v := range valid {
		assert.Nil(t, IsCIDR(v), v)
	}
	invalid := []string{"", "10.0.0.0", "10.0.0.0/33", "10.0.0.0/-1", "10.0.0/8", "2001:db8::/129", "a/8", "/8", "10.0.0.0/"}
	for _, v := range invalid {
		assert.Equal(t, []string{"must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"}, IsCIDR(v), v)
	}
}

func TestIsCanonicalIP(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"10.9.8.7", nil}, {"255.255.255.255", nil}, {"fe80::42:1dff:fe84:f9e2", nil}, {"::", nil}, {"2001:db8::a", nil},
		{"", []string{"must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"}},
		{"1.2.3.4/32", []string{"must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"}},
		{"fe80::1%eth0", []string{"must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"}},
		{"010.0.0.1", []string{"must not have leading 0s"}},
		{"::ffff:1.2.3.4", []string{"must not be an IPv4-mapped IPv6 address"}},
		{"2001:DB8::A", []string{`must be in canonical form ("2001:db8::a")`}},
		{"2001:db8:0:0:0:0:0:a", []string{`must be in canonical form ("2001:db8::a")`}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) { assert.Equal(t, tt.want, IsCanonicalIP(tt.in)) })
	}
}

func TestIsCanonicalCIDR(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"10.96.0.0/12", nil}, {"0.0.0.0/0", nil}, {"2001:db8::/64", nil}, {"fd00:10:96::/112", nil},
		{"", []string{"must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"}},
		{"10.0.0.1", []string{"must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"}},
		{"10.0.0.0/33", []string{"must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"}},
		{"010.0.0.0/8", []string{"must not have leading 0s in IP or prefix length"}},
		{"::ffff:10.0.0.0/104", []string{"must not have an IPv4-mapped IPv6 address"}},
		{"10.96.0.1/12", []string{"must not have bits set beyond the prefix length"}},
		{"2001:DB8::/64", []string{`must be in canonical form ("2001:db8::/64")`}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) { assert.Equal(t, tt.want, IsCanonicalCIDR(tt.in)) })
	}
}
