package fieldmanager

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/orkit/orkit/api/meta"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// The operations and the fields type of a managedFields entry.
const (
	OperationApply  = "Apply"
	OperationUpdate = "Update"
	FieldsV1        = "FieldsV1"
	// BeforeFirstApply owns the fields of an object that had no
	// managedFields when it was first applied to.
	BeforeFirstApply = "before-first-apply"
)

// Managed is the decoded form of metadata.managedFields: the field set
// of each manager, keyed by manager identity (see ManagerKey), and the
// time of each manager's last change. A Managed is owned by one request.
type Managed struct {
	Fields fieldpath.ManagedFields
	Times  map[string]*meta.Time
}

// ManagerKey is the identity of a manager as kube-apiserver builds it: the
// JSON of its entry without fieldsType, fieldsV1 and time, and without
// apiVersion for an applier (so that an applier is the same manager
// whatever version it applies).
func ManagerKey(e meta.ManagedFieldsEntry) string {
	e.FieldsType, e.FieldsV1, e.Time = "", nil, nil
	if e.Operation == OperationApply {
		e.APIVersion = ""
	}
	b, _ := json.Marshal(e)
	return string(b)
}

// DecodeManagedFields decodes entries. An entry with an operation other
// than Apply or Update, a fieldsType other than FieldsV1, a malformed
// fieldsV1 or the identity of an earlier entry is ErrInvalidManagedFields.
func DecodeManagedFields(entries []meta.ManagedFieldsEntry) (Managed, error) {
	m := Managed{Fields: fieldpath.ManagedFields{}, Times: map[string]*meta.Time{}}
	for i, e := range entries {
		if e.Operation != OperationApply && e.Operation != OperationUpdate {
			return Managed{}, fmt.Errorf("%w: entry %d: operation %q is neither %s nor %s", ErrInvalidManagedFields, i, e.Operation, OperationApply, OperationUpdate)
		}
		if e.FieldsType != FieldsV1 {
			return Managed{}, fmt.Errorf("%w: entry %d: fieldsType %q, want %s", ErrInvalidManagedFields, i, e.FieldsType, FieldsV1)
		}
		set := &fieldpath.Set{}
		if len(e.FieldsV1) > 0 && !bytes.Equal(bytes.TrimSpace(e.FieldsV1), []byte("null")) {
			if err := set.FromJSON(bytes.NewReader(e.FieldsV1)); err != nil {
				return Managed{}, fmt.Errorf("%w: entry %d: fieldsV1: %v", ErrInvalidManagedFields, i, err)
			}
		}
		key := ManagerKey(e)
		if _, dup := m.Fields[key]; dup {
			return Managed{}, fmt.Errorf("%w: entry %d: manager %s appears twice", ErrInvalidManagedFields, i, key)
		}
		m.Fields[key] = fieldpath.NewVersionedSet(set, fieldpath.APIVersion(e.APIVersion), e.Operation == OperationApply)
		m.Times[key] = e.Time
	}
	return m, nil
}

// Encode returns m as metadata.managedFields, sorted as kube-apiserver
// sorts them (operation, time, manager, apiVersion, subresource);
// managers with empty sets are left out.
func (m Managed) Encode() ([]meta.ManagedFieldsEntry, error) {
	out := make([]meta.ManagedFieldsEntry, 0, len(m.Fields))
	for key, vs := range m.Fields {
		if vs.Set().Empty() {
			continue
		}
		var e meta.ManagedFieldsEntry
		if err := json.Unmarshal([]byte(key), &e); err != nil {
			return nil, fmt.Errorf("%w: manager identity %q: %v", ErrInvalidManagedFields, key, err)
		}
		b, err := vs.Set().ToJSON()
		if err != nil {
			return nil, fmt.Errorf("%w: encode fields of %q: %v", ErrInvalidManagedFields, e.Manager, err)
		}
		e.APIVersion, e.FieldsType, e.FieldsV1, e.Time = string(vs.APIVersion()), FieldsV1, b, m.Times[key]
		out = append(out, e)
	}
	sortEntries(out)
	return out, nil
}

// sortEntries orders entries as kube-apiserver does.
func sortEntries(es []meta.ManagedFieldsEntry) {
	sec := func(t *meta.Time) int64 {
		if t == nil {
			return 0
		}
		return t.Unix()
	}
	sort.SliceStable(es, func(i, j int) bool {
		p, q := es[i], es[j]
		switch {
		case p.Operation != q.Operation:
			return p.Operation < q.Operation
		case sec(p.Time) != sec(q.Time):
			return sec(p.Time) < sec(q.Time)
		case p.Manager != q.Manager:
			return p.Manager < q.Manager
		case p.APIVersion != q.APIVersion:
			return p.APIVersion < q.APIVersion
		}
		return p.Subresource < q.Subresource
	})
}
