package storage

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/resource"
)

func ptrTo[T any](v T) *T { return &v }

// assertErrors checks that errs holds exactly one error per want, each
// containing its want in order.
func assertErrors(t *testing.T, errs field.ErrorList, want []string) {
	t.Helper()
	require.Len(t, errs, len(want), "%v", errs)
	for i, w := range want {
		assert.Contains(t, errs[i].Error(), w)
	}
}

func validAttachment() *VolumeAttachment {
	return &VolumeAttachment{
		ObjectMeta: meta.ObjectMeta{Name: "va-1"},
		Spec: VolumeAttachmentSpec{Attacher: "e2e-test.storage.k8s.io", NodeName: "node-1",
			Source: VolumeAttachmentSource{PersistentVolumeName: ptrTo("pv-1")}},
	}
}

func inlineSpec() *core.PersistentVolumeSpec {
	return &core.PersistentVolumeSpec{
		AccessModes:            []core.PersistentVolumeAccessMode{core.ReadWriteOnce},
		PersistentVolumeSource: core.PersistentVolumeSource{CSI: &core.CSIPersistentVolumeSource{Driver: "d", VolumeHandle: "h"}},
	}
}

func TestValidateVolumeAttachment(t *testing.T) {
	filesystem, block := core.PersistentVolumeFilesystem, core.PersistentVolumeBlock
	tests := []struct {
		name   string
		mutate func(*VolumeAttachment)
		want   []string
	}{
		{name: "valid", mutate: func(*VolumeAttachment) {}},
		{name: "status is checked too", mutate: func(va *VolumeAttachment) {
			va.Status = VolumeAttachmentStatus{Attached: true, AttachmentMetadata: map[string]string{"k": "v"}}
		}},
		{name: "bad name", mutate: func(va *VolumeAttachment) { va.Name = "VA_1" }, want: []string{`metadata.name: Invalid value: "VA_1"`}},
		{name: "no attacher", mutate: func(va *VolumeAttachment) { va.Spec.Attacher = "" }, want: []string{"spec.attacher: Required value"}},
		{name: "long attacher", mutate: func(va *VolumeAttachment) { va.Spec.Attacher = strings.Repeat("a", 64) },
			want: []string{"spec.attacher: Too long"}},
		{name: "bad attacher", mutate: func(va *VolumeAttachment) { va.Spec.Attacher = "a b" }, want: []string{`spec.attacher: Invalid value: "a b"`}},
		{name: "no node", mutate: func(va *VolumeAttachment) { va.Spec.NodeName = "" }, want: []string{`spec.nodeName: Invalid value: ""`}},
		{name: "bad node", mutate: func(va *VolumeAttachment) { va.Spec.NodeName = "Node_1" }, want: []string{`spec.nodeName: Invalid value: "Node_1"`}},
		{name: "no source", mutate: func(va *VolumeAttachment) { va.Spec.Source = VolumeAttachmentSource{} },
			want: []string{"spec.source: Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName"}},
		{name: "both sources", mutate: func(va *VolumeAttachment) { va.Spec.Source.InlineVolumeSpec = inlineSpec() },
			want: []string{"spec.source: Forbidden: must specify exactly one of inlineVolumeSpec and persistentVolumeName"}},
		{name: "empty volume name", mutate: func(va *VolumeAttachment) { va.Spec.Source.PersistentVolumeName = ptrTo("") },
			want: []string{"spec.source.persistentVolumeName: Required value"}},
		{name: "bad volume name", mutate: func(va *VolumeAttachment) { va.Spec.Source.PersistentVolumeName = ptrTo("PV 1") },
			want: []string{`spec.source.persistentVolumeName: Invalid value: "PV 1"`}},
		{name: "inline volume", mutate: func(va *VolumeAttachment) {
			va.Spec.Source = VolumeAttachmentSource{InlineVolumeSpec: inlineSpec()}
			va.Spec.Source.InlineVolumeSpec.VolumeMode = &filesystem
		}},
		{name: "inline volume owning what a real one owns", mutate: func(va *VolumeAttachment) {
			s := inlineSpec()
			s.ClaimRef = &core.ObjectReference{Name: "c"}
			s.Capacity = core.ResourceList{core.ResourceStorage: resource.MustParse("1Gi")}
			s.StorageClassName = "fast"
			s.PersistentVolumeReclaimPolicy = core.PersistentVolumeReclaimDelete
			s.VolumeMode = &block
			s.NodeAffinity = &core.VolumeNodeAffinity{}
			va.Spec.Source = VolumeAttachmentSource{InlineVolumeSpec: s}
		}, want: []string{"inlineVolumeSpec.claimRef: Forbidden", "inlineVolumeSpec.capacity: Forbidden", "inlineVolumeSpec.nodeAffinity: Forbidden",
			"inlineVolumeSpec.storageClassName: Forbidden", "inlineVolumeSpec.persistentVolumeReclaimPolicy: Forbidden: may only be Retain",
			"inlineVolumeSpec.volumeMode: Forbidden"}},
		{name: "inline volume without CSI", mutate: func(va *VolumeAttachment) {
			va.Spec.Source = VolumeAttachmentSource{InlineVolumeSpec: &core.PersistentVolumeSpec{
				PersistentVolumeSource: core.PersistentVolumeSource{NFS: &core.NFSVolumeSource{Server: "s", Path: "/"}}}}
		}, want: []string{"inlineVolumeSpec.accessModes: Required value", "inlineVolumeSpec: Forbidden", "inlineVolumeSpec.csi: Required value"}},
		{name: "inline CSI volume without handle", mutate: func(va *VolumeAttachment) {
			va.Spec.Source = VolumeAttachmentSource{InlineVolumeSpec: inlineSpec()}
			va.Spec.Source.InlineVolumeSpec.CSI.VolumeHandle = ""
		}, want: []string{"inlineVolumeSpec.csi.volumeHandle: Required value"}},
		{name: "oversized metadata", mutate: func(va *VolumeAttachment) {
			va.Status.AttachmentMetadata = map[string]string{"k": strings.Repeat("x", 256<<10)}
		}, want: []string{"status.attachmentMetadata: Too long: may not be more than 262144 bytes"}},
		{name: "oversized error message and negative code", mutate: func(va *VolumeAttachment) {
			va.Status.AttachError = &VolumeError{Message: strings.Repeat("x", 1025)}
			va.Status.DetachError = &VolumeError{ErrorCode: ptrTo(int32(-1))}
		}, want: []string{"status.attachError.message: Too long: may not be more than 1024 bytes",
			"status.detachError.errorCode: Invalid value: -1: must be between 0 and 2147483647, inclusive"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			va := validAttachment()
			tt.mutate(va)
			assertErrors(t, ValidateVolumeAttachment(va), tt.want)
		})
	}
}

func TestValidateVolumeAttachmentUpdate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*VolumeAttachment)
		want   []string
	}{
		{name: "labels and status may change", mutate: func(va *VolumeAttachment) {
			va.Labels = map[string]string{"a": "b"}
			va.Status.Attached = true
		}},
		{name: "node is immutable", mutate: func(va *VolumeAttachment) { va.Spec.NodeName = "node-2" }, want: []string{"spec: Invalid value"}},
		{name: "volume is immutable", mutate: func(va *VolumeAttachment) { va.Spec.Source.PersistentVolumeName = ptrTo("pv-2") },
			want: []string{"field is immutable"}},
		{name: "an invalid update is refused", mutate: func(va *VolumeAttachment) { va.Status.DetachError = &VolumeError{ErrorCode: ptrTo(int32(-2))} },
			want: []string{"status.detachError.errorCode"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old, va := validAttachment(), validAttachment()
			tt.mutate(va)
			assertErrors(t, ValidateVolumeAttachmentUpdate(va, old), tt.want)
		})
	}
}

func validDriver() *CSIDriver {
	d := &CSIDriver{ObjectMeta: meta.ObjectMeta{Name: "inline.csi.example.com"}}
	DefaultCSIDriver(d)
	return d
}

func TestDefaultCSIDriver(t *testing.T) {
	d := validDriver()
	b, err := json.Marshal(d.Spec)
	require.NoError(t, err)
	assert.JSONEq(t, `{"attachRequired":true,"podInfoOnMount":false,"volumeLifecycleModes":["Persistent"],"storageCapacity":false,
		"fsGroupPolicy":"ReadWriteOnceWithFSType","requiresRepublish":false,"seLinuxMount":false,"preventPodSchedulingIfMissing":false}`, string(b))

	kept := &CSIDriver{Spec: CSIDriverSpec{AttachRequired: ptrTo(false), VolumeLifecycleModes: []VolumeLifecycleMode{VolumeLifecycleEphemeral}}}
	DefaultCSIDriver(kept)
	assert.False(t, *kept.Spec.AttachRequired)
	assert.Equal(t, []VolumeLifecycleMode{VolumeLifecycleEphemeral}, kept.Spec.VolumeLifecycleModes)
}

func TestValidateCSIDriver(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*CSIDriver)
		want   []string
	}{
		{name: "valid", mutate: func(*CSIDriver) {}},
		{name: "token requests", mutate: func(d *CSIDriver) {
			d.Spec.TokenRequests = []TokenRequest{{Audience: ""}, {Audience: "vault", ExpirationSeconds: ptrTo(int64(600))}}
			d.Spec.ServiceAccountTokenInSecrets = ptrTo(true)
		}},
		{name: "bad name", mutate: func(d *CSIDriver) { d.Name = "Inline Driver" }, want: []string{`metadata.name: Invalid value: "Inline Driver"`}},
		{name: "undefaulted", mutate: func(d *CSIDriver) { d.Spec = CSIDriverSpec{} },
			want: []string{"spec.attachedRequired: Required value", "spec.podInfoOnMount: Required value", "spec.storageCapacity: Required value",
				"spec.seLinuxMount: Required value", "spec.preventPodSchedulingIfMissing: Required value"}},
		{name: "unknown fsGroupPolicy", mutate: func(d *CSIDriver) { d.Spec.FSGroupPolicy = ptrTo(FSGroupPolicy("Sometimes")) },
			want: []string{`spec.fsGroupPolicy: Unsupported value: "Sometimes": supported values: "File", "None", "ReadWriteOnceWithFSType"`}},
		{name: "unknown mode", mutate: func(d *CSIDriver) { d.Spec.VolumeLifecycleModes = []VolumeLifecycleMode{"Forever"} },
			want: []string{`spec.volumeLifecycleModes: Unsupported value: "Forever"`}},
		{name: "duplicate audience", mutate: func(d *CSIDriver) { d.Spec.TokenRequests = []TokenRequest{{Audience: "a"}, {Audience: "a"}} },
			want: []string{`spec.tokenRequests[1].audience: Duplicate value: "a"`}},
		{name: "token lifetimes out of range", mutate: func(d *CSIDriver) {
			d.Spec.TokenRequests = []TokenRequest{{Audience: "a", ExpirationSeconds: ptrTo(int64(599))}, {Audience: "b", ExpirationSeconds: ptrTo(int64(1<<32 + 1))}}
		}, want: []string{"spec.tokenRequests[0].expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes",
			"spec.tokenRequests[1].expirationSeconds: Invalid value: 4294967297: may not specify a duration larger than 2^32 seconds"}},
		{name: "short allocatable period", mutate: func(d *CSIDriver) { d.Spec.NodeAllocatableUpdatePeriodSeconds = ptrTo(int64(9)) },
			want: []string{"spec.nodeAllocatableUpdatePeriodSeconds: Invalid value: 9: must be greater than or equal to 10 seconds"}},
		{name: "tokens in secrets without tokens", mutate: func(d *CSIDriver) { d.Spec.ServiceAccountTokenInSecrets = ptrTo(false) },
			want: []string{"spec.serviceAccountTokenInSecrets: Invalid value: false: serviceAccountTokenInSecrets is set but no tokenRequests are specified"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := validDriver()
			tt.mutate(d)
			assertErrors(t, ValidateCSIDriver(d), tt.want)
		})
	}
}

func TestValidateCSIDriverUpdate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*CSIDriver)
		want   []string
	}{
		{name: "mutable fields", mutate: func(d *CSIDriver) {
			d.Labels = map[string]string{"a": "b"}
			d.Spec.PodInfoOnMount, d.Spec.RequiresRepublish, d.Spec.StorageCapacity = ptrTo(true), ptrTo(true), ptrTo(true)
			d.Spec.TokenRequests = []TokenRequest{{Audience: "a"}}
		}},
		{name: "attachRequired is immutable", mutate: func(d *CSIDriver) { d.Spec.AttachRequired = ptrTo(false) },
			want: []string{"spec.attachedRequired: Invalid value: false: field is immutable"}},
		{name: "modes are immutable", mutate: func(d *CSIDriver) { d.Spec.VolumeLifecycleModes = []VolumeLifecycleMode{VolumeLifecycleEphemeral} },
			want: []string{"spec.volumeLifecycleModes: Invalid value"}},
		{name: "renaming is refused", mutate: func(d *CSIDriver) { d.Name = "other" }, want: []string{"metadata.name: Invalid value"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old, d := validDriver(), validDriver()
			old.ResourceVersion, d.ResourceVersion = "1", "1"
			tt.mutate(d)
			assertErrors(t, ValidateCSIDriverUpdate(d, old), tt.want)
		})
	}
}

func validCapacity() *CSIStorageCapacity {
	q := resource.MustParse("10Gi")
	return &CSIStorageCapacity{
		ObjectMeta:       meta.ObjectMeta{Name: "csisc-1", Namespace: "kube-system"},
		NodeTopology:     &meta.LabelSelector{MatchLabels: map[string]string{"topology.example.com/zone": "a"}},
		StorageClassName: "fast",
		Capacity:         &q,
	}
}

func TestValidateCSIStorageCapacity(t *testing.T) {
	neg := resource.MustParse("-1")
	tests := []struct {
		name   string
		mutate func(*CSIStorageCapacity)
		want   []string
	}{
		{name: "valid", mutate: func(*CSIStorageCapacity) {}},
		{name: "unknown capacity, no topology", mutate: func(c *CSIStorageCapacity) { c.Capacity, c.NodeTopology = nil, nil }},
		{name: "no namespace", mutate: func(c *CSIStorageCapacity) { c.Namespace = "" }, want: []string{"metadata.namespace: Required value"}},
		{name: "no class", mutate: func(c *CSIStorageCapacity) { c.StorageClassName = "" }, want: []string{`storageClassName: Invalid value: ""`}},
		{name: "bad class", mutate: func(c *CSIStorageCapacity) { c.StorageClassName = "Fast Disks" },
			want: []string{`storageClassName: Invalid value: "Fast Disks"`}},
		{name: "negative capacity", mutate: func(c *CSIStorageCapacity) { c.Capacity = &neg },
			want: []string{`capacity: Invalid value: "-1": must be greater than or equal to 0`}},
		{name: "bad topology", mutate: func(c *CSIStorageCapacity) {
			c.NodeTopology = &meta.LabelSelector{MatchExpressions: []meta.LabelSelectorRequirement{{Key: "zone", Operator: "In"}}}
		}, want: []string{"nodeTopology.matchExpressions[0].values: Required value"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := validCapacity()
			tt.mutate(c)
			assertErrors(t, ValidateCSIStorageCapacity(c), tt.want)
		})
	}
}

func TestValidateCSIStorageCapacityUpdate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*CSIStorageCapacity)
		want   []string
	}{
		{name: "capacity may change", mutate: func(c *CSIStorageCapacity) {
			q := resource.MustParse("1Gi")
			c.Capacity, c.MaximumVolumeSize = &q, &q
		}},
		{name: "class is immutable", mutate: func(c *CSIStorageCapacity) { c.StorageClassName = "slow" },
			want: []string{`storageClassName: Invalid value: "slow": field is immutable`}},
		{name: "topology is immutable", mutate: func(c *CSIStorageCapacity) { c.NodeTopology = nil },
			want: []string{"nodeTopology: Invalid value"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old, c := validCapacity(), validCapacity()
			tt.mutate(c)
			assertErrors(t, ValidateCSIStorageCapacityUpdate(c, old), tt.want)
		})
	}
}

func validAttributesClass() *VolumeAttributesClass {
	return &VolumeAttributesClass{ObjectMeta: meta.ObjectMeta{Name: "gold"}, DriverName: "e2e-fake-csi-driver",
		Parameters: map[string]string{"iops": "3000"}}
}

func TestValidateVolumeAttributesClass(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*VolumeAttributesClass)
		want   []string
	}{
		{name: "valid", mutate: func(*VolumeAttributesClass) {}},
		{name: "upper-case driver is fine", mutate: func(c *VolumeAttributesClass) { c.DriverName = "Example.com/CSI" }},
		{name: "no driver", mutate: func(c *VolumeAttributesClass) { c.DriverName = "" }, want: []string{"driverName: Required value"}},
		{name: "bad driver", mutate: func(c *VolumeAttributesClass) { c.DriverName = "a b" }, want: []string{`driverName: Invalid value: "a b"`}},
		{name: "bad name", mutate: func(c *VolumeAttributesClass) { c.Name = "Gold_1" }, want: []string{`metadata.name: Invalid value: "Gold_1"`}},
		{name: "no parameters", mutate: func(c *VolumeAttributesClass) { c.Parameters = nil },
			want: []string{"parameters: Required value: must contain at least one key/value pair"}},
		{name: "empty key", mutate: func(c *VolumeAttributesClass) { c.Parameters = map[string]string{"": "x"} },
			want: []string{`parameters: Invalid value: "": field can not be empty.`}},
		{name: "oversized parameters", mutate: func(c *VolumeAttributesClass) { c.Parameters = map[string]string{"k": strings.Repeat("x", 256<<10)} },
			want: []string{"parameters: Too long: may not be more than 262144 bytes"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := validAttributesClass()
			tt.mutate(c)
			assertErrors(t, ValidateVolumeAttributesClass(c), tt.want)
		})
	}
}

func TestValidateVolumeAttributesClassUpdate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*VolumeAttributesClass)
		want   []string
	}{
		{name: "labels may change", mutate: func(c *VolumeAttributesClass) { c.Labels = map[string]string{"a": "b"} }},
		{name: "driver is immutable", mutate: func(c *VolumeAttributesClass) { c.DriverName = "other" },
			want: []string{"driverName: Forbidden: updates to driverName are forbidden."}},
		{name: "parameters are immutable", mutate: func(c *VolumeAttributesClass) { c.Parameters = map[string]string{"iops": "4000"} },
			want: []string{"parameters: Forbidden: updates to parameters are forbidden."}},
		{name: "removing the parameters is refused twice", mutate: func(c *VolumeAttributesClass) { c.Parameters = nil },
			want: []string{"parameters: Forbidden", "parameters: Required value"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old, c := validAttributesClass(), validAttributesClass()
			tt.mutate(c)
			assertErrors(t, ValidateVolumeAttributesClassUpdate(c, old), tt.want)
		})
	}
}

// TestCSIKindsJSON: the kinds marshal with Kubernetes' field names and
// omissions (a VolumeAttachment's attached and a CSIStorageCapacity's
// storageClassName always written).
func TestCSIKindsJSON(t *testing.T) {
	va := validAttachment()
	b, err := json.Marshal(va)
	require.NoError(t, err)
	assert.JSONEq(t, `{"metadata":{"name":"va-1"},"spec":{"attacher":"e2e-test.storage.k8s.io","source":{"persistentVolumeName":"pv-1"},
		"nodeName":"node-1"},"status":{"attached":false}}`, string(b))

	c := &CSIStorageCapacity{ObjectMeta: meta.ObjectMeta{Name: "c", Namespace: "ns"}}
	b, err = json.Marshal(c)
	require.NoError(t, err)
	assert.JSONEq(t, `{"metadata":{"name":"c","namespace":"ns"},"storageClassName":""}`, string(b))

	var vac VolumeAttributesClass
	require.NoError(t, json.Unmarshal([]byte(`{"driverName":"d","parameters":{"a":"b"}}`), &vac))
	assert.Equal(t, "d", vac.DriverName)
	assert.Error(t, json.Unmarshal([]byte(`{"driverName":["d"]}`), &vac), "a malformed body is refused")
}
