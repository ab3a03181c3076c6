package admission

import (
	"context"
	"fmt"

	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/authn"
)

// Operation is what a request does to an object.
type Operation string

// The operations admission sees.
const (
	Create  Operation = "CREATE"
	Update  Operation = "UPDATE"
	Delete  Operation = "DELETE"
	Connect Operation = "CONNECT"
)

// Attributes describe one request for admission. Object is the object being
// written (nil on delete), OldObject the current one (nil on create).
// Mutators may change Object in place.
type Attributes struct {
	Operation   Operation
	Kind        meta.GroupVersionKind
	Resource    meta.GroupVersionResource
	Subresource string
	Namespace   string
	Name        string
	Object      meta.Object
	OldObject   meta.Object
	User        *authn.User
	DryRun      bool
}

// Plugin is what every admission plugin has: a name and the operations it
// wants to see.
type Plugin interface {
	Name() string
	Handles(op Operation) bool
}

// Mutator is a plugin that may change the object (defaults, injection).
type Mutator interface {
	Plugin
	Admit(ctx context.Context, a *Attributes) error
}

// Validator is a plugin that only accepts or rejects.
type Validator interface {
	Plugin
	Validate(ctx context.Context, a *Attributes) error
}

// Chain runs mutators in order, then validators in order; the first error
// rejects. The zero Chain admits everything.
type Chain struct {
	Mutators   []Mutator
	Validators []Validator
}

// Admit runs the mutating plugins that handle a.Operation.
func (c *Chain) Admit(ctx context.Context, a *Attributes) error {
	for _, m := range c.Mutators {
		if !m.Handles(a.Operation) {
			continue
		}
		if err := m.Admit(ctx, a); err != nil {
			return wrap(m, err)
		}
	}
	return nil
}

// Validate runs the validating plugins that handle a.Operation.
func (c *Chain) Validate(ctx context.Context, a *Attributes) error {
	for _, v := range c.Validators {
		if !v.Handles(a.Operation) {
			continue
		}
		if err := v.Validate(ctx, a); err != nil {
			return wrap(v, err)
		}
	}
	return nil
}

// Releaser is an optional ability of a Validator that reserves something
// when it admits a create (ResourceQuota's usage): the server calls
// Release when the create fails after admission.
type Releaser interface {
	Release(ctx context.Context, a *Attributes) error
}

// Release calls Release on every validator of the chain that has it.
func (c *Chain) Release(ctx context.Context, a *Attributes) {
	for _, v := range c.Validators {
		if r, ok := v.(Releaser); ok && v.Handles(a.Operation) {
			_ = r.Release(ctx, a)
		}
	}
}

// Rejection is the error of a plugin that refused a request. The API server
// turns it into a 403 Forbidden Status (or keeps the plugin's own Status
// when it returned one).
type Rejection struct {
	Plugin string
	Err    error
}

func (r *Rejection) Error() string {
	return fmt.Sprintf("admission plugin %q denied the request: %v", r.Plugin, r.Err)
}

// Unwrap returns the plugin's error.
func (r *Rejection) Unwrap() error { return r.Err }

func wrap(p Plugin, err error) error { return &Rejection{Plugin: p.Name(), Err: err} }

// Handler is a base for plugins: embed it and set the name and operations.
type Handler struct {
	PluginName string
	Operations []Operation
}

// Name returns the plugin name.
func (h Handler) Name() string { return h.PluginName }

// Handles reports whether op is among the operations.
func (h Handler) Handles(op Operation) bool {
	for _, o := range h.Operations {
		if o == op {
			return true
		}
	}
	return false
}
