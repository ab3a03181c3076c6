package main

import (
	"encoding/binary"
	"io"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/dns/dnsmessage"
)

// fakeDNS is a tiny authoritative server on 127.0.0.1 (UDP and TCP on one
// port) for the tests: records by lower-case name; other names NXDOMAIN.
type fakeDNS struct {
	port     uint16
	records  map[string][]dnsmessage.Resource
	truncate map[string]bool // names answered with TC over UDP

	mu  sync.Mutex
	log []string // "udp NAME TYPE" for each query
}

func newFakeDNS(t *testing.T, records map[string][]dnsmessage.Resource, truncate map[string]bool) *fakeDNS {
	t.Helper()
	f := &fakeDNS{records: records, truncate: truncate}
	var pc net.PacketConn
	var ln net.Listener
	for try := 0; ; try++ {
		var err error
		pc, err = net.ListenPacket("udp", "127.0.0.1:0")
		require.NoError(t, err)
		ln, err = net.Listen("tcp", pc.LocalAddr().String())
		if err == nil {
			break
		}
		pc.Close()
		require.Less(t, try, 10, "no port free for both UDP and TCP")
	}
	t.Cleanup(func() { pc.Close(); ln.Close() })
	f.port = uint16(pc.LocalAddr().(*net.UDPAddr).Port)
	go f.serveUDP(pc)
	go f.serveTCP(ln)
	return f
}

func (f *fakeDNS) serveUDP(pc net.PacketConn) {
	buf := make([]byte, 65535)
	for {
		n, addr, err := pc.ReadFrom(buf)
		if err != nil {
			return
		}
		if out := f.answer(buf[:n], false); out != nil {
			_, _ = pc.WriteTo(out, addr)
		}
	}
}

func (f *fakeDNS) serveTCP(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			var l [2]byte
			if _, err := io.ReadFull(c, l[:]); err != nil {
				return
			}
			q := make([]byte, binary.BigEndian.Uint16(l[:]))
			if _, err := io.ReadFull(c, q); err != nil {
				return
			}
			if out := f.answer(q, true); out != nil {
				_, _ = c.Write(append(binary.BigEndian.AppendUint16(nil, uint16(len(out))), out...))
			}
		}()
	}
}

func (f *fakeDNS) answer(q []byte, tcp bool) []byte {
	var m dnsmessage.Message
	if m.Unpack(q) != nil || len(m.Questions) != 1 {
		return nil
	}
	question := m.Questions[0]
	name := strings.ToLower(question.Name.String())
	proto := "udp"
	if tcp {
		proto = "tcp"
	}
	f.mu.Lock()
	f.log = append(f.log, proto+" "+name+" "+typeName(question.Type))
	f.mu.Unlock()
	resp := dnsmessage.Message{
		Header:    dnsmessage.Header{ID: m.ID, Response: true, Authoritative: true, RecursionDesired: m.RecursionDesired},
		Questions: m.Questions,
	}
	rrs, ok := f.records[name]
	switch {
	case !ok:
		resp.RCode = dnsmessage.RCodeNameError
	case f.truncate[name] && !tcp:
		resp.Truncated = true
	default:
		for _, rr := range rrs {
			if rr.Header.Type == question.Type || rr.Header.Type == dnsmessage.TypeCNAME {
				resp.Answers = append(resp.Answers, rr)
			}
		}
	}
	out, _ := resp.Pack()
	return out
}

func (f *fakeDNS) queries() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.log...)
}

func rrA(name, ip string) dnsmessage.Resource {
	return dnsmessage.Resource{Header: hdr(name, dnsmessage.TypeA), Body: &dnsmessage.AResource{A: netip.MustParseAddr(ip).As4()}}
}

func rrAAAA(name, ip string) dnsmessage.Resource {
	return dnsmessage.Resource{Header: hdr(name, dnsmessage.TypeAAAA), Body: &dnsmessage.AAAAResource{AAAA: netip.MustParseAddr(ip).As16()}}
}

func rrCNAME(name, target string) dnsmessage.Resource {
	return dnsmessage.Resource{Header: hdr(name, dnsmessage.TypeCNAME), Body: &dnsmessage.CNAMEResource{CNAME: dnsmessage.MustNewName(target)}}
}

func rrPTR(name, target string) dnsmessage.Resource {
	return dnsmessage.Resource{Header: hdr(name, dnsmessage.TypePTR), Body: &dnsmessage.PTRResource{PTR: dnsmessage.MustNewName(target)}}
}

func rrSRV(name string, port uint16, target string) dnsmessage.Resource {
	return dnsmessage.Resource{Header: hdr(name, dnsmessage.TypeSRV), Body: &dnsmessage.SRVResource{Priority: 0, Weight: 100, Port: port, Target: dnsmessage.MustNewName(target)}}
}

func hdr(name string, t dnsmessage.Type) dnsmessage.ResourceHeader {
	return dnsmessage.ResourceHeader{Name: dnsmessage.MustNewName(name), Type: t, Class: dnsmessage.ClassINET, TTL: 30}
}

func addrs(s ...string) []netip.Addr {
	var out []netip.Addr
	for _, a := range s {
		out = append(out, netip.MustParseAddr(a))
	}
	return out
}

func netipParse(s string) (netip.Addr, error) { return netip.ParseAddr(s) }

func itoa(p uint16) string { return strconv.Itoa(int(p)) }
