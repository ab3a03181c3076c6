package discovery

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/validation"
)

// ValidateEndpointSlice checks a new EndpointSlice as Kubernetes does: a
// DNS-subdomain name, a supported address type, at most MaxEndpoints
// endpoints of 1 to MaxAddresses addresses of that type, and at most
// MaxPorts ports with unique DNS-label names.
func ValidateEndpointSlice(s *EndpointSlice) field.ErrorList {
	errs := validation.ValidateObjectMeta(&s.ObjectMeta, true, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	errs = append(errs, validateAddressType(s.AddressType, field.NewPath("addressType"))...)
	errs = append(errs, validateEndpoints(s.Endpoints, s.AddressType, field.NewPath("endpoints"))...)
	return append(errs, validatePorts(s.Ports, field.NewPath("ports"))...)
}

// ValidateEndpointSliceUpdate checks s as a replacement for old: the
// address type may not change.
func ValidateEndpointSliceUpdate(s, old *EndpointSlice) field.ErrorList {
	errs := validation.ValidateObjectMetaUpdate(&s.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	errs = append(errs, validation.ValidateImmutableField(s.AddressType, old.AddressType, field.NewPath("addressType"))...)
	errs = append(errs, validateEndpoints(s.Endpoints, s.AddressType, field.NewPath("endpoints"))...)
	return append(errs, validatePorts(s.Ports, field.NewPath("ports"))...)
}

func validateAddressType(t AddressType, p *field.Path) field.ErrorList {
	switch t {
	case AddressTypeIPv4, AddressTypeIPv6, AddressTypeFQDN:
		return nil
	case "":
		return field.ErrorList{field.Required(p, "")}
	}
	return field.ErrorList{field.NotSupported(p, string(t), []string{string(AddressTypeFQDN), string(AddressTypeIPv4), string(AddressTypeIPv6)})}
}

func validateEndpoints(eps []Endpoint, t AddressType, p *field.Path) field.ErrorList {
	if len(eps) > MaxEndpoints {
		return field.ErrorList{field.TooMany(p, len(eps), MaxEndpoints)}
	}
	var errs field.ErrorList
	for i := range eps {
		ep, ip := &eps[i], p.Index(i)
		ap := ip.Child("addresses")
		switch {
		case len(ep.Addresses) == 0:
			errs = append(errs, field.Required(ap, "must contain at least 1 address"))
		case len(ep.Addresses) > MaxAddresses:
			errs = append(errs, field.TooMany(ap, len(ep.Addresses), MaxAddresses))
		}
		for j, a := range ep.Addresses[:min(len(ep.Addresses), MaxAddresses)] {
			if msg := checkAddress(a, t); msg != "" {
				errs = append(errs, field.Invalid(ap.Index(j), a, msg))
			}
		}
		if ep.Hostname != nil {
			errs = append(errs, invalidAll(ip.Child("hostname"), *ep.Hostname, validation.IsDNS1123Label(*ep.Hostname))...)
		}
		if ep.NodeName != nil {
			errs = append(errs, invalidAll(ip.Child("nodeName"), *ep.NodeName, validation.NameIsDNSSubdomain(*ep.NodeName, false))...)
		}
		if ep.Hints != nil {
			errs = append(errs, validateHints(ep.Hints, ip.Child("hints"))...)
		}
	}
	return errs
}

// checkAddress returns why a is not an address of type t, or "".
func checkAddress(a string, t AddressType) string {
	switch t {
	case AddressTypeIPv4:
		if ip, err := netip.ParseAddr(a); err != nil || !ip.Is4() {
			return "must be a valid IPv4 address"
		}
	case AddressTypeIPv6:
		if ip, err := netip.ParseAddr(a); err != nil || !ip.Is6() || ip.Is4In6() {
			return "must be a valid IPv6 address"
		}
	case AddressTypeFQDN:
		if msgs := validation.IsDNS1123Subdomain(strings.TrimSuffix(a, ".")); len(msgs) > 0 || !strings.Contains(a, ".") {
			return "should be a domain with at least two segments separated by dots"
		}
	}
	return ""
}

func validateHints(h *EndpointHints, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	const maxHints = 8
	if len(h.ForZones) > maxHints {
		errs = append(errs, field.TooMany(p.Child("forZones"), len(h.ForZones), maxHints))
	}
	if len(h.ForNodes) > maxHints {
		errs = append(errs, field.TooMany(p.Child("forNodes"), len(h.ForNodes), maxHints))
	}
	seen := map[string]bool{}
	for i, z := range h.ForZones {
		zp := p.Child("forZones").Index(i).Child("name")
		if seen[z.Name] {
			errs = append(errs, field.Duplicate(zp, z.Name))
		}
		seen[z.Name] = true
		errs = append(errs, invalidAll(zp, z.Name, validation.IsValidLabelValue(z.Name))...)
	}
	return errs
}

func validatePorts(ports []EndpointPort, p *field.Path) field.ErrorList {
	if len(ports) > MaxPorts {
		return field.ErrorList{field.TooMany(p, len(ports), MaxPorts)}
	}
	var errs field.ErrorList
	names := map[string]bool{}
	for i, port := range ports {
		ip := p.Index(i)
		name := ""
		if port.Name != nil {
			name = *port.Name
		}
		if name != "" {
			errs = append(errs, invalidAll(ip.Child("name"), name, validation.IsDNS1123Label(name))...)
		}
		if names[name] {
			errs = append(errs, field.Duplicate(ip.Child("name"), name))
		}
		names[name] = true
		switch {
		case port.Protocol == nil:
			errs = append(errs, field.Required(ip.Child("protocol"), ""))
		case *port.Protocol != core.ProtocolTCP && *port.Protocol != core.ProtocolUDP && *port.Protocol != core.ProtocolSCTP:
			errs = append(errs, field.NotSupported(ip.Child("protocol"), string(*port.Protocol), []string{"SCTP", "TCP", "UDP"}))
		}
		if port.Port != nil {
			errs = append(errs, invalidAll(ip.Child("port"), *port.Port, validation.IsValidPortNum(int(*port.Port)))...)
		}
		if port.AppProtocol != nil {
			errs = append(errs, invalidAll(ip.Child("appProtocol"), *port.AppProtocol, validation.IsQualifiedName(*port.AppProtocol))...)
		}
	}
	return errs
}

func invalidAll(p *field.Path, v any, msgs []string) field.ErrorList {
	var errs field.ErrorList
	for _, m := range msgs {
		errs = append(errs, field.Invalid(p, v, m))
	}
	return errs
}

// SetDefaults fills what Kubernetes defaults: a port's protocol (TCP) and
// name ("").
func SetDefaults(s *EndpointSlice) {
	for i := range s.Ports {
		if s.Ports[i].Protocol == nil {
			tcp := core.ProtocolTCP
			s.Ports[i].Protocol = &tcp
		}
		if s.Ports[i].Name == nil {
			empty := ""
			s.Ports[i].Name = &empty
		}
	}
}

// String is for error messages and logs: "IPv4 slice of 3 endpoints".
func (s *EndpointSlice) String() string {
	return fmt.Sprintf("%s slice %s/%s of %d endpoints", s.AddressType, s.Namespace, s.Name, len(s.Endpoints))
}
