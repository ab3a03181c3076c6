package admission

import (
	"context"
	"errors"

	"github.com/orkit/orkit/api/core"
)

// SecurityContextDenyName is the name of the SecurityContextDeny plugin.
const SecurityContextDenyName = "SecurityContextDeny"

// SecurityContextDeny is a Validator that refuses pods (created or
// updated) that choose their own identity: pod-level runAsUser,
// seLinuxOptions, supplementalGroups or fsGroup, or container-level (app
// and init containers) runAsUser or seLinuxOptions, as Kubernetes'
// plugin of that name did, with its messages
// (`pods "web" is forbidden: pod.Spec.SecurityContext.RunAsUser is forbidden`).
// Subresources pass. It holds no state and is safe for concurrent use.
type SecurityContextDeny struct {
	Handler
}

var _ Validator = (*SecurityContextDeny)(nil)

// NewSecurityContextDeny returns the plugin.
func NewSecurityContextDeny() *SecurityContextDeny {
	return &SecurityContextDeny{Handler{PluginName: SecurityContextDenyName, Operations: []Operation{Create, Update}}}
}

// Validate refuses a pod that sets a forbidden security context field.
func (p *SecurityContextDeny) Validate(_ context.Context, a *Attributes) error {
	if a.Subresource != "" || a.Resource.GroupResource() != podsResource || a.Object == nil {
		return nil
	}
	pod, ok := a.Object.(*core.Pod)
	if !ok {
		return wrongType(a, "Pod")
	}
	if msg := deniedSecurityContext(pod); msg != "" {
		return forbidden(a, errors.New(msg))
	}
	return nil
}

// deniedSecurityContext names the first forbidden field pod sets, or "".
func deniedSecurityContext(pod *core.Pod) string {
	if sc := pod.Spec.SecurityContext; sc != nil {
		switch {
		case sc.SupplementalGroups != nil:
			return "pod.Spec.SecurityContext.SupplementalGroups is forbidden"
		case sc.SELinuxOptions != nil:
			return "pod.Spec.SecurityContext.SELinuxOptions is forbidden"
		case sc.RunAsUser != nil:
			return "pod.Spec.SecurityContext.RunAsUser is forbidden"
		case sc.FSGroup != nil:
			return "pod.Spec.SecurityContext.FSGroup is forbidden"
		}
	}
	for _, list := range [][]core.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range list {
			sc := list[i].SecurityContext
			switch {
			case sc == nil:
			case sc.SELinuxOptions != nil:
				return "SecurityContext.SELinuxOptions is forbidden"
			case sc.RunAsUser != nil:
				return "SecurityContext.RunAsUser is forbidden"
			}
		}
	}
	return ""
}
