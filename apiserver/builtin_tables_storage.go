package apiserver

import (
	"strings"
	"time"

	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/storage"
)

// storageClassTable is kube-apiserver's printer of StorageClasses: the
// name (with " (default)" on the default class), provisioner, reclaim
// policy, binding mode, whether volumes may grow, and age.
var storageClassTable = &TableConvertor{
	NoDefaults: true,
	Columns: []TableColumn{
		nameColumn,
		col("Provisioner", "string", "Indicates the type of the provisioner.", 0),
		col("ReclaimPolicy", "string", "Indicates the type of the reclaim policy.", 0),
		col("VolumeBindingMode", "string", "Indicates when volume binding and dynamic provisioning should occur", 0),
		col("AllowVolumeExpansion", "string", "Indicates whether the storage class allow volume expand", 0),
		ageColumn,
	},
	Cells: func(obj meta.Object) []any {
		sc := obj.(*storage.StorageClass)
		name := sc.Name
		if storage.IsDefaultClass(sc) {
			name += " (default)"
		}
		expand := sc.AllowVolumeExpansion != nil && *sc.AllowVolumeExpansion
		return []any{name, sc.Provisioner, string(storage.ReclaimPolicyOf(sc)), string(storage.BindingMode(sc)),
			expand, HumanAge(sc.CreationTimestamp, time.Now())}
	},
}

// csiNodeTable is kube-apiserver's printer of CSINodes: the name, how many
// drivers the node has, and age.
var csiNodeTable = &TableConvertor{
	NoDefaults: true,
	Columns: []TableColumn{
		nameColumn,
		col("Drivers", "integer", "Drivers indicates the number of CSI drivers registered on the node", 0),
		ageColumn,
	},
	Cells: func(obj meta.Object) []any {
		n := obj.(*storage.CSINode)
		return []any{n.Name, len(n.Spec.Drivers), HumanAge(n.CreationTimestamp, time.Now())}
	},
}

// csiDriverTable, volumeAttachmentTable, volumeAttributesClassTable and
// csiStorageCapacityTable are kube-apiserver's printers of those kinds.
// A CSIDriver shows its defaults when unset (attachRequired true, the
// others false), its token request audiences joined with "," ("<unset>"
// without any) and its modes joined with "," ("<none>"); a
// VolumeAttachment its PersistentVolume ("" for an inline volume); a
// CSIStorageCapacity its capacity ("<unset>") and no age, as upstream.
var (
	csiDriverTable = &TableConvertor{
		NoDefaults: true,
		Columns: []TableColumn{
			nameColumn,
			col("AttachRequired", "boolean", "attachRequired indicates this CSI volume driver requires an attach operation (because it implements the CSI ControllerPublishVolume() method), and that the Kubernetes attach detach controller should call the attach volume interface which checks the volumeattachment status and waits until the volume is attached before proceeding to mounting.", 0),
			col("PodInfoOnMount", "boolean", "podInfoOnMount indicates this CSI volume driver requires additional pod information (like podName, podUID, etc.) during mount operations.", 0),
			col("StorageCapacity", "boolean", "storageCapacity indicates that the CSI volume driver wants pod scheduling to consider the storage capacity that the driver deployment will report by creating CSIStorageCapacity objects with capacity information, if set to true.", 0),
			col("TokenRequests", "string", "tokenRequests indicates the CSI driver needs pods' service account tokens it is mounting volume for to do necessary authentication.", 0),
			col("RequiresRepublish", "boolean", "requiresRepublish indicates the CSI driver wants `NodePublishVolume` being periodically called to reflect any possible change in the mounted volume.", 0),
			col("Modes", "string", "volumeLifecycleModes defines what kind of volumes this CSI volume driver supports.", 0),
			ageColumn,
		},
		Cells: func(obj meta.Object) []any {
			d := obj.(*storage.CSIDriver)
			tokens := "<unset>"
			if d.Spec.TokenRequests != nil {
				auds := make([]string, len(d.Spec.TokenRequests))
				for i, t := range d.Spec.TokenRequests {
					auds[i] = t.Audience
				}
				tokens = strings.Join(auds, ",")
			}
			modes := make([]string, len(d.Spec.VolumeLifecycleModes))
			for i, m := range d.Spec.VolumeLifecycleModes {
				modes[i] = string(m)
			}
			modeCell := strings.Join(modes, ",")
			if modeCell == "" {
				modeCell = "<none>"
			}
			return []any{d.Name, boolOr(d.Spec.AttachRequired, true), boolOr(d.Spec.PodInfoOnMount, false),
				boolOr(d.Spec.StorageCapacity, false), tokens, boolOr(d.Spec.RequiresRepublish, false),
				modeCell, HumanAge(d.CreationTimestamp, time.Now())}
		},
	}
	volumeAttachmentTable = &TableConvertor{
		NoDefaults: true,
		Columns: []TableColumn{
			nameColumn,
			{Name: "Attacher", Type: "string", Format: "name", Description: "attacher indicates the name of the volume driver that MUST handle this request. This is the name returned by GetPluginName()."},
			col("PV", "string", "persistentVolumeName represents the name of the persistent volume to attach.", 0),
			col("Node", "string", "nodeName represents the node that the volume should be attached to.", 0),
			col("Attached", "boolean", "attached indicates the volume is successfully attached. This field must only be set by the entity completing the attach operation, i.e. the external-attacher.", 0),
			ageColumn,
		},
		Cells: func(obj meta.Object) []any {
			va := obj.(*storage.VolumeAttachment)
			pv := ""
			if va.Spec.Source.PersistentVolumeName != nil {
				pv = *va.Spec.Source.PersistentVolumeName
			}
			return []any{va.Name, va.Spec.Attacher, pv, va.Spec.NodeName, va.Status.Attached, HumanAge(va.CreationTimestamp, time.Now())}
		},
	}
	volumeAttributesClassTable = &TableConvertor{
		NoDefaults: true,
		Columns: []TableColumn{
			nameColumn,
			col("DriverName", "string", "Name of the CSI driver This field is immutable.", 0),
			ageColumn,
		},
		Cells: func(obj meta.Object) []any {
			c := obj.(*storage.VolumeAttributesClass)
			return []any{c.Name, c.DriverName, HumanAge(c.CreationTimestamp, time.Now())}
		},
	}
	csiStorageCapacityTable = &TableConvertor{
		NoDefaults: true,
		Columns: []TableColumn{
			nameColumn,
			col("StorageClassName", "string", "storageClassName represents the name of the StorageClass that the reported capacity applies to. It must meet the same requirements as the name of a StorageClass object (non-empty, DNS subdomain). If that object no longer exists, the CSIStorageCapacity object is obsolete and should be removed by its creator. This field is immutable.", 0),
			col("Capacity", "string", "capacity is the value reported by the CSI driver in its GetCapacityResponse for a GetCapacityRequest with topology and parameters that match the previous fields.", 0),
		},
		Cells: func(obj meta.Object) []any {
			c := obj.(*storage.CSIStorageCapacity)
			capacity := "<unset>"
			if c.Capacity != nil {
				capacity = c.Capacity.String()
			}
			return []any{c.Name, c.StorageClassName, capacity}
		},
	}
)

// boolOr returns *b, or def when b is nil.
func boolOr(b *bool, def bool) bool {
	if b == nil {
		return def
	}
	return *b
}
