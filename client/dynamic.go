package client

import (
	"context"
)

// Dynamic is untyped access to any resource: objects are *Unstructured.
// It has every method of Resource.
type Dynamic = Resource[Unstructured, *Unstructured]

// DynamicFor returns untyped access to the resource of m in namespace ns
// (ignored when the resource is cluster-scoped). When the client's scheme
// knows m's kind, objects are validated client-side as typed ones are.
func DynamicFor(c *Client, m Mapping, ns string) *Dynamic {
	d := &Dynamic{c: c, ns: ns, gvr: m.Resource, gvk: m.Kind, namespaced: m.Namespaced}
	if !m.Namespaced {
		d.ns = ""
	}
	if t, ok := c.scheme.ByKind(m.Kind); ok {
		d.typ = t
	}
	return d
}

// DynamicResource resolves a kubectl-style resource name ("deploy",
// "deployments.apps", "configmaps") through discovery and returns untyped
// access to it in namespace ns. Errors wrap ErrNoMatch when the server
// serves no such resource.
func (c *Client) DynamicResource(ctx context.Context, resource, ns string) (*Dynamic, error) {
	m, err := c.mapper.ForResource(ctx, resource)
	if err != nil {
		return nil, err
	}
	return DynamicFor(c, m, ns), nil
}
