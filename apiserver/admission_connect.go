package apiserver

import (
	"context"
	"encoding/json"

	"github.com/orkit/orkit/admission"
	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
)

// connectObject is what admission sees as the object of a CONNECT
// request (pods/exec, attach, portforward): the request's options
// (PodExecOptions, ...), encoded as JSON with their kind, as
// kube-apiserver sends them to webhooks. It has no metadata of its own;
// a mutating webhook's patch replaces the encoded options.
type connectObject struct {
	tm  meta.TypeMeta
	om  meta.ObjectMeta
	raw json.RawMessage
}

func (c *connectObject) GetTypeMeta() *meta.TypeMeta     { return &c.tm }
func (c *connectObject) GetObjectMeta() *meta.ObjectMeta { return &c.om }

// MarshalJSON is the options as encoded.
func (c *connectObject) MarshalJSON() ([]byte, error) { return c.raw, nil }

// UnmarshalJSON takes the options as a webhook left them.
func (c *connectObject) UnmarshalJSON(b []byte) error {
	c.raw = append(json.RawMessage(nil), b...)
	return nil
}

// admitConnect runs the admission chain (mutating, then validating) for
// a CONNECT to pod's subresource with opts (a pointer to the options
// struct, its TypeMeta set to kind), as kube-apiserver does before it
// proxies the stream; a webhook's changes to the options are decoded back
// into opts. Denials come back as admission errors.
func (s *Server) admitConnect(ctx context.Context, req *Request, pod *core.Pod, kind string, opts any) error {
	raw, err := json.Marshal(opts)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	obj := &connectObject{tm: meta.TypeMeta{APIVersion: "v1", Kind: kind}, raw: raw}
	attrs := &admission.Attributes{
		Operation: admission.Connect, Kind: meta.GroupVersionKind{Version: "v1", Kind: kind},
		Resource: req.resource.Type.GroupVersionResource(), Subresource: req.Info.Subresource,
		Namespace: pod.Namespace, Name: pod.Name, Object: obj, User: req.User,
	}
	if err := s.admission.Admit(ctx, attrs); err != nil {
		return admissionError(req.resource, pod.Name, err)
	}
	if err := s.admission.Validate(ctx, attrs); err != nil {
		return admissionError(req.resource, pod.Name, err)
	}
	if c, ok := attrs.Object.(*connectObject); ok && c.raw != nil {
		if err := json.Unmarshal(c.raw, opts); err != nil {
			return apierrors.NewBadRequest("the options a webhook returned do not decode: " + err.Error())
		}
	}
	return nil
}
