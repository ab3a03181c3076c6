package core

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/resource"
)

// TestValidateVolumeAttributesClassName: the VolumeAttributesClass a
// volume or claim names is checked as kube-apiserver checks it, and a
// claim whose class has been applied keeps naming one.
func TestValidateVolumeAttributesClassName(t *testing.T) {
	csiVolume := func(class *string) *PersistentVolume {
		pv := &PersistentVolume{ObjectMeta: meta.ObjectMeta{Name: "pv1"}, Spec: PersistentVolumeSpec{
			Capacity:                  ResourceList{ResourceStorage: resource.MustParse("1Gi")},
			AccessModes:               []PersistentVolumeAccessMode{ReadWriteOnce},
			PersistentVolumeSource:    PersistentVolumeSource{CSI: &CSIPersistentVolumeSource{Driver: "d", VolumeHandle: "h"}},
			VolumeAttributesClassName: class,
		}}
		DefaultPersistentVolume(pv)
		return pv
	}
	volumes := []struct {
		name   string
		pv     *PersistentVolume
		want   []string
		hostFS bool
	}{
		{name: "no class", pv: csiVolume(nil)},
		{name: "a class", pv: csiVolume(ptr("gold"))},
		{name: "empty class", pv: csiVolume(ptr("")), want: []string{"spec.volumeAttributesClassName: Required value: an empty string is disallowed"}},
		{name: "bad class", pv: csiVolume(ptr("Gold Class")), want: []string{`spec.volumeAttributesClassName: Invalid value: "Gold Class"`}},
		{name: "class on a non-CSI volume", pv: func() *PersistentVolume {
			pv := csiVolume(ptr("gold"))
			pv.Spec.CSI, pv.Spec.NFS = nil, &NFSVolumeSource{Server: "s", Path: "/x"}
			return pv
		}(), want: []string{"spec.csi: Required value: has to be specified when using volumeAttributesClassName"}},
	}
	for _, tt := range volumes {
		t.Run("volume "+tt.name, func(t *testing.T) {
			got := errStrings(ValidatePersistentVolume(tt.pv))
			require.Len(t, got, len(tt.want), "%v", got)
			for i, w := range tt.want {
				assert.Contains(t, got[i], w)
			}
		})
	}
	unset := csiVolume(nil)
	assert.Equal(t, []string{"spec.volumeAttributesClassName: Forbidden: update from non-nil value to nil is forbidden"},
		errStrings(ValidatePersistentVolumeUpdate(unset, csiVolume(ptr("gold")))))

	claim := func(class *string, current *string) *PersistentVolumeClaim {
		pvc := &PersistentVolumeClaim{ObjectMeta: meta.ObjectMeta{Name: "c", Namespace: "demo"}, Spec: PersistentVolumeClaimSpec{
			AccessModes:               []PersistentVolumeAccessMode{ReadWriteOnce},
			Resources:                 VolumeResourceRequirements{Requests: ResourceList{ResourceStorage: resource.MustParse("1Gi")}},
			VolumeAttributesClassName: class,
		}}
		DefaultPersistentVolumeClaim(pvc)
		pvc.Status.CurrentVolumeAttributesClassName = current
		return pvc
	}
	assert.Empty(t, ValidatePersistentVolumeClaim(claim(ptr(""), nil)), "a claim may name the empty class")
	assert.Equal(t, []string{`spec.volumeAttributesClassName: Invalid value: "Gold_1": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`},
		errStrings(ValidatePersistentVolumeClaim(claim(ptr("Gold_1"), nil))))
	updates := []struct {
		name     string
		old, pvc *PersistentVolumeClaim
		want     []string
	}{
		{name: "change the class", old: claim(ptr("gold"), ptr("gold")), pvc: claim(ptr("silver"), ptr("gold"))},
		{name: "drop a class not yet applied", old: claim(ptr("gold"), nil), pvc: claim(nil, nil)},
		{name: "drop an applied class", old: claim(ptr("gold"), ptr("gold")), pvc: claim(nil, ptr("gold")),
			want: []string{"spec.volumeAttributesClassName: Forbidden: update to nil is forbidden when status.currentVolumeAttributesClassName is not nil"}},
		{name: "empty an applied class", old: claim(ptr("gold"), ptr("gold")), pvc: claim(ptr(""), ptr("gold")),
			want: []string{"spec.volumeAttributesClassName: Forbidden: update to empty string is forbidden when status.currentVolumeAttributesClassName is not nil"}},
	}
	for _, tt := range updates {
		t.Run("claim update "+tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, errStrings(ValidatePersistentVolumeClaimUpdate(tt.pvc, tt.old)))
		})
	}
}

// TestClaimStatusAttributesClassJSON: the status fields a
// VolumeAttributesClass change writes keep Kubernetes' JSON names.
func TestClaimStatusAttributesClassJSON(t *testing.T) {
	in := `{"phase":"Bound","allocatedResourceStatuses":{"storage":"ControllerResizeInProgress"},
		"currentVolumeAttributesClassName":"gold","modifyVolumeStatus":{"targetVolumeAttributesClassName":"silver","status":"InProgress"}}`
	var st PersistentVolumeClaimStatus
	require.NoError(t, json.Unmarshal([]byte(in), &st))
	assert.Equal(t, ModifyVolumeInProgress, st.ModifyVolumeStatus.Status)
	out, err := json.Marshal(st)
	require.NoError(t, err)
	assert.JSONEq(t, in, string(out))
}
