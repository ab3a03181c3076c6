package protobuf

// storageMessages are storage/v1 generated.proto's StorageClass messages
// (and core/v1's TopologySelectorTerm); the JSON names are the Go json
// tags of api/storage and api/core.
func storageMessages() map[string]fields {
	return map[string]fields{
		"storage.StorageClass": {
			1: objectMeta(), 2: strp("provisioner"), 3: mapStr("parameters"), 4: str("reclaimPolicy"),
			5: strs("mountOptions"), 6: bln("allowVolumeExpansion"), 7: str("volumeBindingMode"),
			8: msgs("allowedTopologies", "core.TopologySelectorTerm"),
		},
		"core.TopologySelectorTerm":             {1: msgs("matchLabelExpressions", "core.TopologySelectorLabelRequirement")},
		"core.TopologySelectorLabelRequirement": {1: strp("key"), 2: strs("values")},
	}
}
