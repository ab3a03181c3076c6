package controlplane

import (
	"context"

	"github.com/orkit/orkit/admission"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/networking"
	"github.com/orkit/orkit/apiserver"
)

var ingressClassesGVR = networking.GroupVersion().WithResource("ingressclasses")

// ingressClasses lists IngressClasses for the DefaultIngressClass
// admission plugin from the API server's watch cache (none while the
// cache is not there, so an Ingress then gets no default).
type ingressClasses struct{ srv *apiserver.Server }

var _ admission.IngressClassLister = ingressClasses{}

// ListIngressClasses implements admission.IngressClassLister.
func (s ingressClasses) ListIngressClasses(context.Context) ([]*networking.IngressClass, error) {
	var out []*networking.IngressClass
	if c, ok := s.srv.Cache(ingressClassesGVR); ok && c != nil {
		c.Objects(func(o meta.Object) {
			if ic, ok := o.(*networking.IngressClass); ok {
				out = append(out, ic)
			}
		})
	}
	return out, nil
}
