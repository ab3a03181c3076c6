package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/dns/dnsmessage"
)

// dig's exit codes.
const (
	digOK      = 0
	digUsage   = 1
	digNoReply = 9
	digFailed  = 10
)

var errUsage = errors.New("usage")

// digLookup is one query of a dig command line.
type digLookup struct {
	name     string
	qtype    dnsmessage.Type
	typeSet  bool
	classSet bool
	absolute bool // -x: the reverse name, never searched
}

// digDisplay says which parts of a reply dig prints.
type digDisplay struct {
	cmd, comments, question, answer, authority, additional, stats bool
}

// digOptions is a parsed dig command line.
type digOptions struct {
	server   string // @SERVER, "" for resolv.conf's
	port     uint16 // -p, 0 for the system's (53)
	tcp      bool
	ignoreTC bool
	search   bool
	short    bool
	recurse  bool
	edns     bool
	show     digDisplay
	timeout  time.Duration
	tries    int
	ndots    int      // -1: resolv.conf's
	domain   []string // +domain=, else resolv.conf's search list
	lookups  []digLookup
}

func defaultDigOptions() digOptions {
	return digOptions{
		recurse: true, edns: true, timeout: 5 * time.Second, tries: 3, ndots: -1,
		show: digDisplay{cmd: true, comments: true, question: true, answer: true, authority: true, additional: true, stats: true},
	}
}

// parseDig parses dig's arguments: @server, -p -t -q -c -x and the
// ignored -4 -6 -b, +[no]options (global, wherever they appear), record
// types, the class IN, and names; each further name starts a new lookup.
// No name at all asks for the root's NS records, as dig does.
func parseDig(args []string) (digOptions, error) {
	o := defaultDigOptions()
	cur := -1
	lookup := func() *digLookup {
		if cur < 0 {
			o.lookups = append(o.lookups, digLookup{qtype: dnsmessage.TypeA})
			cur = 0
		}
		return &o.lookups[cur]
	}
	setName := func(name string, absolute bool) {
		if cur < 0 || o.lookups[cur].name != "" {
			o.lookups = append(o.lookups, digLookup{qtype: dnsmessage.TypeA})
			cur = len(o.lookups) - 1
		}
		o.lookups[cur].name, o.lookups[cur].absolute = name, absolute
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		value := func() (string, error) {
			if len(a) > 2 {
				return a[2:], nil
			}
			if i+1 >= len(args) {
				return "", fmt.Errorf("option %s needs a value: %w", a, errUsage)
			}
			i++
			return args[i], nil
		}
		switch {
		case strings.HasPrefix(a, "@") && len(a) > 1:
			o.server = a[1:]
		case strings.HasPrefix(a, "+"):
			if err := o.plusOption(a[1:]); err != nil {
				return o, err
			}
		case a == "-4" || a == "-6" || a == "-m" || a == "-u" || a == "-r":
		case strings.HasPrefix(a, "-") && len(a) > 1:
			v, err := value()
			if err != nil {
				return o, err
			}
			if err := o.dashOption(a[1], v, lookup, setName); err != nil {
				return o, err
			}
		default:
			if t, ok := parseType(a); ok && !lookup().typeSet {
				lookup().qtype, lookup().typeSet = t, true
				continue
			}
			if strings.EqualFold(a, "IN") && !lookup().classSet {
				lookup().classSet = true
				continue
			}
			setName(a, false)
		}
	}
	if len(o.lookups) == 0 || o.lookups[0].name == "" && len(o.lookups) == 1 {
		l := lookup()
		l.name, l.absolute = ".", true
		if !l.typeSet {
			l.qtype = dnsmessage.TypeNS
		}
	}
	return o, nil
}

// dashOption applies -p, -t, -q, -c, -x (and the ignored -b).
func (o *digOptions) dashOption(opt byte, v string, lookup func() *digLookup, setName func(string, bool)) error {
	switch opt {
	case 'p':
		p, err := strconv.ParseUint(v, 10, 16)
		if err != nil {
			return fmt.Errorf("bad port %q: %w", v, errUsage)
		}
		o.port = uint16(p)
	case 't':
		t, ok := parseType(v)
		if !ok {
			return fmt.Errorf("bad type %q: %w", v, errUsage)
		}
		lookup().qtype, lookup().typeSet = t, true
	case 'q':
		setName(v, false)
	case 'c':
		if !strings.EqualFold(v, "IN") {
			return fmt.Errorf("only class IN is supported, not %q: %w", v, errUsage)
		}
		lookup().classSet = true
	case 'x':
		ip, err := netip.ParseAddr(v)
		if err != nil {
			return fmt.Errorf("bad address %q for -x: %w", v, errUsage)
		}
		setName(reverseName(ip), true)
		if l := lookup(); !l.typeSet {
			l.qtype = dnsmessage.TypePTR
		}
	case 'b':
	default:
		return fmt.Errorf("unknown option -%c: %w", opt, errUsage)
	}
	return nil
}

// plusOption applies one +[no]keyword[=value].
func (o *digOptions) plusOption(s string) error {
	key, val, hasVal := strings.Cut(s, "=")
	on := true
	if k, ok := strings.CutPrefix(key, "no"); ok {
		key, on = k, false
	}
	num := func(lo, hi int) (int, error) {
		n, err := strconv.Atoi(val)
		if !hasVal || err != nil || !on {
			return 0, fmt.Errorf("bad value in +%s: %w", s, errUsage)
		}
		return max(lo, min(n, hi)), nil
	}
	var err error
	switch key {
	case "tcp", "vc":
		o.tcp = on
	case "ignore":
		o.ignoreTC = on
	case "search", "defname":
		o.search = on
	case "short":
		o.short = on
		if on {
			o.show = digDisplay{answer: true}
		}
	case "recurse":
		o.recurse = on
	case "edns":
		o.edns = on
	case "all":
		o.show = digDisplay{cmd: on, comments: on, question: on, answer: on, authority: on, additional: on, stats: on}
	case "cmd":
		o.show.cmd = on
	case "comments":
		o.show.comments = on
	case "question":
		o.show.question = on
	case "answer":
		o.show.answer = on
	case "authority":
		o.show.authority = on
	case "additional":
		o.show.additional = on
	case "stats":
		o.show.stats = on
	case "time":
		var n int
		n, err = num(1, 300)
		o.timeout = time.Duration(n) * time.Second
	case "tries":
		o.tries, err = num(1, 100)
	case "retry":
		var n int
		n, err = num(0, 100)
		o.tries = n + 1
	case "ndots":
		o.ndots, err = num(0, 15)
	case "domain":
		o.domain = []string{strings.TrimSuffix(val, ".")}
	case "showsearch", "fail", "besteffort", "ttlid", "class", "qr", "cookie", "ad", "cd", "aaflag", "aaonly", "multiline", "identify", "rrcomments", "crypto", "ttlunits", "expire", "nsid":
	default:
		return fmt.Errorf("invalid option: +%s: %w", s, errUsage)
	}
	return err
}

// digMain runs dig with args; it prints to stdout and returns the exit
// code.
func digMain(args []string, stdout, stderr io.Writer, sys system) int {
	o, err := parseDig(args)
	if err != nil {
		fmt.Fprintf(stderr, "dig: %v\nUsage: dig [@server] [-p port] [-x addr] [-t type] [name] [type] [+[no]opt...]\n", err)
		return digUsage
	}
	rc := readResolvConf(sys.resolvConf)
	c, err := o.client(rc, sys.port)
	if err != nil {
		fmt.Fprintf(stderr, "dig: %v\n", err)
		return digFailed
	}
	if o.show.cmd {
		fmt.Fprintf(stdout, "\n; <<>> DiG 9.18-orkit <<>> %s\n;; global options: +cmd\n", strings.Join(args, " "))
	}
	code := digOK
	for _, l := range o.lookups {
		if c := o.lookup(context.Background(), c, rc, l, stdout); c != digOK {
			code = c
		}
	}
	return code
}

// client is the DNS client for the options: @server or resolv.conf's
// nameservers, all on the options' port.
func (o *digOptions) client(rc resolvConf, port uint16) (*client, error) {
	if o.port != 0 {
		port = o.port
	}
	c := &client{timeout: o.timeout, tries: o.tries, tcp: o.tcp || rc.useTCP, ignoreTC: o.ignoreTC, recurse: o.recurse, edns: o.edns}
	var addrs []netip.Addr
	if o.server != "" {
		ip, err := netip.ParseAddr(o.server)
		if err != nil {
			ips, lerr := net.DefaultResolver.LookupNetIP(context.Background(), "ip", o.server)
			if lerr != nil || len(ips) == 0 {
				return nil, fmt.Errorf("couldn't get address for '%s': not found", o.server)
			}
			ip = ips[0]
		}
		addrs = []netip.Addr{ip}
	} else {
		addrs = rc.nameservers
	}
	for _, a := range addrs {
		c.servers = append(c.servers, netip.AddrPortFrom(a.Unmap(), port))
	}
	return c, nil
}

// lookup runs one lookup: each name the search rules give, in turn, until
// one is not NXDOMAIN; it prints the last reply.
func (o *digOptions) lookup(ctx context.Context, c *client, rc resolvConf, l digLookup, w io.Writer) int {
	names := []string{l.name}
	if !l.absolute {
		names = []string{strings.TrimSuffix(l.name, ".") + "."}
		if o.search {
			search, ndots := rc.search, rc.ndots
			if o.domain != nil {
				search = o.domain
			}
			if o.ndots >= 0 {
				ndots = o.ndots
			}
			names = searchNames(l.name, search, ndots)
		}
	}
	for i, name := range names {
		r, err := c.query(ctx, name, l.qtype)
		if err != nil {
			if errors.Is(err, errNoReply) {
				fmt.Fprintf(w, ";; %v\n", err)
				return digNoReply
			}
			fmt.Fprintf(w, ";; %v\n", err)
			return digFailed
		}
		if r.msg.RCode == dnsmessage.RCodeNameError && i < len(names)-1 {
			continue
		}
		o.print(w, r)
		return digOK
	}
	return digOK
}

// print writes a reply as dig does for the display options: with +short
// only the answers' data, one a line.
func (o *digOptions) print(w io.Writer, r reply) {
	m := r.msg
	if o.short {
		for _, rr := range m.Answers {
			fmt.Fprintln(w, rdata(rr.Body))
		}
		return
	}
	var opt *dnsmessage.Resource
	var additionals []dnsmessage.Resource
	for i, rr := range m.Additionals {
		if rr.Header.Type == dnsmessage.TypeOPT {
			opt = &m.Additionals[i]
			continue
		}
		additionals = append(additionals, rr)
	}
	if o.show.comments {
		fmt.Fprintf(w, ";; Got answer:\n;; ->>HEADER<<- opcode: QUERY, status: %s, id: %d\n", rcodeName(m.RCode), m.ID)
		fmt.Fprintf(w, ";; flags:%s; QUERY: %d, ANSWER: %d, AUTHORITY: %d, ADDITIONAL: %d\n\n",
			flags(m.Header), len(m.Questions), len(m.Answers), len(m.Authorities), len(m.Additionals))
		if opt != nil {
			fmt.Fprintf(w, ";; OPT PSEUDOSECTION:\n; EDNS: version: 0, flags:; udp: %d\n", opt.Header.Class)
		}
	}
	if o.show.question {
		if o.show.comments {
			fmt.Fprintln(w, ";; QUESTION SECTION:")
		}
		for _, q := range m.Questions {
			fmt.Fprintln(w, questionLine(q))
		}
		if o.show.comments {
			fmt.Fprintln(w)
		}
	}
	o.section(w, o.show.answer, "ANSWER", m.Answers)
	o.section(w, o.show.authority, "AUTHORITY", m.Authorities)
	o.section(w, o.show.additional, "ADDITIONAL", additionals)
	if o.show.stats {
		proto := "UDP"
		if r.tcp {
			proto = "TCP"
		}
		fmt.Fprintf(w, ";; Query time: %d msec\n;; SERVER: %s#%d(%s) (%s)\n;; WHEN: %s\n;; MSG SIZE  rcvd: %d\n\n",
			r.rtt.Milliseconds(), r.server.Addr(), r.server.Port(), r.server.Addr(), proto,
			time.Now().Format("Mon Jan 02 15:04:05 MST 2006"), r.size)
	}
}

func (o *digOptions) section(w io.Writer, show bool, title string, rrs []dnsmessage.Resource) {
	if !show || len(rrs) == 0 {
		return
	}
	if o.show.comments {
		fmt.Fprintf(w, ";; %s SECTION:\n", title)
	}
	for _, rr := range rrs {
		fmt.Fprintln(w, rrLine(rr))
	}
	if o.show.comments {
		fmt.Fprintln(w)
	}
}

// rcodeName is the status dig prints.
func rcodeName(c dnsmessage.RCode) string {
	switch c {
	case dnsmessage.RCodeSuccess:
		return "NOERROR"
	case dnsmessage.RCodeFormatError:
		return "FORMERR"
	case dnsmessage.RCodeServerFailure:
		return "SERVFAIL"
	case dnsmessage.RCodeNameError:
		return "NXDOMAIN"
	case dnsmessage.RCodeNotImplemented:
		return "NOTIMP"
	case dnsmessage.RCodeRefused:
		return "REFUSED"
	}
	return "RESERVED" + strconv.Itoa(int(c))
}

// flags is the header's flag list as dig prints it (" qr aa rd ra").
func flags(h dnsmessage.Header) string {
	var s string
	for _, f := range []struct {
		on   bool
		name string
	}{{h.Response, "qr"}, {h.Authoritative, "aa"}, {h.Truncated, "tc"}, {h.RecursionDesired, "rd"}, {h.RecursionAvailable, "ra"}} {
		if f.on {
			s += " " + f.name
		}
	}
	return s
}
