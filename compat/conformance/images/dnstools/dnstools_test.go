package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/dns/dnsmessage"
)

func TestParseDig(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		want    func(*digOptions)
		wantErr bool
	}{
		{name: "probe udp", args: strings.Fields("+notcp +noall +answer +search kubernetes.default A"), want: func(o *digOptions) {
			o.search = true
			o.show = digDisplay{answer: true}
			o.lookups = []digLookup{{name: "kubernetes.default", qtype: dnsmessage.TypeA, typeSet: true}}
		}},
		{name: "probe tcp srv", args: strings.Fields("+tcp +noall +answer +search _http._tcp.svc.ns.svc SRV"), want: func(o *digOptions) {
			o.tcp, o.search = true, true
			o.show = digDisplay{answer: true}
			o.lookups = []digLookup{{name: "_http._tcp.svc.ns.svc", qtype: dnsmessage.TypeSRV, typeSet: true}}
		}},
		{name: "short at server and port", args: strings.Fields("+short @10.0.0.5 -p 10053 my.test"), want: func(o *digOptions) {
			o.short, o.server, o.port = true, "10.0.0.5", 10053
			o.show = digDisplay{answer: true}
			o.lookups = []digLookup{{name: "my.test", qtype: dnsmessage.TypeA}}
		}},
		{name: "reverse", args: strings.Fields("+short -x 192.0.2.123"), want: func(o *digOptions) {
			o.short = true
			o.show = digDisplay{answer: true}
			o.lookups = []digLookup{{name: "123.2.0.192.in-addr.arpa.", qtype: dnsmessage.TypePTR, absolute: true}}
		}},
		{name: "type first, lower case, class", args: strings.Fields("aaaa IN example.com"), want: func(o *digOptions) {
			o.lookups = []digLookup{{name: "example.com", qtype: dnsmessage.TypeAAAA, typeSet: true, classSet: true}}
		}},
		{name: "two lookups", args: strings.Fields("a.example CNAME b.example -t TXT"), want: func(o *digOptions) {
			o.lookups = []digLookup{
				{name: "a.example", qtype: dnsmessage.TypeCNAME, typeSet: true},
				{name: "b.example", qtype: dnsmessage.TypeTXT, typeSet: true},
			}
		}},
		{name: "no name asks the root", args: []string{"+short"}, want: func(o *digOptions) {
			o.short = true
			o.show = digDisplay{answer: true}
			o.lookups = []digLookup{{name: ".", qtype: dnsmessage.TypeNS, absolute: true}}
		}},
		{name: "timing and ndots", args: strings.Fields("+time=1 +tries=2 +ndots=3 +domain=example.org. x"), want: func(o *digOptions) {
			o.timeout, o.tries, o.ndots, o.domain = time.Second, 2, 3, []string{"example.org"}
			o.lookups = []digLookup{{name: "x", qtype: dnsmessage.TypeA}}
		}},
		{name: "retry", args: strings.Fields("+retry=0 x"), want: func(o *digOptions) {
			o.tries = 1
			o.lookups = []digLookup{{name: "x", qtype: dnsmessage.TypeA}}
		}},
		{name: "unknown plus option", args: []string{"+frobnicate", "x"}, wantErr: true},
		{name: "bad port", args: []string{"-p", "99999", "x"}, wantErr: true},
		{name: "missing port", args: []string{"x", "-p"}, wantErr: true},
		{name: "bad -x address", args: []string{"-x", "not-an-ip"}, wantErr: true},
		{name: "bad -t type", args: []string{"-t", "BOGUS", "x"}, wantErr: true},
		{name: "class CH", args: []string{"-c", "CH", "x"}, wantErr: true},
		{name: "bad time", args: []string{"+time=soon", "x"}, wantErr: true},
		{name: "unknown dash option", args: []string{"-z", "1", "x"}, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseDig(tc.args)
			if tc.wantErr {
				require.ErrorIs(t, err, errUsage)
				return
			}
			require.NoError(t, err)
			want := defaultDigOptions()
			tc.want(&want)
			assert.Equal(t, want, got)
		})
	}
}

func TestFormat(t *testing.T) {
	for _, tc := range []struct {
		name      string
		rr        dnsmessage.Resource
		wantLine  string
		wantShort string
	}{
		{"short name", rrA("example.com.", "93.184.216.34"), "example.com.\t\t30\tIN\tA\t93.184.216.34", "93.184.216.34"},
		{"long name", rrA("kubernetes.default.svc.cluster.local.", "10.96.0.1"), "kubernetes.default.svc.cluster.local. 30 IN A\t10.96.0.1", "10.96.0.1"},
		{"aaaa", rrAAAA("v6.example.", "2001:db8::29"), "v6.example.\t\t30\tIN\tAAAA\t2001:db8::29", "2001:db8::29"},
		{"cname", rrCNAME("ext.ns.svc.cluster.local.", "foo.example.com."), "ext.ns.svc.cluster.local. 30\tIN\tCNAME\tfoo.example.com.", "foo.example.com."},
		{"ptr", rrPTR("1.0.96.10.in-addr.arpa.", "svc.ns.svc.cluster.local."), "1.0.96.10.in-addr.arpa.\t30\tIN\tPTR\tsvc.ns.svc.cluster.local.", "svc.ns.svc.cluster.local."},
		{"srv", rrSRV("_http._tcp.svc.ns.svc.cluster.local.", 80, "svc.ns.svc.cluster.local."), "_http._tcp.svc.ns.svc.cluster.local. 30 IN SRV\t0 100 80 svc.ns.svc.cluster.local.", "0 100 80 svc.ns.svc.cluster.local."},
		{"txt", dnsmessage.Resource{Header: hdr("t.example.", dnsmessage.TypeTXT), Body: &dnsmessage.TXTResource{TXT: []string{`a "q"`, "b\x01"}}},
			"t.example.\t\t30\tIN\tTXT\t\"a \\\"q\\\"\" \"b\\001\"", "\"a \\\"q\\\"\" \"b\\001\""},
		{"unknown", dnsmessage.Resource{Header: hdr("u.example.", dnsmessage.Type(65280)), Body: &dnsmessage.UnknownResource{Type: 65280, Data: []byte{0xab, 1}}},
			"u.example.\t\t30\tIN\tTYPE65280 \\# 2 AB01", "\\# 2 AB01"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.wantLine, rrLine(tc.rr))
			assert.Equal(t, tc.wantShort, rdata(tc.rr.Body))
		})
	}
	q := dnsmessage.Question{Name: dnsmessage.MustNewName("example.com."), Type: dnsmessage.TypeA, Class: dnsmessage.ClassINET}
	assert.Equal(t, ";example.com.\t\t\tIN\tA", questionLine(q))
}

func TestReverseName(t *testing.T) {
	for in, want := range map[string]string{
		"10.96.0.1":        "1.0.96.10.in-addr.arpa.",
		"::ffff:10.96.0.1": "1.0.96.10.in-addr.arpa.",
		"2001:db8::29":     "9.2.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa.",
	} {
		ip, err := netipParse(in)
		require.NoError(t, err)
		assert.Equal(t, want, reverseName(ip), in)
	}
}

func TestSearchNames(t *testing.T) {
	search := []string{"ns.svc.cluster.local", "svc.cluster.local", "cluster.local"}
	for _, tc := range []struct {
		name  string
		in    string
		ndots int
		want  []string
	}{
		{"fewer dots: search first", "kubernetes.default", 5, []string{
			"kubernetes.default.ns.svc.cluster.local.", "kubernetes.default.svc.cluster.local.",
			"kubernetes.default.cluster.local.", "kubernetes.default."}},
		{"enough dots: as is first", "a.b.c", 2, []string{"a.b.c.", "a.b.c.ns.svc.cluster.local.", "a.b.c.svc.cluster.local.", "a.b.c.cluster.local."}},
		{"absolute", "kubernetes.default.svc.cluster.local.", 5, []string{"kubernetes.default.svc.cluster.local."}},
		{"ndots 0", "x", 0, []string{"x.", "x.ns.svc.cluster.local.", "x.svc.cluster.local.", "x.cluster.local."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, searchNames(tc.in, search, tc.ndots))
		})
	}
	assert.Equal(t, []string{"x."}, searchNames("x", nil, 1))
}

func TestParseResolvConf(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want resolvConf
	}{
		{"kubelet's", "search ns.svc.cluster.local svc.cluster.local cluster.local\nnameserver 10.96.0.10\noptions ndots:5\n",
			resolvConf{nameservers: addrs("10.96.0.10"), search: []string{"ns.svc.cluster.local", "svc.cluster.local", "cluster.local"}, ndots: 5, timeout: 5 * time.Second, attempts: 2}},
		{"empty: local server", "", resolvConf{nameservers: addrs("127.0.0.1"), ndots: 1, timeout: 5 * time.Second, attempts: 2}},
		{"last search wins, domain too, options", "# c\n; c\nsearch a b\ndomain c.\nnameserver bogus\nnameserver ::1\noptions timeout:2 attempts:9 use-vc ndots:99 rotate ndots:x\n",
			resolvConf{nameservers: addrs("::1"), search: []string{"c"}, ndots: 15, timeout: 2 * time.Second, attempts: 5, useTCP: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, parseResolvConf(strings.NewReader(tc.in)))
		})
	}
}

func TestParseHosts(t *testing.T) {
	hosts := parseHosts(strings.NewReader("# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost # comment\nbad\tline\n10.0.0.7\tdns-querier-1.dns-test-service.ns.svc.cluster.local\tdns-querier-1\n10.0.0.8\n"))
	require.Len(t, hosts, 3)
	assert.True(t, hosts[1].matches("IP6-LOCALHOST"))
	assert.True(t, hosts[2].matches("dns-querier-1"))
	assert.True(t, hosts[2].matches("dns-querier-1.dns-test-service.ns.svc.cluster.local."))
	assert.False(t, hosts[2].matches("dns-querier"))
}

// env is a pod's view for the end-to-end tests: a resolv.conf naming the
// fake server, its search list, and a hosts file.
func env(t *testing.T, f *fakeDNS, resolv, hosts string) system {
	t.Helper()
	dir := t.TempDir()
	sys := system{resolvConf: filepath.Join(dir, "resolv.conf"), hosts: filepath.Join(dir, "hosts"), port: 53}
	require.NoError(t, os.WriteFile(sys.resolvConf, []byte(resolv), 0o644))
	require.NoError(t, os.WriteFile(sys.hosts, []byte(hosts), 0o644))
	if f != nil {
		sys.port = f.port
	}
	return sys
}

const podResolv = "search ns.svc.cluster.local svc.cluster.local cluster.local\nnameserver 127.0.0.1\noptions ndots:5 timeout:1 attempts:1\n"

func clusterRecords() map[string][]dnsmessage.Resource {
	return map[string][]dnsmessage.Resource{
		"kubernetes.default.svc.cluster.local.":    {rrA("kubernetes.default.svc.cluster.local.", "10.96.0.1")},
		"_http._tcp.web.ns.svc.cluster.local.":     {rrSRV("_http._tcp.web.ns.svc.cluster.local.", 80, "web.ns.svc.cluster.local.")},
		"1.0.96.10.in-addr.arpa.":                  {rrPTR("1.0.96.10.in-addr.arpa.", "kubernetes.default.svc.cluster.local.")},
		"ext.ns.svc.cluster.local.":                {rrCNAME("ext.ns.svc.cluster.local.", "foo.example.com.")},
		"big.ns.svc.cluster.local.":                {rrA("big.ns.svc.cluster.local.", "10.0.0.9")},
		"v6.ns.svc.cluster.local.":                 {rrAAAA("v6.ns.svc.cluster.local.", "fd00::9"), rrA("v6.ns.svc.cluster.local.", "10.0.0.6")},
		"notexistname.resolv.conf.local.":          {rrA("notexistname.resolv.conf.local.", "1.1.1.1")},
		"web-0.web.ns.svc.cluster.local.":          {rrA("web-0.web.ns.svc.cluster.local.", "10.0.0.3")},
		"empty.ns.svc.cluster.local.":              {},
		"kubernetes.default.svc.cluster.local.ns.": {},
	}
}

func TestDig(t *testing.T) {
	f := newFakeDNS(t, clusterRecords(), map[string]bool{"big.ns.svc.cluster.local.": true})
	sys := env(t, f, podResolv, "")
	for _, tc := range []struct {
		name        string
		args        string
		resolv      string
		wantOut     string
		wantCode    int
		wantQueries []string
	}{
		{name: "search udp", args: "+notcp +noall +answer +search kubernetes.default A",
			wantOut:     "kubernetes.default.svc.cluster.local. 30 IN A\t10.96.0.1\n",
			wantQueries: []string{"udp kubernetes.default.ns.svc.cluster.local. A", "udp kubernetes.default.svc.cluster.local. A"}},
		{name: "search tcp fqdn without dot", args: "+tcp +noall +answer +search kubernetes.default.svc.cluster.local A",
			wantOut: "kubernetes.default.svc.cluster.local. 30 IN A\t10.96.0.1\n",
			wantQueries: []string{"tcp kubernetes.default.svc.cluster.local.ns.svc.cluster.local. A", "tcp kubernetes.default.svc.cluster.local.svc.cluster.local. A",
				"tcp kubernetes.default.svc.cluster.local.cluster.local. A", "tcp kubernetes.default.svc.cluster.local. A"}},
		{name: "srv", args: "+notcp +noall +answer +search _http._tcp.web.ns.svc SRV",
			wantOut: "_http._tcp.web.ns.svc.cluster.local. 30 IN SRV\t0 100 80 web.ns.svc.cluster.local.\n"},
		{name: "ptr absolute", args: "+notcp +noall +answer +search 1.0.96.10.in-addr.arpa. PTR",
			wantOut: "1.0.96.10.in-addr.arpa.\t30\tIN\tPTR\tkubernetes.default.svc.cluster.local.\n", wantQueries: []string{"udp 1.0.96.10.in-addr.arpa. PTR"}},
		{name: "short -x", args: "+short -x 10.96.0.1", wantOut: "kubernetes.default.svc.cluster.local.\n"},
		{name: "short cname", args: "+short ext.ns.svc.cluster.local CNAME", wantOut: "foo.example.com.\n"},
		{name: "short aaaa", args: "+short AAAA v6.ns.svc.cluster.local", wantOut: "fd00::9\n"},
		{name: "nxdomain prints nothing, exit 0", args: "+noall +answer +search nothere A", wantOut: ""},
		{name: "no data prints nothing", args: "+noall +answer empty.ns.svc.cluster.local.", wantOut: ""},
		{name: "without +search the name as is", args: "+short kubernetes.default", wantOut: "",
			wantQueries: []string{"udp kubernetes.default. A"}},
		{name: "search stops at no data", args: "+short +search kubernetes.default.svc.cluster.local +ndots=5 +domain=ns",
			wantOut: "", wantQueries: []string{"udp kubernetes.default.svc.cluster.local.ns. A"}},
		{name: "custom search and ndots from resolv.conf", args: "+short +search notexistname",
			resolv: "nameserver 127.0.0.1\nsearch resolv.conf.local\noptions ndots:2\n", wantOut: "1.1.1.1\n"},
		{name: "truncated udp retried over tcp", args: "+notcp +noall +answer big.ns.svc.cluster.local",
			wantOut: "big.ns.svc.cluster.local. 30\tIN\tA\t10.0.0.9\n", wantQueries: []string{"udp big.ns.svc.cluster.local. A", "tcp big.ns.svc.cluster.local. A"}},
		{name: "truncated kept with +ignore", args: "+ignore +noall +answer big.ns.svc.cluster.local", wantOut: ""},
		{name: "explicit server and port", args: "+short @127.0.0.1 -p PORT kubernetes.default.svc.cluster.local", resolv: "nameserver 192.0.2.1\n",
			wantOut: "10.96.0.1\n"},
		{name: "no server replies", args: "+short +time=1 +tries=1 @127.0.0.1 -p 1 x.", wantOut: ";; connection timed out; no servers could be reached\n", wantCode: 9},
		{name: "full output", args: "+nocmd +nostats kubernetes.default.svc.cluster.local",
			wantOut: ";; Got answer:\n;; ->>HEADER<<- opcode: QUERY, status: NOERROR, id: ID\n;; flags: qr aa rd; QUERY: 1, ANSWER: 1, AUTHORITY: 0, ADDITIONAL: 0\n\n" +
				";; QUESTION SECTION:\n;kubernetes.default.svc.cluster.local. IN A\n\n;; ANSWER SECTION:\nkubernetes.default.svc.cluster.local. 30 IN A\t10.96.0.1\n\n"},
		{name: "usage error", args: "+bogus x", wantCode: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := sys
			if tc.resolv != "" {
				s = env(t, f, tc.resolv, "")
			}
			before := len(f.queries())
			var out, errOut bytes.Buffer
			args := append([]string{"/usr/bin/dig"}, strings.Fields(strings.ReplaceAll(tc.args, "PORT", itoa(f.port)))...)
			code := run(args, &out, &errOut, s)
			assert.Equal(t, tc.wantCode, code, errOut.String())
			got := out.String()
			if i := strings.Index(got, "id: "); i >= 0 {
				j := strings.IndexByte(got[i:], '\n')
				got = got[:i] + "id: ID" + got[i+j:]
			}
			assert.Equal(t, tc.wantOut, got)
			if tc.wantQueries != nil {
				assert.Equal(t, tc.wantQueries, f.queries()[before:])
			}
		})
	}
}

func TestGetent(t *testing.T) {
	f := newFakeDNS(t, clusterRecords(), nil)
	hosts := "# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n10.0.0.7\tdns-querier-1.dns-test-service.ns.svc.cluster.local\tdns-querier-1\n"
	sys := env(t, f, podResolv, hosts)
	for _, tc := range []struct {
		name     string
		args     string
		wantOut  string
		wantCode int
	}{
		{"hosts file short name", "hosts dns-querier-1", "10.0.0.7        dns-querier-1.dns-test-service.ns.svc.cluster.local dns-querier-1\n", 0},
		{"hosts file fqdn", "hosts dns-querier-1.dns-test-service.ns.svc.cluster.local", "10.0.0.7        dns-querier-1.dns-test-service.ns.svc.cluster.local dns-querier-1\n", 0},
		{"ipv6 first", "hosts localhost", "::1             localhost ip6-localhost ip6-loopback\n", 0},
		{"dns through the search list", "hosts kubernetes.default", "10.96.0.1       kubernetes.default.svc.cluster.local\n", 0},
		{"dns aaaa before a", "hosts v6", "fd00::9         v6.ns.svc.cluster.local\n", 0},
		{"dns service pod name", "hosts web-0.web", "10.0.0.3        web-0.web.ns.svc.cluster.local\n", 0},
		{"address from hosts", "hosts 10.0.0.7", "10.0.0.7        dns-querier-1.dns-test-service.ns.svc.cluster.local dns-querier-1\n", 0},
		{"address by ptr", "hosts 10.96.0.1", "10.96.0.1       kubernetes.default.svc.cluster.local\n", 0},
		{"not found", "hosts nothere", "", 2},
		{"stops at the first not found", "hosts nothere localhost", "", 2},
		{"enumerate", "hosts", "127.0.0.1       localhost\n::1             localhost ip6-localhost ip6-loopback\n10.0.0.7        dns-querier-1.dns-test-service.ns.svc.cluster.local dns-querier-1\n", 0},
		{"unknown database", "passwd root", "", 1},
		{"no database", "", "", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(append([]string{"getent"}, strings.Fields(tc.args)...), &out, &errOut, sys)
			assert.Equal(t, tc.wantCode, code, errOut.String())
			assert.Equal(t, tc.wantOut, out.String())
		})
	}
}

func TestRunName(t *testing.T) {
	var out, errOut bytes.Buffer
	assert.Equal(t, 1, run([]string{"/bin/dnstools", "nslookup"}, &out, &errOut, defaultSystem))
	assert.Equal(t, 1, run([]string{"dnstools", "getent"}, &out, &errOut, defaultSystem))
}
