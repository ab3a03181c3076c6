package meta

import "strings"

// GroupVersion is an API group and version; the core group is "".
type GroupVersion struct {
	Group   string
	Version string
}

// ParseGroupVersion splits "apps/v1" into its parts; "v1" is the core group.
func ParseGroupVersion(s string) GroupVersion {
	if g, v, ok := strings.Cut(s, "/"); ok {
		return GroupVersion{Group: g, Version: v}
	}
	return GroupVersion{Version: s}
}

// String returns "group/version", or "version" for the core group.
func (gv GroupVersion) String() string {
	if gv.Group == "" {
		return gv.Version
	}
	return gv.Group + "/" + gv.Version
}

// WithKind returns the GroupVersionKind of kind in gv.
func (gv GroupVersion) WithKind(kind string) GroupVersionKind {
	return GroupVersionKind{Group: gv.Group, Version: gv.Version, Kind: kind}
}

// WithResource returns the GroupVersionResource of resource in gv.
func (gv GroupVersion) WithResource(resource string) GroupVersionResource {
	return GroupVersionResource{Group: gv.Group, Version: gv.Version, Resource: resource}
}

// GroupVersionKind names a kind.
type GroupVersionKind struct {
	Group   string
	Version string
	Kind    string
}

// GroupVersion returns the group and version of gvk.
func (gvk GroupVersionKind) GroupVersion() GroupVersion {
	return GroupVersion{Group: gvk.Group, Version: gvk.Version}
}

// String returns "group/version, Kind=kind".
func (gvk GroupVersionKind) String() string {
	return gvk.GroupVersion().String() + ", Kind=" + gvk.Kind
}

// GroupVersionResource names a resource (the plural in REST paths).
type GroupVersionResource struct {
	Group    string
	Version  string
	Resource string
}

// GroupVersion returns the group and version of gvr.
func (gvr GroupVersionResource) GroupVersion() GroupVersion {
	return GroupVersion{Group: gvr.Group, Version: gvr.Version}
}

// GroupResource returns the group and resource of gvr.
func (gvr GroupVersionResource) GroupResource() GroupResource {
	return GroupResource{Group: gvr.Group, Resource: gvr.Resource}
}

// String returns "group/version/resource".
func (gvr GroupVersionResource) String() string {
	return gvr.GroupVersion().String() + "/" + gvr.Resource
}

// GroupResource names a resource without a version ("deployments.apps").
type GroupResource struct {
	Group    string
	Resource string
}

// String returns "resource.group", or "resource" for the core group, as
// Kubernetes prints it in error messages.
func (gr GroupResource) String() string {
	if gr.Group == "" {
		return gr.Resource
	}
	return gr.Resource + "." + gr.Group
}
