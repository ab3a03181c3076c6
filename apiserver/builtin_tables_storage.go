package apiserver

import (
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
