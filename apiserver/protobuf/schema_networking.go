package protobuf

// networkingMessages are networking/v1 generated.proto's Ingress,
// IngressClass, NetworkPolicy, ServiceCIDR and IPAddress messages; the JSON names are the Go json tags of
// api/networking.
func networkingMessages() map[string]fields {
	return map[string]fields{
		"networking.Ingress": {1: objectMeta(), 2: msg("spec", "networking.IngressSpec"), 3: msg("status", "networking.IngressStatus")},
		"networking.IngressSpec": {
			1: msg("defaultBackend", "networking.IngressBackend"), 2: msgs("tls", "networking.IngressTLS"),
			3: msgs("rules", "networking.IngressRule"), 4: strp("ingressClassName"),
		},
		"networking.IngressTLS":           {1: strs("hosts"), 2: str("secretName")},
		"networking.IngressRule":          {1: str("host"), 2: inl("networking.IngressRuleValue")},
		"networking.IngressRuleValue":     {1: msg("http", "networking.HTTPIngressRuleValue")},
		"networking.HTTPIngressRuleValue": {1: required(msgs("paths", "networking.HTTPIngressPath"))},
		"networking.HTTPIngressPath": {
			1: str("path"), 2: msg("backend", "networking.IngressBackend"), 3: strp("pathType"),
		},
		"networking.IngressBackend": {
			3: msg("resource", "core.TypedLocalObjectReference"), 4: msg("service", "networking.IngressServiceBackend"),
		},
		"networking.IngressServiceBackend":     {1: str("name"), 2: msg("port", "networking.ServiceBackendPort")},
		"networking.ServiceBackendPort":        {1: str("name"), 2: i32("number")},
		"networking.IngressStatus":             {1: msg("loadBalancer", "networking.IngressLoadBalancerStatus")},
		"networking.IngressLoadBalancerStatus": {1: msgs("ingress", "networking.IngressLoadBalancerIngress")},
		"networking.IngressLoadBalancerIngress": {
			1: str("ip"), 2: str("hostname"), 4: msgs("ports", "networking.IngressPortStatus"),
		},
		"networking.IngressPortStatus": {1: i32p("port"), 2: strp("protocol"), 3: strp("error")},
		"networking.IngressClass":      {1: objectMeta(), 2: msg("spec", "networking.IngressClassSpec")},
		"networking.IngressClassSpec": {
			1: str("controller"), 2: msg("parameters", "networking.IngressClassParametersReference"),
		},
		"networking.IngressClassParametersReference": {
			1: strp("apiGroup"), 2: strp("kind"), 3: strp("name"), 4: strp("scope"), 5: strp("namespace"),
		},
		"networking.NetworkPolicy": {1: objectMeta(), 2: msg("spec", "networking.NetworkPolicySpec")},
		"networking.NetworkPolicySpec": {
			1: labelSelector("podSelector"), 2: msgs("ingress", "networking.NetworkPolicyIngressRule"),
			3: msgs("egress", "networking.NetworkPolicyEgressRule"), 4: strs("policyTypes"),
		},
		"networking.NetworkPolicyIngressRule": {1: msgs("ports", "networking.NetworkPolicyPort"), 2: msgs("from", "networking.NetworkPolicyPeer")},
		"networking.NetworkPolicyEgressRule":  {1: msgs("ports", "networking.NetworkPolicyPort"), 2: msgs("to", "networking.NetworkPolicyPeer")},
		"networking.NetworkPolicyPort":        {1: strp("protocol"), 2: intOrString("port"), 3: i32p("endPort")},
		"networking.NetworkPolicyPeer": {
			1: labelSelector("podSelector"), 2: labelSelector("namespaceSelector"), 3: msg("ipBlock", "networking.IPBlock"),
		},
		"networking.IPBlock": {1: str("cidr"), 2: strs("except")},
		"networking.ServiceCIDR": {
			1: objectMeta(), 2: msg("spec", "networking.ServiceCIDRSpec"), 3: msg("status", "networking.ServiceCIDRStatus"),
		},
		"networking.ServiceCIDRSpec":   {1: strs("cidrs")},
		"networking.ServiceCIDRStatus": {1: msgs("conditions", "meta.Condition")},
		"networking.IPAddress":         {1: objectMeta(), 2: msg("spec", "networking.IPAddressSpec")},
		"networking.IPAddressSpec":     {1: msg("parentRef", "networking.ParentReference")},
		"networking.ParentReference":   {1: str("group"), 2: str("resource"), 3: str("namespace"), 4: str("name")},
	}
}
