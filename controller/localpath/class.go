package localpath

import (
	"context"
	"fmt"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/storage"
	"github.com/orkit/orkit/client"
)

// Class returns the StorageClass name served by provisioner ("" means
// ProvisionerName), binding on first consumer with reclaim policy Delete
// as k3s's local-path class; isDefault annotates it as the cluster's
// default class.
func Class(name, provisioner string, isDefault bool) *storage.StorageClass {
	if provisioner == "" {
		provisioner = ProvisionerName
	}
	reclaim := core.PersistentVolumeReclaimDelete
	mode := storage.VolumeBindingWaitForFirstConsumer
	sc := &storage.StorageClass{ObjectMeta: meta.ObjectMeta{Name: name}, Provisioner: provisioner,
		ReclaimPolicy: &reclaim, VolumeBindingMode: &mode}
	if isDefault {
		sc.Annotations = map[string]string{storage.AnnotationDefaultClass: "true"}
	}
	return sc
}

// EnsureClass creates sc through c unless a class of its name exists (an
// existing class, which an operator may have changed, is left alone).
func EnsureClass(ctx context.Context, c *client.Client, sc *storage.StorageClass) error {
	_, err := client.For[storage.StorageClass](c, "").Create(ctx, sc)
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create storage class %s: %w", sc.Name, err)
	}
	return nil
}
