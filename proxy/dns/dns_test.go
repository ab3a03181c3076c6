package dns

import (
	"context"
	"io"
	"net"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/dns/dnsmessage"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

func testZone() *Zone {
	web := &core.Service{ObjectMeta: meta.ObjectMeta{Namespace: "default", Name: "web"},
		Spec: core.ServiceSpec{ClusterIP: "10.96.0.20", Ports: []core.ServicePort{{Name: "http", Port: 80}}}}
	sts := &core.Service{ObjectMeta: meta.ObjectMeta{Namespace: "default", Name: "db"},
		Spec: core.ServiceSpec{ClusterIP: core.ClusterIPNone, Ports: []core.ServicePort{{Name: "pg", Port: 5432}}}}
	ext := &core.Service{ObjectMeta: meta.ObjectMeta{Namespace: "default", Name: "ext"},
		Spec: core.ServiceSpec{Type: core.ServiceTypeExternalName, ExternalName: "example.com"}}
	dbEps := &core.Endpoints{ObjectMeta: meta.ObjectMeta{Namespace: "default", Name: "db"}, Subsets: []core.EndpointSubset{{
		Addresses:         []core.EndpointAddress{{IP: "10.244.0.5", Hostname: "db-0"}, {IP: "10.244.0.6", Hostname: "db-1"}, {IP: "bad"}},
		NotReadyAddresses: []core.EndpointAddress{{IP: "10.244.0.7", Hostname: "db-2"}},
		Ports:             []core.EndpointPort{{Name: "pg", Port: 5432}}}}}
	alias := &core.Service{ObjectMeta: meta.ObjectMeta{Namespace: "other", Name: "alias"},
		Spec: core.ServiceSpec{Type: core.ServiceTypeExternalName, ExternalName: "Web.default.svc.cluster.local."}}
	loop := &core.Service{ObjectMeta: meta.ObjectMeta{Namespace: "other", Name: "loop"},
		Spec: core.ServiceSpec{Type: core.ServiceTypeExternalName, ExternalName: "alias.other.svc.cluster.local"}}
	bad := &core.Service{ObjectMeta: meta.ObjectMeta{Namespace: "other", Name: "bad"},
		Spec: core.ServiceSpec{Type: core.ServiceTypeExternalName, ExternalName: "no spaces.example"}}
	return Build("cluster.local", []*core.Service{web, sts, ext, alias, loop, bad}, []*core.Endpoints{dbEps})
}

func query(t testing.TB, name string, typ dnsmessage.Type) []byte {
	t.Helper()
	b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: 7, RecursionDesired: true})
	require.NoError(t, b.StartQuestions())
	require.NoError(t, b.Question(dnsmessage.Question{Name: dnsmessage.MustNewName(name), Type: typ, Class: dnsmessage.ClassINET}))
	out, err := b.Finish()
	require.NoError(t, err)
	return out
}

// parsed is an answer in a comparable form.
type parsed struct {
	rcode   dnsmessage.RCode
	answers []string
}

func parse(t testing.TB, msg []byte) parsed {
	t.Helper()
	var m dnsmessage.Message
	require.NoError(t, m.Unpack(msg))
	p := parsed{rcode: m.RCode}
	for _, a := range m.Answers {
		switch b := a.Body.(type) {
		case *dnsmessage.AResource:
			p.answers = append(p.answers, netip.AddrFrom4(b.A).String())
		case *dnsmessage.SRVResource:
			p.answers = append(p.answers, b.Target.String()+":"+itoa16(b.Port))
		case *dnsmessage.PTRResource:
			p.answers = append(p.answers, b.PTR.String())
		case *dnsmessage.CNAMEResource:
			p.answers = append(p.answers, a.Header.Name.String()+" CNAME "+b.CNAME.String())
		}
	}
	return p
}

func itoa16(p uint16) string { return netip.AddrPortFrom(netip.IPv4Unspecified(), p).String()[8:] }

func TestAnswer(t *testing.T) {
	z := testZone()
	ok := dnsmessage.RCodeSuccess
	nx := dnsmessage.RCodeNameError
	tests := []struct {
		name string
		typ  dnsmessage.Type
		want parsed
	}{
		{"web.default.svc.cluster.local.", dnsmessage.TypeA, parsed{ok, []string{"10.96.0.20"}}},
		{"WEB.Default.svc.cluster.local.", dnsmessage.TypeA, parsed{ok, []string{"10.96.0.20"}}},
		{"web.default.svc.cluster.local.", dnsmessage.TypeAAAA, parsed{ok, nil}},
		{"_http._tcp.web.default.svc.cluster.local.", dnsmessage.TypeSRV, parsed{ok, []string{"web.default.svc.cluster.local.:80"}}},
		{"20.0.96.10.in-addr.arpa.", dnsmessage.TypePTR, parsed{ok, []string{"web.default.svc.cluster.local."}}},
		{"db.default.svc.cluster.local.", dnsmessage.TypeA, parsed{ok, []string{"10.244.0.5", "10.244.0.6"}}},
		{"db-0.db.default.svc.cluster.local.", dnsmessage.TypeA, parsed{ok, []string{"10.244.0.5"}}},
		{"_pg._tcp.db.default.svc.cluster.local.", dnsmessage.TypeSRV, parsed{ok, []string{"db-0.db.default.svc.cluster.local.:5432", "db-1.db.default.svc.cluster.local.:5432"}}},
		{"6.0.244.10.in-addr.arpa.", dnsmessage.TypePTR, parsed{ok, []string{"db-1.db.default.svc.cluster.local."}}},
		{"db-2.db.default.svc.cluster.local.", dnsmessage.TypeA, parsed{nx, nil}},
		{"default.svc.cluster.local.", dnsmessage.TypeA, parsed{ok, nil}},
		{"ext.default.svc.cluster.local.", dnsmessage.TypeCNAME, parsed{ok, []string{"ext.default.svc.cluster.local. CNAME example.com."}}},
		{"ext.default.svc.cluster.local.", dnsmessage.TypeA, parsed{ok, []string{"ext.default.svc.cluster.local. CNAME example.com."}}},
		{"EXT.default.svc.cluster.local.", dnsmessage.TypeAAAA, parsed{ok, []string{"EXT.default.svc.cluster.local. CNAME example.com."}}},
		{"alias.other.svc.cluster.local.", dnsmessage.TypeA, parsed{ok, []string{"alias.other.svc.cluster.local. CNAME web.default.svc.cluster.local.", "10.96.0.20"}}},
		{"alias.other.svc.cluster.local.", dnsmessage.TypeCNAME, parsed{ok, []string{"alias.other.svc.cluster.local. CNAME web.default.svc.cluster.local."}}},
		{"loop.other.svc.cluster.local.", dnsmessage.TypeA, parsed{ok, []string{"loop.other.svc.cluster.local. CNAME alias.other.svc.cluster.local."}}},
		{"bad.other.svc.cluster.local.", dnsmessage.TypeA, parsed{nx, nil}},
		{"nope.default.svc.cluster.local.", dnsmessage.TypeA, parsed{nx, nil}},
		{"example.com.", dnsmessage.TypeA, parsed{nx, nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name+" "+tt.typ.String(), func(t *testing.T) {
			out := Answer(z, query(t, tt.name, tt.typ), 5, maxUDPSize)
			require.NotNil(t, out)
			assert.Equal(t, tt.want, parse(t, out))
		})
	}
}

func TestAnswerMalformed(t *testing.T) {
	z := testZone()
	assert.Nil(t, Answer(z, nil, 5, 0), "no header: no answer")
	assert.Nil(t, Answer(z, []byte{1, 2, 3}, 5, 0))
	hdr := query(t, "web.default.svc.cluster.local.", dnsmessage.TypeA)[:12]
	out := Answer(z, hdr, 5, 0) // a header that promises a question and has none
	require.NotNil(t, out)
	assert.Equal(t, dnsmessage.RCodeFormatError, parse(t, out).rcode)
	resp := query(t, "web.default.svc.cluster.local.", dnsmessage.TypeA)
	resp[2] |= 0x80 // a response is not answered
	assert.Nil(t, Answer(z, resp, 5, 0))
}

func TestAnswerTruncates(t *testing.T) {
	var addrs []core.EndpointAddress
	for i := range 60 {
		addrs = append(addrs, core.EndpointAddress{IP: netip.AddrFrom4([4]byte{10, 244, 1, byte(i + 1)}).String()})
	}
	z := Build("cluster.local", []*core.Service{{ObjectMeta: meta.ObjectMeta{Namespace: "default", Name: "big"},
		Spec: core.ServiceSpec{ClusterIP: core.ClusterIPNone}}},
		[]*core.Endpoints{{ObjectMeta: meta.ObjectMeta{Namespace: "default", Name: "big"}, Subsets: []core.EndpointSubset{{Addresses: addrs}}}})
	q := query(t, "big.default.svc.cluster.local.", dnsmessage.TypeA)
	var m dnsmessage.Message
	require.NoError(t, m.Unpack(Answer(z, q, 5, maxUDPSize)))
	assert.True(t, m.Truncated)
	assert.Empty(t, m.Answers)
	require.NoError(t, m.Unpack(Answer(z, q, 5, 0)))
	assert.Len(t, m.Answers, 60)
}

func TestServerSockets(t *testing.T) {
	s := &Server{cfg: Config{Listen: "127.0.0.1:0", TTL: 5 * time.Second}, ready: make(chan struct{})}
	s.zone.Store(testZone())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	require.NoError(t, s.listen(ctx))
	done := make(chan struct{})
	go func() {
		defer close(done)
		var wg sync.WaitGroup
		s.serveUDP(ctx, &wg)
		wg.Wait()
	}()
	tcpDone := make(chan struct{})
	go func() {
		defer close(tcpDone)
		var wg = new(waitGroup)
		s.serveTCP(ctx, &wg.WaitGroup)
		wg.Wait()
	}()
	r := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, s.udp.LocalAddr().String())
	}}
	ips, err := r.LookupHost(ctx, "db-1.db.default.svc.cluster.local")
	require.NoError(t, err)
	assert.Equal(t, []string{"10.244.0.6"}, ips)
	_, err = r.LookupHost(ctx, "nope.default.svc.cluster.local")
	var de *net.DNSError
	require.ErrorAs(t, err, &de)
	assert.True(t, de.IsNotFound)
	// TCP
	c, err := net.Dial("tcp", s.tcp.Addr().String())
	require.NoError(t, err)
	q := query(t, "web.default.svc.cluster.local.", dnsmessage.TypeA)
	_, err = c.Write(append([]byte{0, byte(len(q))}, q...))
	require.NoError(t, err)
	// a TCP answer is a 2-byte length and the message, which may come in
	// separate reads
	require.NoError(t, c.SetReadDeadline(time.Now().Add(5*time.Second)))
	var size [2]byte
	_, err = io.ReadFull(c, size[:])
	require.NoError(t, err)
	msg := make([]byte, int(size[0])<<8|int(size[1]))
	_, err = io.ReadFull(c, msg)
	require.NoError(t, err)
	assert.Equal(t, []string{"10.96.0.20"}, parse(t, msg).answers)
	c.Close()
	s.udp.Close()
	s.tcp.Close()
	<-done
	<-tcpDone
}

func FuzzAnswer(f *testing.F) {
	f.Add(query(f, "web.default.svc.cluster.local.", dnsmessage.TypeA))
	f.Add(query(f, "_pg._tcp.db.default.svc.cluster.local.", dnsmessage.TypeSRV))
	f.Add([]byte{0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0})
	z := testZone()
	f.Fuzz(func(t *testing.T, msg []byte) {
		for _, size := range []int{0, maxUDPSize} {
			out := Answer(z, msg, 5, size)
			if out == nil {
				continue
			}
			var m dnsmessage.Message
			if err := m.Unpack(out); err != nil {
				t.Fatalf("answer does not parse: %v", err)
			}
			if size > 0 && len(out) > 65535 {
				t.Fatalf("answer too big")
			}
		}
	})
}

type waitGroup struct{ sync.WaitGroup }
