package dns_test

import (
	"fmt"

	"golang.org/x/net/dns/dnsmessage"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/proxy/dns"
)

// ExampleAnswer builds a zone with a StatefulSet-style headless Service and
// answers a query for a pod's stable name.
func ExampleAnswer() {
	svc := &core.Service{ObjectMeta: meta.ObjectMeta{Namespace: "default", Name: "web"}, Spec: core.ServiceSpec{ClusterIP: core.ClusterIPNone}}
	eps := &core.Endpoints{ObjectMeta: meta.ObjectMeta{Namespace: "default", Name: "web"},
		Subsets: []core.EndpointSubset{{Addresses: []core.EndpointAddress{{IP: "10.244.0.5", Hostname: "web-0"}}}}}
	zone := dns.Build("cluster.local", []*core.Service{svc}, []*core.Endpoints{eps})

	b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: 1})
	_ = b.StartQuestions()
	_ = b.Question(dnsmessage.Question{Name: dnsmessage.MustNewName("web-0.web.default.svc.cluster.local."),
		Type: dnsmessage.TypeA, Class: dnsmessage.ClassINET})
	query, _ := b.Finish()

	var m dnsmessage.Message
	_ = m.Unpack(dns.Answer(zone, query, 5, 512))
	fmt.Println(m.RCode, m.Answers[0].Body)
	// Output: RCodeSuccess &{[10 244 0 5]}
}
