package controlplane

import (
	"context"

	"github.com/orkit/orkit/admission"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/storage"
	"github.com/orkit/orkit/apiserver"
)

var storageClassesGVR = storage.GroupVersion().WithResource("storageclasses")

// storageClasses lists StorageClasses for the DefaultStorageClass
// admission plugin from the API server's watch cache (none while the
// cache is not there, so a claim then gets no default).
type storageClasses struct{ srv *apiserver.Server }

var _ admission.StorageClassLister = storageClasses{}

// ListStorageClasses implements admission.StorageClassLister.
func (s storageClasses) ListStorageClasses(context.Context) ([]*storage.StorageClass, error) {
	var out []*storage.StorageClass
	if c, ok := s.srv.Cache(storageClassesGVR); ok && c != nil {
		c.Objects(func(o meta.Object) {
			if sc, ok := o.(*storage.StorageClass); ok {
				out = append(out, sc)
			}
		})
	}
	return out, nil
}
