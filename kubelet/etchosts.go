package kubelet

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/cri"
)

// etcHostsPath is where containers see the kubelet-managed hosts file.
const etcHostsPath = "/etc/hosts"

// nodeHostsFile is the node's hosts file, copied for host-network pods.
var nodeHostsFile = "/etc/hosts"

// etcHostsFile is the pod's managed hosts file on the node.
func (k *Kubelet) etcHostsFile(pod *core.Pod) string {
	return filepath.Join(k.podDir(string(pod.UID)), "etc-hosts")
}

// writeEtcHosts writes the pod's managed hosts file, as the kubelet does:
// localhost entries, the pod's IPs with its hostname (and FQDN when it
// has a subdomain), then the hostAliases; a host-network pod gets the
// node's hosts file with its hostAliases. The file is rewritten in place
// (containers bind-mount it) and only when its content changes; before the
// pod's IPs are known it has no entry for them.
func (k *Kubelet) writeEtcHosts(pod *core.Pod, ps *podState) error {
	var content []byte
	if pod.Spec.HostNetwork {
		node, err := os.ReadFile(nodeHostsFile)
		if err != nil {
			return fmt.Errorf("read node hosts file: %w", err)
		}
		content = hostNetworkHostsFile(node, pod.Spec.HostAliases)
	} else {
		var ips []string
		if ps.networkReady {
			ips = ps.podIPs
		}
		hostname, domain := podHostnameAndDomain(pod, k.cfg.ClusterDomain)
		content = managedHostsFile(ips, hostname, domain, pod.Spec.HostAliases)
	}
	if ps.etcHosts != nil && bytes.Equal(ps.etcHosts, content) {
		return nil
	}
	if err := os.WriteFile(k.etcHostsFile(pod), content, 0o644); err != nil {
		return fmt.Errorf("write hosts file: %w", err)
	}
	ps.etcHosts = content
	return nil
}

// podHostnameAndDomain is the pod's hostname (spec.hostname or its name,
// at most 63 characters) and, with a subdomain, its domain
// <subdomain>.<namespace>.svc.<clusterDomain>.
func podHostnameAndDomain(pod *core.Pod, clusterDomain string) (string, string) {
	hostname := pod.Spec.Hostname
	if hostname == "" {
		hostname = pod.Name
	}
	if len(hostname) > 63 {
		hostname = strings.TrimRight(hostname[:63], "-.")
	}
	if pod.Spec.Subdomain == "" {
		return hostname, ""
	}
	return hostname, fmt.Sprintf("%s.%s.svc.%s", pod.Spec.Subdomain, pod.Namespace, clusterDomain)
}

// managedHostsFile renders the hosts file of a pod on the pod network.
func managedHostsFile(ips []string, hostname, domain string, aliases []core.HostAlias) []byte {
	var b bytes.Buffer
	b.WriteString("# Kubernetes-managed hosts file.\n")
	b.WriteString("127.0.0.1\tlocalhost\n")
	b.WriteString("::1\tlocalhost ip6-localhost ip6-loopback\n")
	b.WriteString("fe00::0\tip6-localnet\n")
	b.WriteString("fe00::0\tip6-mcastprefix\n")
	b.WriteString("fe00::1\tip6-allnodes\n")
	b.WriteString("fe00::2\tip6-allrouters\n")
	for _, ip := range ips {
		if domain != "" {
			fmt.Fprintf(&b, "%s\t%s.%s\t%s\n", ip, hostname, domain, hostname)
		} else {
			fmt.Fprintf(&b, "%s\t%s\n", ip, hostname)
		}
	}
	writeHostAliases(&b, aliases)
	return b.Bytes()
}

// hostNetworkHostsFile renders the hosts file of a host-network pod: the
// node's, then the hostAliases.
func hostNetworkHostsFile(node []byte, aliases []core.HostAlias) []byte {
	var b bytes.Buffer
	b.WriteString("# Kubernetes-managed hosts file (host network).\n")
	b.Write(node)
	writeHostAliases(&b, aliases)
	return b.Bytes()
}

func writeHostAliases(b *bytes.Buffer, aliases []core.HostAlias) {
	if len(aliases) == 0 {
		return
	}
	b.WriteString("\n# Entries added by HostAliases.\n")
	for _, a := range aliases {
		fmt.Fprintf(b, "%s\t%s\n", a.IP, strings.Join(a.Hostnames, "\t"))
	}
}

// mountsHostPath reports whether one of ms mounts the node's path p.
func mountsHostPath(ms []cri.Mount, p string) bool {
	for _, m := range ms {
		if m.HostPath == p {
			return true
		}
	}
	return false
}
