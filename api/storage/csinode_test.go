package storage

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/orkit/orkit/api/meta"
)

func TestValidateCSINode(t *testing.T) {
	count := func(n int32) *VolumeNodeResources { return &VolumeNodeResources{Count: &n} }
	node := func(drivers ...CSINodeDriver) *CSINode {
		return &CSINode{ObjectMeta: meta.ObjectMeta{Name: "node-1"}, Spec: CSINodeSpec{Drivers: drivers}}
	}
	for name, tc := range map[string]struct {
		n    *CSINode
		want string
	}{
		"no drivers":         {node(), ""},
		"one driver":         {node(CSINodeDriver{Name: "csi.example.com", NodeID: "n1", TopologyKeys: []string{"topology.example.com/zone"}, Allocatable: count(16)}), ""},
		"no name":            {node(CSINodeDriver{NodeID: "n1"}), "spec.drivers[0].name: Required"},
		"bad name":           {node(CSINodeDriver{Name: "not a name", NodeID: "n1"}), "spec.drivers[0].name: Invalid"},
		"long name":          {node(CSINodeDriver{Name: strings.Repeat("a", 64), NodeID: "n1"}), "spec.drivers[0].name: Too long"},
		"duplicate drivers":  {node(CSINodeDriver{Name: "d", NodeID: "1"}, CSINodeDriver{Name: "d", NodeID: "2"}), "spec.drivers[1].name: Duplicate"},
		"no node ID":         {node(CSINodeDriver{Name: "d"}), "spec.drivers[0].nodeID: Required"},
		"long node ID":       {node(CSINodeDriver{Name: "d", NodeID: strings.Repeat("x", 193)}), "spec.drivers[0].nodeID: Too long"},
		"duplicate topology": {node(CSINodeDriver{Name: "d", NodeID: "1", TopologyKeys: []string{"a", "a"}}), "topologyKeys[1]: Duplicate"},
		"bad topology key":   {node(CSINodeDriver{Name: "d", NodeID: "1", TopologyKeys: []string{"a b"}}), "topologyKeys[0]: Invalid"},
		"negative count":     {node(CSINodeDriver{Name: "d", NodeID: "1", Allocatable: count(-1)}), "allocatable.count: Invalid"},
		"bad object name":    {&CSINode{ObjectMeta: meta.ObjectMeta{Name: "Node_1"}}, "metadata.name: Invalid"},
	} {
		t.Run(name, func(t *testing.T) {
			errs := ValidateCSINode(tc.n)
			if tc.want == "" {
				assert.Empty(t, errs)
				return
			}
			assert.Contains(t, errs.ToAggregate().Error(), tc.want)
		})
	}
}

func TestValidateCSINodeUpdate(t *testing.T) {
	old := &CSINode{ObjectMeta: meta.ObjectMeta{Name: "n", ResourceVersion: "1"},
		Spec: CSINodeSpec{Drivers: []CSINodeDriver{{Name: "d", NodeID: "1", TopologyKeys: []string{"k"}}}}}
	add := *old
	add.Spec = CSINodeSpec{Drivers: append([]CSINodeDriver{}, old.Spec.Drivers[0], CSINodeDriver{Name: "e", NodeID: "2"})}
	assert.Empty(t, ValidateCSINodeUpdate(&add, old), "adding a driver")
	moved := *old
	moved.Spec = CSINodeSpec{Drivers: []CSINodeDriver{{Name: "d", NodeID: "2", TopologyKeys: []string{"k", "z"}}}}
	errs := ValidateCSINodeUpdate(&moved, old).ToAggregate().Error()
	assert.Contains(t, errs, "spec.drivers[0].nodeID")
	assert.Contains(t, errs, "spec.drivers[0].topologyKeys")
}
