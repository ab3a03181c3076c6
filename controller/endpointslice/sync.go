package endpointslice

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"

	"github.com/orkit/orkit/api/discovery"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
)

// target is what one controller keeps for one Service: the slices of
// namespace/service carrying its managed-by value, each with the given
// labels and owner.
type target struct {
	namespace, service string
	managedBy          string
	labels             map[string]string
	owner              meta.OwnerReference
	maxPerSlice        int
}

// sliceLabels are the labels of each of t's slices: t.labels, the
// Service's name and the managing controller.
func (t *target) sliceLabels() map[string]string {
	l := maps.Clone(t.labels)
	if l == nil {
		l = map[string]string{}
	}
	l[discovery.LabelServiceName] = t.service
	l[discovery.LabelManagedBy] = t.managedBy
	return l
}

// namePrefix is the generateName of t's slices: the Service's name and a
// dash, cut so that a generated name stays a valid one.
func (t *target) namePrefix() string {
	const maxPrefix = 63 - 6 // room for the 5 random characters and a dash
	p := t.service
	if len(p) > maxPrefix-1 {
		p = p[:maxPrefix-1]
	}
	return p + "-"
}

// chunk is the content of one desired slice.
type chunk struct {
	key       string
	group     *group
	endpoints []discovery.Endpoint
}

func chunks(want []*group, max int) []chunk {
	var out []chunk
	for _, g := range want {
		if len(g.endpoints) == 0 { // a placeholder: one empty slice
			out = append(out, chunk{key: g.key(), group: g})
			continue
		}
		for eps := range slices.Chunk(g.endpoints, max) {
			out = append(out, chunk{key: g.key(), group: g, endpoints: eps})
		}
	}
	return out
}

// sync makes have (t's current slices) into want: a slice of the same
// address type and ports is reused (updated only when its endpoints,
// labels or owner differ), missing ones are created, the rest deleted.
// It returns every write's error, joined.
func sync(ctx context.Context, c *client.Client, t target, want []*group, have []*discovery.EndpointSlice) error {
	api := client.For[discovery.EndpointSlice](c, t.namespace)
	byKey := map[string][]*discovery.EndpointSlice{}
	for _, s := range have {
		k := groupKey(s.AddressType, s.Ports)
		byKey[k] = append(byKey[k], s)
	}
	for _, list := range byKey {
		slices.SortFunc(list, func(a, b *discovery.EndpointSlice) int { return cmp.Compare(a.Name, b.Name) })
	}
	labels := t.sliceLabels()
	var errs []error
	for _, ch := range chunks(want, t.maxPerSlice) {
		next := &discovery.EndpointSlice{AddressType: ch.group.addressType, Ports: ch.group.ports, Endpoints: ch.endpoints}
		if next.Endpoints == nil {
			next.Endpoints = []discovery.Endpoint{}
		}
		if list := byKey[ch.key]; len(list) > 0 {
			cur := list[0]
			byKey[ch.key] = list[1:]
			if reflect.DeepEqual(cur.Endpoints, next.Endpoints) && maps.Equal(cur.Labels, labels) && ownedBy(cur, t.owner) {
				continue
			}
			upd := meta.DeepCopy(cur)
			upd.Endpoints, upd.Labels, upd.OwnerReferences = next.Endpoints, labels, []meta.OwnerReference{t.owner}
			if _, err := api.Update(ctx, upd); err != nil {
				errs = append(errs, fmt.Errorf("update EndpointSlice %s/%s: %w", upd.Namespace, upd.Name, err))
			}
			continue
		}
		next.ObjectMeta = meta.ObjectMeta{GenerateName: t.namePrefix(), Namespace: t.namespace, Labels: labels,
			OwnerReferences: []meta.OwnerReference{t.owner}}
		if _, err := api.Create(ctx, next); err != nil {
			errs = append(errs, fmt.Errorf("create EndpointSlice for %s/%s: %w", t.namespace, t.service, err))
		}
	}
	for _, list := range byKey {
		for _, s := range list {
			errs = append(errs, deleteSlice(ctx, api, s))
		}
	}
	return errors.Join(errs...)
}

// deleteAll deletes every slice of have.
func deleteAll(ctx context.Context, c *client.Client, namespace string, have []*discovery.EndpointSlice) error {
	api := client.For[discovery.EndpointSlice](c, namespace)
	var errs []error
	for _, s := range have {
		errs = append(errs, deleteSlice(ctx, api, s))
	}
	return errors.Join(errs...)
}

// deleteSlice deletes s if it is still the version read (a slice changed
// meanwhile is looked at again on the next round); gone already is fine.
func deleteSlice(ctx context.Context, api *client.Resource[discovery.EndpointSlice, *discovery.EndpointSlice], s *discovery.EndpointSlice) error {
	err := api.Delete(ctx, s.Name, &meta.DeleteOptions{Preconditions: &meta.Preconditions{UID: &s.UID}})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete EndpointSlice %s/%s: %w", s.Namespace, s.Name, err)
	}
	return nil
}

func ownedBy(s *discovery.EndpointSlice, owner meta.OwnerReference) bool {
	return len(s.OwnerReferences) == 1 && reflect.DeepEqual(s.OwnerReferences[0], owner)
}
