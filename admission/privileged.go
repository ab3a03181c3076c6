package admission

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/orkit/orkit/api/core"
)

// PrivilegedName is the name of the Privileged plugin.
const PrivilegedName = "Privileged"

// baselineCapabilities are the capabilities the baseline Pod Security
// Standard lets containers add.
var baselineCapabilities = []core.Capability{
	"AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD",
	"NET_BIND_SERVICE", "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT",
}

// Privileged is a Validator in the manner of Kubernetes' PodSecurity
// plugin at the "baseline" level, for the checks that matter most: it
// refuses new pods that add non-default capabilities, share host
// namespaces, mount hostPath volumes, use host ports or run privileged
// containers, listing every violation as PodSecurity does:
// `pods "web" is forbidden: violates PodSecurity "baseline:latest":
// host namespaces (hostNetwork=true), privileged (container "app" must
// not set securityContext.privileged=true)`.
//
// Pods in the exempt namespaces pass (system components such as network
// plugins need these privileges). Only creates are checked: the fields
// cannot change afterwards. It is safe for concurrent use.
type Privileged struct {
	Handler
	exempt map[string]bool
}

var _ Validator = (*Privileged)(nil)

// NewPrivileged returns the plugin; pods in exemptNamespaces pass.
func NewPrivileged(exemptNamespaces ...string) *Privileged {
	p := &Privileged{Handler: Handler{PluginName: PrivilegedName, Operations: []Operation{Create}}, exempt: map[string]bool{}}
	for _, ns := range exemptNamespaces {
		p.exempt[ns] = true
	}
	return p
}

// Validate refuses a pod that violates the baseline checks.
func (p *Privileged) Validate(_ context.Context, a *Attributes) error {
	if a.Subresource != "" || a.Resource.GroupResource() != podsResource || a.Object == nil || p.exempt[a.Namespace] {
		return nil
	}
	pod, ok := a.Object.(*core.Pod)
	if !ok {
		return wrongType(a, "Pod")
	}
	var violations []string
	for _, check := range []func(*core.Pod) string{checkCapabilities, checkHostNamespaces, checkHostPath, checkHostPorts, checkPrivileged} {
		if v := check(pod); v != "" {
			violations = append(violations, v)
		}
	}
	if len(violations) == 0 {
		return nil
	}
	return forbidden(a, errors.New(`violates PodSecurity "baseline:latest": `+strings.Join(violations, ", ")))
}

// initThenApp returns the init containers, then the app containers.
func initThenApp(pod *core.Pod) []*core.Container {
	out := make([]*core.Container, 0, len(pod.Spec.InitContainers)+len(pod.Spec.Containers))
	for i := range pod.Spec.InitContainers {
		out = append(out, &pod.Spec.InitContainers[i])
	}
	for i := range pod.Spec.Containers {
		out = append(out, &pod.Spec.Containers[i])
	}
	return out
}

// pluralize renders `container "a"` or `containers "a", "b"`.
func pluralize(singular, plural string, names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = fmt.Sprintf("%q", n)
	}
	if len(names) == 1 {
		return singular + " " + quoted[0]
	}
	return plural + " " + strings.Join(quoted, ", ")
}

func checkCapabilities(pod *core.Pod) string {
	var names, caps []string
	for _, c := range initThenApp(pod) {
		if c.SecurityContext == nil || c.SecurityContext.Capabilities == nil {
			continue
		}
		bad := false
		for _, cp := range c.SecurityContext.Capabilities.Add {
			if !slices.Contains(baselineCapabilities, cp) {
				bad = true
				if q := fmt.Sprintf("%q", cp); !slices.Contains(caps, q) {
					caps = append(caps, q)
				}
			}
		}
		if bad {
			names = append(names, c.Name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf("non-default capabilities (%s must not include %s in securityContext.capabilities.add)",
		pluralize("container", "containers", names), strings.Join(caps, ", "))
}

func checkHostNamespaces(pod *core.Pod) string {
	var set []string
	for _, f := range []struct {
		on   bool
		name string
	}{{pod.Spec.HostNetwork, "hostNetwork"}, {pod.Spec.HostPID, "hostPID"}, {pod.Spec.HostIPC, "hostIPC"}} {
		if f.on {
			set = append(set, f.name+"=true")
		}
	}
	if len(set) == 0 {
		return ""
	}
	return "host namespaces (" + strings.Join(set, ", ") + ")"
}

func checkHostPath(pod *core.Pod) string {
	var names []string
	for _, v := range pod.Spec.Volumes {
		if v.HostPath != nil {
			names = append(names, v.Name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return "hostPath volumes (" + pluralize("volume", "volumes", names) + ")"
}

func checkHostPorts(pod *core.Pod) string {
	var names, ports []string
	for _, c := range initThenApp(pod) {
		bad := false
		for _, p := range c.Ports {
			if p.HostPort != 0 {
				bad = true
				if s := fmt.Sprint(p.HostPort); !slices.Contains(ports, s) {
					ports = append(ports, s)
				}
			}
		}
		if bad {
			names = append(names, c.Name)
		}
	}
	switch {
	case len(names) == 0:
		return ""
	case len(names) == 1 && len(ports) == 1:
		return fmt.Sprintf("hostPort (container %q uses hostPort %s)", names[0], ports[0])
	}
	verb := "use"
	if len(names) == 1 {
		verb = "uses"
	}
	return fmt.Sprintf("hostPort (%s %s hostPorts %s)", pluralize("container", "containers", names), verb, strings.Join(ports, ", "))
}

func checkPrivileged(pod *core.Pod) string {
	var names []string
	for _, c := range initThenApp(pod) {
		if sc := c.SecurityContext; sc != nil && sc.Privileged != nil && *sc.Privileged {
			names = append(names, c.Name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return "privileged (" + pluralize("container", "containers", names) + " must not set securityContext.privileged=true)"
}
