package networking

import (
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheme"
)

// Register adds networking.k8s.io/v1 ingresses (namespaced, short name
// "ing", status subresource), ingressclasses (cluster-scoped),
// networkpolicies (namespaced, short name "netpol"), servicecidrs
// (cluster-scoped, status subresource) and ipaddresses (cluster-scoped,
// short name "ip") to s. It panics if any kind is already registered.
func Register(s *scheme.Scheme) {
	s.MustRegister(scheme.Type{
		Kind:         GroupVersion().WithKind("Ingress"),
		Resource:     "ingresses",
		Namespaced:   true,
		ShortNames:   []string{"ing"},
		Subresources: []string{"status"},
		New:          func() meta.Object { return &Ingress{} },
		NewList:      func() meta.ListObject { return &IngressList{} },
		Validate:     func(o meta.Object) field.ErrorList { return ValidateIngress(o.(*Ingress)) },
		ValidateUpdate: func(o, old meta.Object) field.ErrorList {
			return ValidateIngressUpdate(o.(*Ingress), old.(*Ingress))
		},
	})
	s.MustRegister(scheme.Type{
		Kind:     GroupVersion().WithKind("IngressClass"),
		Resource: "ingressclasses",
		New:      func() meta.Object { return &IngressClass{} },
		NewList:  func() meta.ListObject { return &IngressClassList{} },
		Default:  func(o meta.Object) { DefaultIngressClass(o.(*IngressClass)) },
		Validate: func(o meta.Object) field.ErrorList { return ValidateIngressClass(o.(*IngressClass)) },
		ValidateUpdate: func(o, old meta.Object) field.ErrorList {
			return ValidateIngressClassUpdate(o.(*IngressClass), old.(*IngressClass))
		},
	})
	s.MustRegister(scheme.Type{
		Kind:       GroupVersion().WithKind("NetworkPolicy"),
		Resource:   "networkpolicies",
		Namespaced: true,
		ShortNames: []string{"netpol"},
		New:        func() meta.Object { return &NetworkPolicy{} },
		NewList:    func() meta.ListObject { return &NetworkPolicyList{} },
		Default:    func(o meta.Object) { DefaultNetworkPolicy(o.(*NetworkPolicy)) },
		Validate:   func(o meta.Object) field.ErrorList { return ValidateNetworkPolicy(o.(*NetworkPolicy)) },
		ValidateUpdate: func(o, old meta.Object) field.ErrorList {
			return ValidateNetworkPolicyUpdate(o.(*NetworkPolicy), old.(*NetworkPolicy))
		},
	})
	s.MustRegister(scheme.Type{
		Kind:         GroupVersion().WithKind("ServiceCIDR"),
		Resource:     "servicecidrs",
		Subresources: []string{"status"},
		New:          func() meta.Object { return &ServiceCIDR{} },
		NewList:      func() meta.ListObject { return &ServiceCIDRList{} },
		Validate:     func(o meta.Object) field.ErrorList { return ValidateServiceCIDR(o.(*ServiceCIDR)) },
		ValidateUpdate: func(o, old meta.Object) field.ErrorList {
			return ValidateServiceCIDRUpdate(o.(*ServiceCIDR), old.(*ServiceCIDR))
		},
	})
	s.MustRegister(scheme.Type{
		Kind:       GroupVersion().WithKind("IPAddress"),
		Resource:   "ipaddresses",
		ShortNames: []string{"ip"},
		New:        func() meta.Object { return &IPAddress{} },
		NewList:    func() meta.ListObject { return &IPAddressList{} },
		Validate:   func(o meta.Object) field.ErrorList { return ValidateIPAddress(o.(*IPAddress)) },
		ValidateUpdate: func(o, old meta.Object) field.ErrorList {
			return ValidateIPAddressUpdate(o.(*IPAddress), old.(*IPAddress))
		},
	})
}
