package authz

import "fmt"

// ForbiddenMessage words the message of a 403 Status exactly as
// kube-apiserver does, with ": <reason>" appended when reason is not
// empty:
//
//	pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "default"
//	deployments.apps "web" is forbidden: User "bob" cannot get resource "deployments" in API group "apps" in the namespace "x"
//	nodes "n1" is forbidden: User "bob" cannot get resource "nodes" in API group "" at the cluster scope
//	forbidden: User "bob" cannot get path "/metrics"
func ForbiddenMessage(a Attributes, reason string) string {
	var msg string
	if !a.ResourceRequest {
		msg = fmt.Sprintf("User %q cannot %s path %q", a.userName(), a.Verb, a.Path)
	} else {
		resource := a.Resource
		if a.Subresource != "" {
			resource += "/" + a.Subresource
		}
		if a.Namespace != "" {
			msg = fmt.Sprintf("User %q cannot %s resource %q in API group %q in the namespace %q",
				a.userName(), a.Verb, resource, a.APIGroup, a.Namespace)
		} else {
			msg = fmt.Sprintf("User %q cannot %s resource %q in API group %q at the cluster scope",
				a.userName(), a.Verb, resource, a.APIGroup)
		}
	}
	if reason != "" {
		msg += ": " + reason
	}
	// The prefix is apierrors.NewForbidden's: the group-qualified resource
	// (no subresource) and the name, or plain "forbidden".
	qualified := a.Resource
	if a.APIGroup != "" {
		qualified += "." + a.APIGroup
	}
	switch {
	case !a.ResourceRequest || a.Resource == "":
		return "forbidden: " + msg
	case a.Name == "":
		return fmt.Sprintf("%s is forbidden: %s", qualified, msg)
	default:
		return fmt.Sprintf("%s %q is forbidden: %s", qualified, a.Name, msg)
	}
}
