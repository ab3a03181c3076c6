package client

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/orkit/orkit/api/meta"
)

// Mapping ties a kind to the resource that serves it.
type Mapping struct {
	Resource     meta.GroupVersionResource
	Kind         meta.GroupVersionKind
	Namespaced   bool
	SingularName string
	ShortNames   []string
	Categories   []string
	Verbs        []string
}

// RESTMapper maps kinds to resources and back, and kubectl-style resource
// names ("deploy", "deployments.apps", "deployments.v1.apps") to
// mappings, from what discovery reports. When a group serves several
// versions, the server's preferred version wins unless one is asked for.
// A name it cannot find makes it invalidate the discovery cache and look
// once more, so resources added since the cache was written are found.
// Safe for concurrent use.
type RESTMapper struct {
	d *Discovery

	mu      sync.Mutex
	entries []Mapping // groups in discovery order (core first), each group's preferred version first
}

func newRESTMapper(d *Discovery) *RESTMapper { return &RESTMapper{d: d} }

// Reset forgets the mappings (not the discovery cache).
func (m *RESTMapper) Reset() {
	m.mu.Lock()
	m.entries = nil
	m.mu.Unlock()
}

// load returns the mappings, building them from discovery if needed.
func (m *RESTMapper) load(ctx context.Context) ([]Mapping, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.entries != nil {
		return m.entries, nil
	}
	groups, err := m.d.ServerGroups(ctx)
	if err != nil {
		return nil, err
	}
	entries := []Mapping{}
	for _, g := range groups {
		for _, v := range orderVersions(g) {
			gv := meta.GroupVersion{Group: g.Name, Version: v}
			list, err := m.d.ServerResources(ctx, gv)
			if err != nil {
				if ctx.Err() != nil {
					return nil, err
				}
				m.d.c.logger.Warn("discovery: skipping group version", "groupVersion", gv.String(), "err", err)
				continue
			}
			for _, r := range list.Resources {
				if strings.Contains(r.Name, "/") {
					continue // subresource
				}
				entries = append(entries, Mapping{
					Resource: gv.WithResource(r.Name), Kind: gv.WithKind(r.Kind), Namespaced: r.Namespaced,
					SingularName: r.SingularName, ShortNames: r.ShortNames, Categories: r.Categories, Verbs: r.Verbs,
				})
			}
		}
	}
	m.entries = entries
	return entries, nil
}

// orderVersions returns g's versions with the preferred one first.
func orderVersions(g APIGroup) []string {
	out := []string{}
	if g.PreferredVersion.Version != "" {
		out = append(out, g.PreferredVersion.Version)
	}
	for _, v := range g.Versions {
		if !slices.Contains(out, v.Version) {
			out = append(out, v.Version)
		}
	}
	return out
}

// find returns the first mapping match accepts, refreshing discovery once
// on a miss.
func (m *RESTMapper) find(ctx context.Context, what string, match func(*Mapping) bool) (Mapping, error) {
	for attempt := 0; attempt < 2; attempt++ {
		if attempt == 1 {
			m.d.Invalidate()
			m.Reset()
		}
		entries, err := m.load(ctx)
		if err != nil {
			return Mapping{}, err
		}
		for i := range entries {
			if match(&entries[i]) {
				return entries[i], nil
			}
		}
	}
	return Mapping{}, fmt.Errorf("%w: %s", ErrNoMatch, what)
}

// ForKind returns the mapping of gvk; an empty Version means the group's
// preferred version that serves the kind.
func (m *RESTMapper) ForKind(ctx context.Context, gvk meta.GroupVersionKind) (Mapping, error) {
	return m.find(ctx, "kind "+gvk.String(), func(e *Mapping) bool {
		return e.Kind.Kind == gvk.Kind && e.Kind.Group == gvk.Group && (gvk.Version == "" || e.Kind.Version == gvk.Version)
	})
}

// ForGroupVersionResource returns the mapping of gvr; an empty Version
// means the group's preferred version that serves the resource.
func (m *RESTMapper) ForGroupVersionResource(ctx context.Context, gvr meta.GroupVersionResource) (Mapping, error) {
	return m.find(ctx, "resource "+gvr.String(), func(e *Mapping) bool {
		return e.Resource.Resource == gvr.Resource && e.Resource.Group == gvr.Group && (gvr.Version == "" || e.Resource.Version == gvr.Version)
	})
}

var versionRE = regexp.MustCompile(`^v[0-9]+((alpha|beta)[0-9]+)?$`)

// ForResource resolves a resource name as kubectl takes it: a plural,
// singular, short name or kind, optionally qualified by group
// ("deployments.apps") or version and group ("deployments.v1.apps"),
// case-insensitively. Without a group the core group wins, then the first
// group in discovery order.
func (m *RESTMapper) ForResource(ctx context.Context, name string) (Mapping, error) {
	name = strings.ToLower(strings.TrimSpace(name))
	if name == "" {
		return Mapping{}, fmt.Errorf("%w: empty resource name", ErrRequest)
	}
	res, qual, _ := strings.Cut(name, ".")
	type try struct{ group, version string }
	tries := []try{{group: qual}}
	if v, g, ok := strings.Cut(qual, "."); ok && versionRE.MatchString(v) {
		tries = append(tries, try{group: g, version: v})
	}
	if versionRE.MatchString(qual) {
		tries = append(tries, try{group: "", version: qual}) // "pods.v1"
	}
	return m.find(ctx, "resource "+name, func(e *Mapping) bool {
		if !namesMatch(e, res) {
			return false
		}
		if qual == "" {
			return true
		}
		for _, t := range tries {
			if e.Resource.Group == t.group && (t.version == "" || e.Resource.Version == t.version) {
				return true
			}
		}
		return false
	})
}

func namesMatch(e *Mapping, name string) bool {
	if e.Resource.Resource == name || e.SingularName == name || strings.ToLower(e.Kind.Kind) == name {
		return true
	}
	return slices.Contains(e.ShortNames, name)
}
