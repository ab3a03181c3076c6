package volumebinding_test

import (
	"fmt"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/resource"
	"github.com/orkit/orkit/controller/volumebinding"
)

// FindVolume picks the smallest volume that fits a claim.
func ExampleFindVolume() {
	pv := func(name, size string) *core.PersistentVolume {
		return &core.PersistentVolume{ObjectMeta: meta.ObjectMeta{Name: name}, Spec: core.PersistentVolumeSpec{
			Capacity:    core.ResourceList{core.ResourceStorage: resource.MustParse(size)},
			AccessModes: []core.PersistentVolumeAccessMode{core.ReadWriteOnce}}}
	}
	pvc := &core.PersistentVolumeClaim{Spec: core.PersistentVolumeClaimSpec{
		AccessModes: []core.PersistentVolumeAccessMode{core.ReadWriteOnce},
		Resources:   core.VolumeResourceRequirements{Requests: core.ResourceList{core.ResourceStorage: resource.MustParse("3Gi")}}}}
	fmt.Println(volumebinding.FindVolume([]*core.PersistentVolume{pv("a", "10Gi"), pv("b", "1Gi"), pv("c", "5Gi")}, pvc).Name)
	// Output: c
}
