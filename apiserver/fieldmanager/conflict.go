package fieldmanager

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/orkit/orkit/api/meta"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/merge"
)

// ConflictError is an apply that would take fields other managers own.
// Its message is kube-apiserver's ("Apply failed with 1 conflict: conflict
// with \"kubectl\": .spec.replicas"); Causes gives one per field for the
// 409 Status. It matches ErrConflict with errors.Is.
type ConflictError struct {
	Conflicts merge.Conflicts
}

// Cause is one conflicting field: the manager that owns it, as
// kube-apiserver prints it, and the field's path.
type Cause struct {
	Message string
	Field   string
}

// Error returns kube-apiserver's message.
func (e *ConflictError) Error() string {
	cs := e.Conflicts
	if len(cs) == 1 {
		return fmt.Sprintf("Apply failed with 1 conflict: conflict with %v: %v", printManager(cs[0].Manager), cs[0].Path)
	}
	byManager := map[string][]fieldpath.Path{}
	for _, c := range cs {
		byManager[c.Manager] = append(byManager[c.Manager], c.Path)
	}
	managers := make([]string, 0, len(byManager))
	for m := range byManager {
		managers = append(managers, m)
	}
	sort.Strings(managers)
	var lines []string
	for _, m := range managers {
		lines = append(lines, fmt.Sprintf("conflicts with %v:", printManager(m)))
		for _, p := range byManager[m] {
			lines = append(lines, fmt.Sprintf("- %v", p))
		}
	}
	return fmt.Sprintf("Apply failed with %d conflicts: %s", len(cs), strings.Join(lines, "\n"))
}

// Is makes errors.Is(err, ErrConflict) hold.
func (e *ConflictError) Is(target error) bool { return target == ErrConflict }

// Causes returns one cause per conflicting field.
func (e *ConflictError) Causes() []Cause {
	out := make([]Cause, 0, len(e.Conflicts))
	for _, c := range e.Conflicts {
		out = append(out, Cause{Message: "conflict with " + printManager(c.Manager), Field: c.Path.String()})
	}
	return out
}

// printManager prints a manager identity as kube-apiserver does: its
// quoted name, its subresource, and for an updater the API version and
// time it last wrote.
func printManager(key string) string {
	var e meta.ManagedFieldsEntry
	if err := json.Unmarshal([]byte(key), &e); err != nil {
		return fmt.Sprintf("%q", key)
	}
	s := fmt.Sprintf("%q", e.Manager)
	if e.Subresource != "" {
		s = fmt.Sprintf("%s with subresource %q", s, e.Subresource)
	}
	if e.Operation == OperationUpdate {
		if e.Time == nil {
			return fmt.Sprintf("%s using %v", s, e.APIVersion)
		}
		return fmt.Sprintf("%s using %v at %v", s, e.APIVersion, e.Time.UTC().Format("2006-01-02T15:04:05Z07:00"))
	}
	return s
}
