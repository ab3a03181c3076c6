package main

import (
	"encoding/hex"
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"golang.org/x/net/dns/dnsmessage"
)

// typeNames are the record types dig takes and prints by name.
var typeNames = map[dnsmessage.Type]string{
	dnsmessage.TypeA: "A", dnsmessage.TypeNS: "NS", dnsmessage.TypeCNAME: "CNAME",
	dnsmessage.TypeSOA: "SOA", dnsmessage.TypePTR: "PTR", dnsmessage.TypeMX: "MX",
	dnsmessage.TypeTXT: "TXT", dnsmessage.TypeAAAA: "AAAA", dnsmessage.TypeSRV: "SRV",
	dnsmessage.TypeOPT: "OPT", dnsmessage.TypeALL: "ANY",
}

// typeName is a type's mnemonic, TYPEn for others (RFC 3597).
func typeName(t dnsmessage.Type) string {
	if s, ok := typeNames[t]; ok {
		return s
	}
	return "TYPE" + strconv.Itoa(int(t))
}

// parseType reads a type mnemonic (any case) or TYPEn.
func parseType(s string) (dnsmessage.Type, bool) {
	u := strings.ToUpper(s)
	for t, n := range typeNames {
		if n == u && t != dnsmessage.TypeOPT {
			return t, true
		}
	}
	if n, ok := strings.CutPrefix(u, "TYPE"); ok {
		if v, err := strconv.ParseUint(n, 10, 16); err == nil {
			return dnsmessage.Type(v), true
		}
	}
	return 0, false
}

// className is a class's mnemonic, CLASSn for others.
func className(c dnsmessage.Class) string {
	switch c {
	case dnsmessage.ClassINET:
		return "IN"
	case dnsmessage.ClassCHAOS:
		return "CH"
	case dnsmessage.ClassHESIOD:
		return "HS"
	case dnsmessage.ClassANY:
		return "ANY"
	}
	return "CLASS" + strconv.Itoa(int(c))
}

// rdata is a record's data in zone-file form, as dig prints it (and as
// +short prints it alone).
func rdata(body dnsmessage.ResourceBody) string {
	switch r := body.(type) {
	case *dnsmessage.AResource:
		return netip.AddrFrom4(r.A).String()
	case *dnsmessage.AAAAResource:
		return netip.AddrFrom16(r.AAAA).String()
	case *dnsmessage.CNAMEResource:
		return r.CNAME.String()
	case *dnsmessage.NSResource:
		return r.NS.String()
	case *dnsmessage.PTRResource:
		return r.PTR.String()
	case *dnsmessage.MXResource:
		return fmt.Sprintf("%d %s", r.Pref, r.MX.String())
	case *dnsmessage.SRVResource:
		return fmt.Sprintf("%d %d %d %s", r.Priority, r.Weight, r.Port, r.Target.String())
	case *dnsmessage.SOAResource:
		return fmt.Sprintf("%s %s %d %d %d %d %d", r.NS.String(), r.MBox.String(), r.Serial, r.Refresh, r.Retry, r.Expire, r.MinTTL)
	case *dnsmessage.TXTResource:
		q := make([]string, len(r.TXT))
		for i, s := range r.TXT {
			q[i] = quoteTXT(s)
		}
		return strings.Join(q, " ")
	case *dnsmessage.UnknownResource:
		if len(r.Data) == 0 {
			return `\# 0`
		}
		return fmt.Sprintf(`\# %d %s`, len(r.Data), strings.ToUpper(hex.EncodeToString(r.Data)))
	}
	return ""
}

// quoteTXT quotes a character-string as BIND does: " and \ escaped,
// bytes outside printable ASCII as \DDD.
func quoteTXT(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c > 0x7e:
			fmt.Fprintf(&b, "\\%03d", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// columns lays fields out on BIND's tab stops: a field that ends before
// the next stop is followed by tabs to it, a longer one by one space.
type columns struct {
	b   strings.Builder
	col int
}

func (c *columns) field(s string, stop int) {
	c.b.WriteString(s)
	c.col += len(s)
	if stop == 0 {
		return
	}
	if c.col >= stop {
		c.b.WriteByte(' ')
		c.col++
		return
	}
	for c.col < stop {
		c.b.WriteByte('\t')
		c.col = (c.col/8 + 1) * 8
	}
}

// rrLine is one record as dig prints it: "NAME TTL CLASS TYPE DATA" with
// the name, TTL, class and type columns at 24, 32, 40 and 48.
func rrLine(r dnsmessage.Resource) string {
	var c columns
	c.field(r.Header.Name.String(), 24)
	c.field(strconv.FormatUint(uint64(r.Header.TTL), 10), 32)
	c.field(className(r.Header.Class), 40)
	c.field(typeName(r.Header.Type), 48)
	c.field(rdata(r.Body), 0)
	return c.b.String()
}

// questionLine is the question as dig prints it: ";NAME CLASS TYPE".
func questionLine(q dnsmessage.Question) string {
	var c columns
	c.field(";"+q.Name.String(), 32)
	c.field(className(q.Class), 40)
	c.field(typeName(q.Type), 0)
	return c.b.String()
}

// reverseName is the in-addr.arpa or ip6.arpa name of addr.
func reverseName(addr netip.Addr) string {
	if addr.Is4() || addr.Is4In6() {
		a := addr.Unmap().As4()
		return fmt.Sprintf("%d.%d.%d.%d.in-addr.arpa.", a[3], a[2], a[1], a[0])
	}
	a := addr.As16()
	const hexDigits = "0123456789abcdef"
	var b strings.Builder
	for i := len(a) - 1; i >= 0; i-- {
		b.WriteByte(hexDigits[a[i]&0xf])
		b.WriteByte('.')
		b.WriteByte(hexDigits[a[i]>>4])
		b.WriteByte('.')
	}
	b.WriteString("ip6.arpa.")
	return b.String()
}
