package admission

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/storage"
)

type fakeStorageClasses struct {
	list []*storage.StorageClass
	err  error
}

func (f fakeStorageClasses) ListStorageClasses(context.Context) ([]*storage.StorageClass, error) {
	return f.list, f.err
}

func storageClass(name string, def string, created time.Time) *storage.StorageClass {
	sc := &storage.StorageClass{ObjectMeta: meta.ObjectMeta{Name: name, CreationTimestamp: meta.Time{Time: created}}, Provisioner: "orkit.io/local-path"}
	if def != "" {
		sc.Annotations = map[string]string{def: "true"}
	}
	return sc
}

func TestDefaultStorageClass(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	str := func(s string) *string { return &s }
	tests := []struct {
		name    string
		classes fakeStorageClasses
		mutate  func(*core.PersistentVolumeClaim)
		want    *string
		wantErr string
	}{
		{name: "no default class: untouched", classes: fakeStorageClasses{list: []*storage.StorageClass{storageClass("slow", "", t0)}}},
		{name: "default applied", want: str("fast"),
			classes: fakeStorageClasses{list: []*storage.StorageClass{storageClass("slow", "", t0), storageClass("fast", storage.AnnotationDefaultClass, t0)}}},
		{name: "beta annotation honoured", want: str("fast"),
			classes: fakeStorageClasses{list: []*storage.StorageClass{storageClass("fast", storage.AnnotationBetaDefaultClass, t0)}}},
		{name: "several defaults: the newest wins", want: str("new"), classes: fakeStorageClasses{list: []*storage.StorageClass{
			storageClass("old", storage.AnnotationDefaultClass, t0), storageClass("new", storage.AnnotationDefaultClass, t0.Add(time.Hour))}}},
		{name: "explicit class kept", want: str("slow"), mutate: func(c *core.PersistentVolumeClaim) { c.Spec.StorageClassName = str("slow") },
			classes: fakeStorageClasses{list: []*storage.StorageClass{storageClass("fast", storage.AnnotationDefaultClass, t0)}}},
		{name: "empty class means none and is kept", want: str(""), mutate: func(c *core.PersistentVolumeClaim) { c.Spec.StorageClassName = str("") },
			classes: fakeStorageClasses{list: []*storage.StorageClass{storageClass("fast", storage.AnnotationDefaultClass, t0)}}},
		{name: "beta class annotation kept", mutate: func(c *core.PersistentVolumeClaim) {
			c.Annotations = map[string]string{annBetaStorageClass: "slow"}
		}, classes: fakeStorageClasses{list: []*storage.StorageClass{storageClass("fast", storage.AnnotationDefaultClass, t0)}}},
		{name: "lister fails", classes: fakeStorageClasses{err: errors.New("cache down")},
			wantErr: "Internal error occurred: list storage classes: cache down"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewDefaultStorageClass(tt.classes)
			pvc := &core.PersistentVolumeClaim{ObjectMeta: meta.ObjectMeta{Namespace: "default", Name: "data"}}
			if tt.mutate != nil {
				tt.mutate(pvc)
			}
			err := p.Admit(context.Background(), attrs(Create, "persistentvolumeclaims", "default", "data", pvc))
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, tt.wantErr, apierrors.FromError(err).Message)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, pvc.Spec.StorageClassName)
		})
	}
}

func TestDefaultStorageClassPassesOthers(t *testing.T) {
	p := NewDefaultStorageClass(fakeStorageClasses{list: []*storage.StorageClass{
		storageClass("fast", storage.AnnotationDefaultClass, time.Now())}})
	pvc := &core.PersistentVolumeClaim{ObjectMeta: meta.ObjectMeta{Namespace: "default", Name: "data"}}
	require.NoError(t, p.Admit(context.Background(), attrs(Update, "persistentvolumeclaims", "default", "data", pvc)))
	assert.Nil(t, pvc.Spec.StorageClassName, "updates are not defaulted")
	st := attrs(Create, "persistentvolumeclaims", "default", "data", pvc)
	st.Subresource = "status"
	require.NoError(t, p.Admit(context.Background(), st))
	assert.Nil(t, pvc.Spec.StorageClassName)
	// A claim that is not a claim is refused with kube's words.
	err := p.Admit(context.Background(), attrs(Create, "persistentvolumeclaims", "default", "data", &core.Pod{}))
	require.Error(t, err)
	assert.Contains(t, apierrors.FromError(err).Message, "was marked with kind PersistentVolumeClaim")
}
