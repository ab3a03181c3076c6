package metricsserver

import (
	"context"
	"fmt"
	"net/netip"

	"github.com/orkit/orkit/api/apiregistration"
	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/metrics"
	"github.com/orkit/orkit/client"
)

// Registration is how a metrics server is made known to the API server:
// an ExternalName Service named Name in Namespace pointing at localhost
// on Addr's port (Addr must be a loopback address), and the APIService v1beta1.metrics.k8s.io naming the
// Service with CABundle (the PEM of the CA that signed the serving
// certificate for <Name>.<Namespace>.svc).
type Registration struct {
	Namespace, Name string
	Addr            netip.AddrPort
	CABundle        []byte
}

// Register creates or updates the Service, Endpoints and APIService of r
// through c (an identity allowed to write them, such as an admin).
func Register(ctx context.Context, c *client.Client, r Registration) error {
	if r.Namespace == "" || r.Name == "" || !r.Addr.IsValid() || !r.Addr.Addr().IsLoopback() || len(r.CABundle) == 0 {
		return fmt.Errorf("%w: a registration needs a namespace, name, loopback address and CA bundle", ErrInvalidConfig)
	}
	// The server listens on a loopback address, which Endpoints may not
	// hold: an ExternalName Service to localhost on the server's port
	// points the API server at it, as kube-aggregator resolves them.
	port := core.ServicePort{Name: "https", Port: int32(r.Addr.Port()), Protocol: core.ProtocolTCP}
	svc := &core.Service{ObjectMeta: meta.ObjectMeta{Namespace: r.Namespace, Name: r.Name, Labels: map[string]string{"k8s-app": r.Name}},
		Spec: core.ServiceSpec{Type: core.ServiceTypeExternalName, ExternalName: "localhost", Ports: []core.ServicePort{port}}}
	if err := upsert(ctx, client.For[core.Service](c, r.Namespace), svc, func(cur *core.Service) { cur.Spec = svc.Spec }); err != nil {
		return err
	}
	p := int32(r.Addr.Port())
	as := &apiregistration.APIService{
		ObjectMeta: meta.ObjectMeta{Name: apiregistration.Name(metrics.GroupName, metrics.Version), Labels: map[string]string{"k8s-app": r.Name}},
		Spec: apiregistration.APIServiceSpec{
			Service: &apiregistration.ServiceReference{Namespace: r.Namespace, Name: r.Name, Port: &p},
			Group:   metrics.GroupName, Version: metrics.Version, CABundle: r.CABundle,
			GroupPriorityMinimum: 100, VersionPriority: 100,
		},
	}
	return upsert(ctx, client.For[apiregistration.APIService](c, ""), as, func(cur *apiregistration.APIService) { cur.Spec = as.Spec })
}

// upsert creates obj, or updates the existing object with set.
func upsert[T any, PT interface {
	*T
	meta.Object
}](ctx context.Context, r *client.Resource[T, PT], obj PT, set func(PT)) error {
	_, err := r.Create(ctx, obj)
	if err == nil || !apierrors.IsAlreadyExists(err) {
		return wrapRegister(obj, err)
	}
	// Several servers register at once, and the aggregator writes the
	// APIService's status: retry a conflicting update on the latest.
	for attempt := 0; ; attempt++ {
		cur, err := r.Get(ctx, obj.GetObjectMeta().Name)
		if err != nil {
			return wrapRegister(obj, err)
		}
		set(cur)
		_, err = r.Update(ctx, cur)
		if err == nil || !apierrors.IsConflict(err) || attempt >= 9 {
			return wrapRegister(obj, err)
		}
	}
}

func wrapRegister(obj meta.Object, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("register metrics server: %T %q: %w", obj, obj.GetObjectMeta().Name, err)
}
