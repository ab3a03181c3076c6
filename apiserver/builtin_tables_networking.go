package apiserver

import (
	"strings"

	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/networking"
)

// ingressTable, ingressClassTable and networkPolicyTable are
// kube-apiserver's printers of Ingresses (class, hosts, load-balancer
// addresses, ports 80 and 443 when it terminates TLS), IngressClasses
// (controller, parameters) and NetworkPolicies (pod selector).
var (
	ingressTable = &TableConvertor{
		Columns: []TableColumn{
			col("Class", "string", "The name of the IngressClass resource that should be used for additional configuration", 0),
			col("Hosts", "string", "Hosts that incoming requests are matched against before the ingress rule", 0),
			col("Address", "string", "Address is a list containing ingress points for the load-balancer", 0),
			col("Ports", "string", "Ports of TLS configurations that open", 0),
		},
		Cells: func(obj meta.Object) []any {
			ing := obj.(*networking.Ingress)
			class := "<none>"
			if ing.Spec.IngressClassName != nil {
				class = *ing.Spec.IngressClassName
			}
			var hosts, addrs []string
			for _, r := range ing.Spec.Rules {
				if r.Host != "" {
					hosts = append(hosts, r.Host)
				}
			}
			hostCell := "*"
			if len(hosts) > 0 {
				hostCell = firstThree(hosts)
			}
			for _, lb := range ing.Status.LoadBalancer.Ingress {
				if lb.IP != "" {
					addrs = append(addrs, lb.IP)
				} else if lb.Hostname != "" {
					addrs = append(addrs, lb.Hostname)
				}
			}
			ports := "80"
			if len(ing.Spec.TLS) > 0 {
				ports = "80, 443"
			}
			return []any{class, hostCell, strings.Join(addrs, ","), ports}
		},
	}
	ingressClassTable = &TableConvertor{
		Columns: []TableColumn{
			col("Controller", "string", "Controller that is responsible for handling this class", 0),
			col("Parameters", "string", "A reference to a resource with additional parameters", 0),
		},
		Cells: func(obj meta.Object) []any {
			c := obj.(*networking.IngressClass)
			params := "<none>"
			if p := c.Spec.Parameters; p != nil {
				params = p.Kind
				if p.APIGroup != nil {
					params += "." + *p.APIGroup
				}
				params += "/" + p.Name
			}
			return []any{c.Spec.Controller, params}
		},
	}
	networkPolicyTable = &TableConvertor{
		Columns: []TableColumn{
			col("Pod-Selector", "string", "Pod selector applied to", 0),
		},
		Cells: func(obj meta.Object) []any {
			np := obj.(*networking.NetworkPolicy)
			return []any{selectorString(&np.Spec.PodSelector)}
		},
	}
)
