package core

// HostPort is one host port a pod binds on its node: the IP ("0.0.0.0"
// for every address), protocol and port. The scheduler's NodePorts filter
// and the kubelet's admission both decide with it.
type HostPort struct {
	IP       string
	Protocol Protocol
	Port     int32
}

// Conflicts reports whether p and o cannot both be bound on one node: the
// same port and protocol on the same address, or either on every address.
func (p HostPort) Conflicts(o HostPort) bool {
	if p.Port != o.Port || p.Protocol != o.Protocol {
		return false
	}
	return p.IP == o.IP || p.IP == "0.0.0.0" || o.IP == "0.0.0.0"
}

// PodHostPorts returns the host ports pod's containers ask for (init
// containers included), with defaults filled (TCP, 0.0.0.0; "::" is every
// address too).
func PodHostPorts(pod *Pod) []HostPort {
	var out []HostPort
	add := func(cs []Container) {
		for i := range cs {
			for _, p := range cs[i].Ports {
				if p.HostPort <= 0 {
					continue
				}
				hp := HostPort{IP: p.HostIP, Protocol: p.Protocol, Port: p.HostPort}
				if hp.IP == "" || hp.IP == "::" {
					hp.IP = "0.0.0.0"
				}
				if hp.Protocol == "" {
					hp.Protocol = ProtocolTCP
				}
				out = append(out, hp)
			}
		}
	}
	add(pod.Spec.InitContainers)
	add(pod.Spec.Containers)
	return out
}
