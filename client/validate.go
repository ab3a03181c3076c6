package client

import (
	"encoding/json"
	"fmt"
	"github.com/orkit/orkit/api"
	"reflect"
	"slices"

	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheme"
)

// ValidationError is returned when an object fails client-side
// validation: nothing was sent. Status is the Status the server would have
// answered with — Invalid (422), so apierrors.IsInvalid(err) holds, or
// BadRequest (400) for an untyped object that does not decode into its
// kind — and errors.As finds it.
type ValidationError struct {
	// Request is the request that was not sent ("POST /api/v1/namespaces/default/pods").
	Request string
	Status  *meta.Status
}

// Error returns the request and the Status message.
func (e *ValidationError) Error() string { return e.Request + ": " + e.Status.Error() }

// Unwrap returns the Status.
func (e *ValidationError) Unwrap() error { return e.Status }

// generatedNameStandIn stands in for the random suffix the server adds to
// a generateName before it validates.
const generatedNameStandIn = "xxxxx"

// validationCopy returns obj decoded into a new value of t's kind, prepared
// as the server prepares it before validating: namespace from the request,
// defaults applied, generation set, status cleared where a status
// subresource owns it. obj itself is never modified. It returns the
// BadRequest Status the server would send for an object it cannot decode.
func validationCopy(t *scheme.Type, obj meta.Object, ns string) (meta.Object, error) {
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("%w: encode %s: %w", ErrRequest, t.Kind.Kind, err)
	}
	cp := t.New()
	if err := json.Unmarshal(b, cp); err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the object provided is unrecognized or malformed: %v", err))
	}
	cp.GetTypeMeta().SetGroupVersionKind(t.Kind)
	m := cp.GetObjectMeta()
	if t.Namespaced && m.Namespace == "" {
		m.Namespace = ns
	} else if !t.Namespaced {
		m.Namespace = ""
	}
	if t.Default != nil {
		t.Default(cp)
	}
	if m.Generation == 0 && !api.IsCreateOnly(t.GroupVersionResource().GroupResource()) {
		m.Generation = 1 // reviews keep empty metadata, which their validation requires
	}
	if slices.Contains(t.Subresources, "status") {
		if f := reflect.ValueOf(cp).Elem().FieldByName("Status"); f.IsValid() && f.CanSet() {
			f.Set(reflect.Zero(f.Type()))
		}
	}
	return cp, nil
}

// validateCreate runs the scheme's Validate on obj as the server would
// before creating it. It returns nil when validation is off or the kind
// has none.
func (c *Client) validateCreate(t *scheme.Type, obj meta.Object, ns, req string) error {
	if !c.validate || t == nil || t.Validate == nil {
		return nil
	}
	cp, err := validationCopy(t, obj, ns)
	if err != nil {
		return c.invalid(req, err)
	}
	m := cp.GetObjectMeta()
	m.ResourceVersion, m.UID = "", ""
	if m.Name == "" && m.GenerateName != "" {
		m.Name = m.GenerateName + generatedNameStandIn
	}
	return c.invalid(req, fieldErrors(t, m.Name, t.Validate(cp)))
}

// validateUpdate runs the scheme's ValidateUpdate on obj as a replacement
// of itself (the client has no stored object): every check except the
// ones comparing against the old object.
func (c *Client) validateUpdate(t *scheme.Type, obj meta.Object, ns, req string) error {
	if !c.validate || t == nil || (t.Validate == nil && t.ValidateUpdate == nil) {
		return nil
	}
	cp, err := validationCopy(t, obj, ns)
	if err != nil {
		return c.invalid(req, err)
	}
	name := cp.GetObjectMeta().Name
	if t.ValidateUpdate == nil {
		return c.invalid(req, fieldErrors(t, name, t.Validate(cp)))
	}
	old := meta.DeepCopy(cp)
	return c.invalid(req, fieldErrors(t, name, t.ValidateUpdate(cp, old)))
}

func fieldErrors(t *scheme.Type, name string, errs field.ErrorList) error {
	if len(errs) == 0 {
		return nil
	}
	return apierrors.NewInvalid(t.Kind, name, errs)
}

// invalid wraps a Status from client-side validation in a ValidationError.
func (c *Client) invalid(req string, err error) error {
	if err == nil {
		return nil
	}
	if st := apierrors.FromError(err); st != nil {
		return &ValidationError{Request: req, Status: st}
	}
	return err
}
