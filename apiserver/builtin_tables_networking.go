package apiserver

import (
	"strings"
	"time"

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

// serviceCIDRTable and ipAddressTable are kube-apiserver's printers of
// ServiceCIDRs (the CIDRs joined with ",", and age) and IPAddresses (the
// parent as "<resource>.<group>/<namespace>/<name>", lowercased, the
// namespace left out when empty). kube-apiserver's IPAddress printer
// declares only the Name and ParentRef columns but sends the age as a
// third cell; so does this one, so a client sees the same table.
var (
	serviceCIDRTable = &TableConvertor{
		Columns: []TableColumn{
			col("CIDRs", "string", "cidrs defines the IP blocks in CIDR notation (e.g. \"192.168.0.0/24\" or \"2001:db8::/64\") from which to assign service cluster IPs. Max of two CIDRs is allowed, one of each IP family. This field is immutable.", 0),
		},
		Cells: func(obj meta.Object) []any {
			return []any{strings.Join(obj.(*networking.ServiceCIDR).Spec.CIDRs, ",")}
		},
	}
	ipAddressTable = &TableConvertor{
		NoDefaults: true,
		Columns: []TableColumn{
			nameColumn,
			col("ParentRef", "string", "parentRef references the resource that an IPAddress is attached to. An IPAddress must reference a parent object.", 0),
		},
		Cells: func(obj meta.Object) []any {
			ip := obj.(*networking.IPAddress)
			return []any{ip.Name, parentRefCell(ip.Spec.ParentRef), HumanAge(ip.CreationTimestamp, time.Now())}
		},
	}
)

// parentRefCell is how kubectl shows an IPAddress's parent: the group
// resource lowercased ("services", "myresources.mygroup"), then the
// namespace when set, then the name; "<none>" without a parent.
func parentRefCell(ref *networking.ParentReference) string {
	if ref == nil {
		return "<none>"
	}
	s := ref.Resource
	if ref.Group != "" {
		s += "." + ref.Group
	}
	s = strings.ToLower(s)
	if ref.Namespace != "" {
		s += "/" + ref.Namespace
	}
	return s + "/" + ref.Name
}
