package storage

import (
	"fmt"
	"strings"

	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/validation"
)

// CSINode holds what the CSI drivers installed on a node report about it:
// one entry per driver, with the driver's name for the node and the
// topology keys it supports. It is cluster-scoped and named after its
// Node; in Kubernetes the kubelet creates it when a driver registers.
// orkit serves the kind (clients and the conformance suite read it) and
// runs no CSI drivers.
type CSINode struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	// Spec lists the node's CSI drivers.
	Spec CSINodeSpec `json:"spec"`
}

// CSINodeSpec lists the CSI drivers of a node.
type CSINodeSpec struct {
	// Drivers are the node's CSI drivers, by name (unique).
	Drivers []CSINodeDriver `json:"drivers"`
}

// CSINodeDriver is one CSI driver on a node.
type CSINodeDriver struct {
	// Name is the driver's name, as in its CSIDriver object (a DNS
	// subdomain of at most 63 characters); required.
	Name string `json:"name"`
	// NodeID is the node's name for the driver (at most 192 characters);
	// required.
	NodeID string `json:"nodeID"`
	// TopologyKeys are the topology labels the driver supports (qualified
	// names, unique).
	TopologyKeys []string `json:"topologyKeys"`
	// Allocatable is how many of the driver's volumes the node can hold.
	Allocatable *VolumeNodeResources `json:"allocatable,omitempty"`
}

// VolumeNodeResources limits the volumes of one driver on a node.
type VolumeNodeResources struct {
	// Count is the most unique volumes the driver can attach to the node;
	// nil means no limit.
	Count *int32 `json:"count,omitempty"`
}

// CSINodeList is a list of CSINodes.
type CSINodeList struct {
	meta.TypeMeta `json:",inline"`
	meta.ListMeta `json:"metadata,omitempty"`
	Items         []CSINode `json:"items"`
}

// GetListMeta returns the list's metadata.
func (l *CSINodeList) GetListMeta() *meta.ListMeta { return &l.ListMeta }

// Limits on a CSINode, as kube-apiserver's.
const (
	maxCSINodeIDLength     = 192
	maxCSIDriverNameLength = 63
)

// ValidateCSINode checks a CSINode as kube-apiserver does: a DNS-subdomain
// name, and drivers with unique DNS-subdomain names of at most 63
// characters, a node ID of at most 192, unique qualified topology keys
// and a non-negative allocatable count.
func ValidateCSINode(n *CSINode) field.ErrorList {
	errs := validation.ValidateObjectMeta(&n.ObjectMeta, false, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	path := field.NewPath("spec", "drivers")
	seen := map[string]bool{}
	for i, d := range n.Spec.Drivers {
		p := path.Index(i)
		errs = append(errs, validateCSIDriverName(d.Name, p.Child("name"))...)
		if seen[d.Name] {
			errs = append(errs, field.Duplicate(p.Child("name"), d.Name))
		}
		seen[d.Name] = true
		switch {
		case d.NodeID == "":
			errs = append(errs, field.Required(p.Child("nodeID"), ""))
		case len(d.NodeID) > maxCSINodeIDLength:
			errs = append(errs, field.TooLong(p.Child("nodeID"), d.NodeID, maxCSINodeIDLength))
		}
		keys := map[string]bool{}
		for j, k := range d.TopologyKeys {
			kp := p.Child("topologyKeys").Index(j)
			if k == "" {
				errs = append(errs, field.Required(kp, ""))
				continue
			}
			if keys[k] {
				errs = append(errs, field.Duplicate(kp, k))
			}
			keys[k] = true
			for _, msg := range validation.IsQualifiedName(k) {
				errs = append(errs, field.Invalid(kp, k, msg))
			}
		}
		if a := d.Allocatable; a != nil && a.Count != nil && *a.Count < 0 {
			errs = append(errs, field.Invalid(p.Child("allocatable", "count"), *a.Count, "must be greater than or equal to 0"))
		}
	}
	return errs
}

// ValidateCSINodeUpdate checks n as a replacement for old: besides
// ValidateCSINode, a driver that stays keeps its node ID and topology
// keys, as kube-apiserver requires.
func ValidateCSINodeUpdate(n, old *CSINode) field.ErrorList {
	errs := validation.ValidateObjectMetaUpdate(&n.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	errs = append(errs, ValidateCSINode(n)...)
	before := map[string]CSINodeDriver{}
	for _, d := range old.Spec.Drivers {
		before[d.Name] = d
	}
	for i, d := range n.Spec.Drivers {
		o, ok := before[d.Name]
		if !ok {
			continue
		}
		p := field.NewPath("spec", "drivers").Index(i)
		if d.NodeID != o.NodeID {
			errs = append(errs, field.Invalid(p.Child("nodeID"), d.NodeID, "field is immutable"))
		}
		if strings.Join(d.TopologyKeys, "\x00") != strings.Join(o.TopologyKeys, "\x00") {
			errs = append(errs, field.Invalid(p.Child("topologyKeys"), fmt.Sprint(d.TopologyKeys), "field is immutable"))
		}
	}
	return errs
}

// validateCSIDriverName checks a CSI driver's name: required, at most 63
// characters, a DNS subdomain (case-insensitive, as Kubernetes lowers it).
func validateCSIDriverName(name string, path *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(path, "")}
	}
	var errs field.ErrorList
	if len(name) > maxCSIDriverNameLength {
		errs = append(errs, field.TooLong(path, name, maxCSIDriverNameLength))
	}
	for _, msg := range validation.IsDNS1123Subdomain(strings.ToLower(name)) {
		errs = append(errs, field.Invalid(path, name, msg))
	}
	return errs
}
