package apiextensions

import "strings"

// SetDefaults fills the defaults Kubernetes' apiextensions/v1 sets: the
// singular name (lower-case kind), the list kind (kind + "List"), the None
// conversion strategy, port 443 of a webhook service, and the stored
// versions (the storage version) of a CRD that lists none.
func SetDefaults(crd *CustomResourceDefinition) {
	n := &crd.Spec.Names
	if n.Singular == "" {
		n.Singular = strings.ToLower(n.Kind)
	}
	if n.ListKind == "" && n.Kind != "" {
		n.ListKind = n.Kind + "List"
	}
	if crd.Spec.Conversion == nil {
		crd.Spec.Conversion = &CustomResourceConversion{Strategy: NoneConverter}
	}
	if w := crd.Spec.Conversion.Webhook; w != nil && w.ClientConfig != nil && w.ClientConfig.Service != nil && w.ClientConfig.Service.Port == nil {
		port := int32(443)
		w.ClientConfig.Service.Port = &port
	}
	if len(crd.Status.StoredVersions) == 0 {
		if v := crd.StorageVersion(); v != "" {
			crd.Status.StoredVersions = []string{v}
		}
	}
}

// PrepareForCreate resets what a client may not set on create, as
// kube-apiserver's CRD strategy does: the status (stored versions become
// the storage version) and the generation (1).
func PrepareForCreate(crd *CustomResourceDefinition) {
	crd.Status = CustomResourceDefinitionStatus{}
	crd.Generation = 1
	if v := crd.StorageVersion(); v != "" {
		crd.Status.StoredVersions = []string{v}
	}
}

// PrepareForUpdate keeps the old status (a spec update cannot change it),
// bumps the generation when the spec changed, and adds a new storage
// version to the stored versions.
func PrepareForUpdate(crd, old *CustomResourceDefinition, specChanged bool) {
	crd.Status = old.Status
	crd.Status.StoredVersions = append([]string(nil), old.Status.StoredVersions...)
	crd.Generation = old.Generation
	if specChanged {
		crd.Generation++
	}
	if v := crd.StorageVersion(); v != "" && !contains(crd.Status.StoredVersions, v) {
		crd.Status.StoredVersions = append(crd.Status.StoredVersions, v)
	}
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}
