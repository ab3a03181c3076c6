package dns

import (
	"net/netip"
	"strings"

	"golang.org/x/net/dns/dnsmessage"
)

// maxUDPSize is the largest UDP answer sent without EDNS0.
const maxUDPSize = 512

// Answer builds the response to the query msg from zone z. ttl is the TTL
// of every record; maxSize caps the answer (0: no cap, for TCP): a bigger
// one is sent truncated (TC set, no records) so the client retries over
// TCP. A message that does not parse as a query gets FORMERR when its
// header is readable and no answer (nil) otherwise; it never panics.
func Answer(z *Zone, msg []byte, ttl uint32, maxSize int) []byte {
	var p dnsmessage.Parser
	h, err := p.Start(msg)
	if err != nil {
		return nil
	}
	if h.Response {
		return nil
	}
	resp := dnsmessage.Header{ID: h.ID, Response: true, OpCode: h.OpCode, RecursionDesired: h.RecursionDesired}
	q, err := p.Question()
	if err != nil || h.OpCode != 0 {
		resp.RCode = dnsmessage.RCodeFormatError
		if h.OpCode != 0 {
			resp.RCode = dnsmessage.RCodeNotImplemented
		}
		return build(resp, nil, nil, ttl)
	}
	if size := ednsSize(&p); size > maxUDPSize && maxSize > 0 {
		maxSize = size
	}
	a, srv, ptr, exists, inZone := z.Lookup(q.Name.String(), q.Type)
	resp.Authoritative = inZone
	switch {
	case q.Class != dnsmessage.ClassINET && q.Class != dnsmessage.ClassANY:
		resp.RCode = dnsmessage.RCodeRefused
	case !exists:
		resp.RCode = dnsmessage.RCodeNameError
	}
	ans := answers(q, a, srv, ptr, ttl)
	if target, ok := z.CNAME[strings.ToLower(q.Name.String())]; ok {
		ans = aliasAnswers(z, q, target, ttl)
	}
	out := build(resp, &q, ans, ttl)
	if maxSize > 0 && len(out) > maxSize {
		resp.Truncated = true
		out = build(resp, &q, nil, ttl)
	}
	return out
}

// ednsSize returns the UDP size an OPT record advertises, 0 without one.
func ednsSize(p *dnsmessage.Parser) int {
	if err := p.SkipAllQuestions(); err != nil {
		return 0
	}
	if err := p.SkipAllAnswers(); err != nil {
		return 0
	}
	if err := p.SkipAllAuthorities(); err != nil {
		return 0
	}
	for {
		h, err := p.AdditionalHeader()
		if err != nil {
			return 0
		}
		if h.Type == dnsmessage.TypeOPT {
			return int(h.Class)
		}
		if err := p.SkipAdditional(); err != nil {
			return 0
		}
	}
}

type rr struct {
	name dnsmessage.Name
	body dnsmessage.ResourceBody
}

func answers(q dnsmessage.Question, a []netip.Addr, srv []SRV, ptr []string, ttl uint32) []rr {
	var out []rr
	for _, ip := range a {
		if ip.Is4() {
			out = append(out, rr{q.Name, &dnsmessage.AResource{A: ip.As4()}})
		} else {
			out = append(out, rr{q.Name, &dnsmessage.AAAAResource{AAAA: ip.As16()}})
		}
	}
	for _, s := range srv {
		if n, err := dnsmessage.NewName(s.Target); err == nil {
			out = append(out, rr{q.Name, &dnsmessage.SRVResource{Priority: 0, Weight: 100, Port: s.Port, Target: n}})
		}
	}
	for _, t := range ptr {
		if n, err := dnsmessage.NewName(t); err == nil {
			out = append(out, rr{q.Name, &dnsmessage.PTRResource{PTR: n}})
		}
	}
	return out
}

// aliasAnswers answers a question for an alias (an ExternalName
// Service's name): its CNAME record and, for other types than CNAME, the
// target's records when the target is a name of the cluster domain, as
// CoreDNS does. Targets outside it are left to the client to resolve.
func aliasAnswers(z *Zone, q dnsmessage.Question, target string, ttl uint32) []rr {
	tn, err := dnsmessage.NewName(target)
	if err != nil {
		return nil
	}
	out := []rr{{q.Name, &dnsmessage.CNAMEResource{CNAME: tn}}}
	if q.Type == dnsmessage.TypeCNAME || !z.Owns(target) {
		return out
	}
	if _, chained := z.CNAME[target]; chained {
		return out
	}
	a, srv, ptr, _, _ := z.Lookup(target, q.Type)
	return append(out, answers(dnsmessage.Question{Name: tn, Type: q.Type, Class: q.Class}, a, srv, ptr, ttl)...)
}

func build(h dnsmessage.Header, q *dnsmessage.Question, ans []rr, ttl uint32) []byte {
	b := dnsmessage.NewBuilder(make([]byte, 0, 512), h)
	b.EnableCompression()
	if q != nil {
		_ = b.StartQuestions()
		_ = b.Question(*q)
	}
	_ = b.StartAnswers()
	for _, r := range ans {
		rh := dnsmessage.ResourceHeader{Name: r.name, Class: dnsmessage.ClassINET, TTL: ttl}
		switch body := r.body.(type) {
		case *dnsmessage.AResource:
			_ = b.AResource(rh, *body)
		case *dnsmessage.AAAAResource:
			_ = b.AAAAResource(rh, *body)
		case *dnsmessage.SRVResource:
			_ = b.SRVResource(rh, *body)
		case *dnsmessage.PTRResource:
			_ = b.PTRResource(rh, *body)
		case *dnsmessage.CNAMEResource:
			_ = b.CNAMEResource(rh, *body)
		}
	}
	out, err := b.Finish()
	if err != nil {
		return nil
	}
	return out
}
