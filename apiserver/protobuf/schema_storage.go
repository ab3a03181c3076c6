package protobuf

// storageMessages are storage/v1 generated.proto's StorageClass and
// CSINode messages (and core/v1's TopologySelectorTerm); the JSON names are the Go json
// tags of api/storage and api/core.
func storageMessages() map[string]fields {
	return map[string]fields{
		"storage.StorageClass": {
			1: objectMeta(), 2: strp("provisioner"), 3: mapStr("parameters"), 4: str("reclaimPolicy"),
			5: strs("mountOptions"), 6: bln("allowVolumeExpansion"), 7: str("volumeBindingMode"),
			8: msgs("allowedTopologies", "core.TopologySelectorTerm"),
		},
		"core.TopologySelectorTerm": {1: msgs("matchLabelExpressions", "core.TopologySelectorLabelRequirement")},
		"storage.CSINode":           {1: objectMeta(), 2: msg("spec", "storage.CSINodeSpec")},
		"storage.CSINodeSpec":       {1: required(msgs("drivers", "storage.CSINodeDriver"))},
		"storage.CSINodeDriver": {
			1: strp("name"), 2: strp("nodeID"), 3: required(strs("topologyKeys")), 4: msg("allocatable", "storage.VolumeNodeResources"),
		},
		"storage.VolumeNodeResources":           {1: i32p("count")},
		"core.TopologySelectorLabelRequirement": {1: strp("key"), 2: strs("values")},
	}
}
