package admission

import (
	"fmt"
	"sort"
	"strings"

	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
)

// forbidden words err as Kubernetes' admission.NewForbidden does:
// `pods "web" is forbidden: <err>` (403), or `pods is forbidden: <err>`
// when the request names no object.
func forbidden(a *Attributes, err error) *meta.Status {
	gr := a.Resource.GroupResource()
	name := a.Name
	if name == "" && a.Object != nil {
		name = a.Object.GetObjectMeta().Name
	}
	var msg string
	switch {
	case gr.Resource == "":
		msg = fmt.Sprintf("forbidden: %v", err)
	case name == "":
		msg = fmt.Sprintf("%s is forbidden: %v", gr, err)
	default:
		msg = fmt.Sprintf("%s %q is forbidden: %v", gr, name, err)
	}
	return apierrors.NewForbidden(gr, name, msg)
}

// wrongType reports a request whose object is not the Go type its
// resource promises, as a 400 that wraps ErrWrongType in its text.
func wrongType(a *Attributes, want string) *meta.Status {
	return apierrors.NewBadRequest(fmt.Sprintf("resource %s was marked with kind %s but was unable to be converted: %v",
		a.Resource.GroupResource(), want, ErrWrongType))
}

// aggregate joins errors as Kubernetes' utilerrors.NewAggregate prints
// them: one message alone, several as "[a, b]", duplicates dropped. It
// returns nil for no errors.
func aggregate(errs []error) error {
	var msgs []string
	seen := map[string]bool{}
	for _, e := range errs {
		if m := e.Error(); !seen[m] {
			seen[m] = true
			msgs = append(msgs, m)
		}
	}
	switch len(msgs) {
	case 0:
		return nil
	case 1:
		return &aggregateError{msg: msgs[0], errs: errs}
	}
	return &aggregateError{msg: "[" + strings.Join(msgs, ", ") + "]", errs: errs}
}

// aggregateError is several plugin errors reported as one.
type aggregateError struct {
	msg  string
	errs []error
}

// Error returns the joined messages.
func (e *aggregateError) Error() string { return e.msg }

// Unwrap returns the errors joined.
func (e *aggregateError) Unwrap() []error { return e.errs }

// sortedKeys returns the keys of m in order.
func sortedKeys[K ~string, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	return keys
}
