package fieldmanager

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/orkit/orkit/api/meta"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/merge"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// Config describes the writes one FieldManager records: one resource (or
// one subresource of it) in one API version.
type Config struct {
	// TypeConverter types the objects. Required.
	TypeConverter *TypeConverter
	// APIVersion is the group/version objects are written in ("v1",
	// "apps/v1"); it is recorded in every entry. Required.
	APIVersion string
	// Subresource is the subresource whose writes are recorded ("status"),
	// or "" for the resource itself.
	Subresource string
	// ResetFields are fields (dotted paths: "status", "metadata.labels")
	// that writes through this endpoint cannot change and so never own, as
	// kube-apiserver's strategies reset them: "status" for a resource with
	// a status subresource; "spec" and the metadata the status strategy
	// keeps for its status subresource. Zero: none.
	ResetFields []string
	// Now returns the time recorded for a manager whose fields changed.
	// Nil means meta.Now.
	Now func() meta.Time
}

// FieldManager records field ownership for the writes of one resource and
// performs server-side apply. It is immutable and safe for concurrent
// use; its methods do not modify their arguments.
type FieldManager struct {
	cfg     Config
	updater *merge.Updater
	version fieldpath.APIVersion
	strip   *fieldpath.Set
	reset   *fieldpath.Set
}

// New returns a FieldManager for cfg; a missing TypeConverter or
// APIVersion is an error.
func New(cfg Config) (*FieldManager, error) {
	if cfg.TypeConverter == nil || cfg.APIVersion == "" {
		return nil, errors.New("fieldmanager: Config needs a TypeConverter and an APIVersion")
	}
	if cfg.Now == nil {
		cfg.Now = meta.Now
	}
	version := fieldpath.APIVersion(cfg.APIVersion)
	reset := fieldpath.NewSet()
	for _, f := range cfg.ResetFields {
		var parts []any
		for _, p := range strings.Split(f, ".") {
			parts = append(parts, p)
		}
		reset.Insert(fieldpath.MakePathOrDie(parts...))
	}
	b := &merge.UpdaterBuilder{
		Converter:         identityConverter{},
		IgnoreFilter:      map[fieldpath.APIVersion]fieldpath.Filter{version: fieldpath.NewExcludeSetFilter(reset)},
		ReturnInputOnNoop: true,
	}
	return &FieldManager{cfg: cfg, updater: b.BuildUpdater(), version: version, strip: stripSet(), reset: reset}, nil
}

// stripSet are the fields no manager owns, as kube-apiserver strips them.
func stripSet() *fieldpath.Set {
	s := fieldpath.NewSet(fieldpath.MakePathOrDie("apiVersion"), fieldpath.MakePathOrDie("kind"), fieldpath.MakePathOrDie("metadata"))
	for _, f := range []string{"name", "namespace", "creationTimestamp", "selfLink", "uid", "clusterName", "generation", "managedFields", "resourceVersion"} {
		s.Insert(fieldpath.MakePathOrDie("metadata", f))
	}
	return s
}

// Result is what Apply returns: the merged object in unstructured form
// (without metadata.managedFields) and its new managedFields.
type Result struct {
	Object        map[string]any
	ManagedFields []meta.ManagedFieldsEntry
}

// Update records an ordinary write (create, update, patch) of next over
// live by manager (operation Update) and returns next's managedFields:
// the fields that changed become manager's. live is the empty object on
// create. As in kube-apiserver, managedFields that next carries replace
// live's when they decode and are not empty (a client may edit them; a
// single empty entry clears them), except on a subresource.
func (f *FieldManager) Update(live, next map[string]any, manager string) ([]meta.ManagedFieldsEntry, error) {
	managed, err := f.managedForUpdate(live, next)
	if err != nil {
		return nil, err
	}
	// Only what differs is typed and compared (see pruneEqual).
	liveP, nextP := pruneEqual(withoutManagedFields(live), withoutManagedFields(next))
	liveTV, err := f.cfg.TypeConverter.FromUnstructured(liveP, true)
	if err != nil {
		return nil, err
	}
	nextTV, err := f.cfg.TypeConverter.FromUnstructured(nextP, true)
	if err != nil {
		return nil, err
	}
	key := ManagerKey(meta.ManagedFieldsEntry{Manager: manager, Operation: OperationUpdate, APIVersion: f.cfg.APIVersion, Subresource: f.cfg.Subresource})
	// As kube-apiserver does, the write's own changes are collected under
	// a temporary manager and then added to the manager's earlier fields;
	// the manager's time moves only when it changed something.
	_, fields, err := f.updater.Update(liveTV, nextTV, f.version, managed.Fields.Copy(), currentOperation)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidObject, err)
	}
	changed := false
	if vs, ok := fields[currentOperation]; ok {
		delete(fields, currentOperation)
		set := vs.Set().Difference(f.strip)
		if !set.Empty() {
			changed = true
			if prev, ok := fields[key]; ok {
				set = set.Union(prev.Set())
			}
			fields[key] = fieldpath.NewVersionedSet(set, vs.APIVersion(), false)
		}
	}
	out := Managed{Fields: fields, Times: copyTimes(managed.Times)}
	if changed {
		t := f.cfg.Now()
		out.Times[key] = &t
	}
	capUpdateManagers(out, maxUpdateManagers)
	return out.Encode()
}

// currentOperation is the temporary manager of an update's changes.
const currentOperation = "current-operation"

// maxUpdateManagers is how many Update managers an object keeps; older
// ones are merged into AncientChanges, as in kube-apiserver.
const maxUpdateManagers = 10

// AncientChanges owns the fields of the oldest Update managers once an
// object has more than ten.
const AncientChanges = "ancient-changes"

// capUpdateManagers merges the oldest Update managers of m into one
// AncientChanges manager per API version until at most max remain.
func capUpdateManagers(m Managed, max int) {
	var updaters []string
	for k, vs := range m.Fields {
		if !vs.Applied() {
			updaters = append(updaters, k)
		}
	}
	if len(updaters) <= max {
		return
	}
	sec := func(k string) int64 {
		if t := m.Times[k]; t != nil {
			return t.Unix()
		}
		return 0
	}
	sort.Slice(updaters, func(i, j int) bool {
		if a, b := sec(updaters[i]), sec(updaters[j]); a != b {
			return a < b
		}
		return updaters[i] < updaters[j]
	})
	for _, k := range updaters {
		if len(updaterKeys(m)) <= max {
			return
		}
		vs := m.Fields[k]
		bucket := ManagerKey(meta.ManagedFieldsEntry{Manager: AncientChanges, Operation: OperationUpdate, APIVersion: string(vs.APIVersion())})
		if k == bucket {
			continue
		}
		set := vs.Set()
		if prev, ok := m.Fields[bucket]; ok {
			set = set.Union(prev.Set())
		}
		m.Fields[bucket] = fieldpath.NewVersionedSet(set, vs.APIVersion(), false)
		if t := m.Times[k]; t != nil && (m.Times[bucket] == nil || t.After(m.Times[bucket].Time)) {
			m.Times[bucket] = t
		}
		delete(m.Fields, k)
		delete(m.Times, k)
	}
}

// updaterKeys returns the Update managers of m.
func updaterKeys(m Managed) []string {
	var out []string
	for k, vs := range m.Fields {
		if !vs.Applied() {
			out = append(out, k)
		}
	}
	return out
}

func copyTimes(in map[string]*meta.Time) map[string]*meta.Time {
	out := make(map[string]*meta.Time, len(in))
	for k, v := range in {
		out[k] = v
	}
	return out
}

// managedForUpdate picks the managedFields an update starts from.
func (f *FieldManager) managedForUpdate(live, next map[string]any) (Managed, error) {
	nextEntries, err := entriesOf(next)
	if err == nil && f.cfg.Subresource == "" && len(nextEntries) > 0 {
		if len(nextEntries) == 1 && isZeroEntry(nextEntries[0]) {
			return DecodeManagedFields(nil)
		}
		if m, err := DecodeManagedFields(nextEntries); err == nil && len(m.Fields) > 0 {
			return m, nil
		}
	}
	liveEntries, err := entriesOf(live)
	if err != nil {
		return Managed{}, err
	}
	m, err := DecodeManagedFields(liveEntries)
	if err != nil {
		// Unreadable stored ownership is dropped rather than blocking
		// every write, as kube-apiserver does.
		return DecodeManagedFields(nil)
	}
	return m, nil
}

func isZeroEntry(e meta.ManagedFieldsEntry) bool {
	return e.Manager == "" && e.Operation == "" && e.APIVersion == "" && e.Time == nil && e.FieldsType == "" && len(e.FieldsV1) == 0 && e.Subresource == ""
}

// Apply merges config, an apply configuration in unstructured form, into
// live for manager (operation Apply). Fields manager applied before and
// no longer applies are removed unless another manager owns them. A field
// another manager owns with a different value is a conflict: a
// *ConflictError (ErrConflict) unless force, which takes the field over.
// creating says live is the empty object of a create. A config that does
// not fit the schema, or that carries metadata.managedFields, is
// ErrInvalidObject; unreadable live managedFields are
// ErrInvalidManagedFields.
func (f *FieldManager) Apply(live, config map[string]any, manager string, force, creating bool) (Result, error) {
	if entries, err := entriesOf(config); err != nil || len(entries) > 0 {
		return Result{}, fmt.Errorf("%w: metadata.managedFields must be nil", ErrInvalidObject)
	}
	liveEntries, err := entriesOf(live)
	if err != nil {
		return Result{}, err
	}
	managed, err := DecodeManagedFields(liveEntries)
	if err != nil {
		return Result{}, err
	}
	liveTV, err := f.cfg.TypeConverter.FromUnstructured(withoutManagedFields(live), true)
	if err != nil {
		return Result{}, err
	}
	configTV, err := f.cfg.TypeConverter.FromUnstructured(config, false)
	if err != nil {
		return Result{}, err
	}
	if len(managed.Fields) == 0 && !creating {
		if err := f.ownBeforeFirstApply(managed, liveTV); err != nil {
			return Result{}, err
		}
	}
	key := ManagerKey(meta.ManagedFieldsEntry{Manager: manager, Operation: OperationApply, Subresource: f.cfg.Subresource})
	before := managed.Fields.Copy()
	out, fields, err := f.updater.Apply(liveTV, configTV, f.version, managed.Fields.Copy(), key, force)
	var conflicts merge.Conflicts
	if errors.As(err, &conflicts) {
		out, fields, err = f.forgiveLastApplied(live, liveTV, configTV, managed.Fields.Copy(), key, conflicts)
	}
	if err != nil {
		if errors.As(err, &conflicts) {
			return Result{}, &ConflictError{Conflicts: conflicts}
		}
		return Result{}, fmt.Errorf("%w: %v", ErrInvalidObject, err)
	}
	entries, err := f.finishApply(before, fields, managed.Times, key, !value.Equals(liveTV.AsValue(), out.AsValue()))
	if err != nil {
		return Result{}, err
	}
	merged := ToUnstructured(out)
	if err := syncLastApplied(live, config, merged, manager); err != nil {
		return Result{}, err
	}
	return Result{Object: merged, ManagedFields: entries}, nil
}

// ownBeforeFirstApply gives every field of an object that has no
// managedFields to BeforeFirstApply, so that a first apply conflicts with
// values set before ownership was tracked.
func (f *FieldManager) ownBeforeFirstApply(managed Managed, live *typed.TypedValue) error {
	set, err := live.ToFieldSet()
	if err != nil {
		return fmt.Errorf("%w: %v", ErrInvalidObject, err)
	}
	set = set.RecursiveDifference(f.reset).Difference(f.strip)
	if set.Empty() {
		return nil
	}
	key := ManagerKey(meta.ManagedFieldsEntry{Manager: BeforeFirstApply, Operation: OperationUpdate, APIVersion: f.cfg.APIVersion})
	managed.Fields[key] = fieldpath.NewVersionedSet(set, f.version, false)
	return nil
}

// finishApply strips the fields nobody owns from the applier's set and
// encodes the result; the applier's time moves when the object or its
// fields changed, as kube-apiserver keeps times of no-op writes.
func (f *FieldManager) finishApply(before, fields fieldpath.ManagedFields, times map[string]*meta.Time, manager string, objectChanged bool) ([]meta.ManagedFieldsEntry, error) {
	out := Managed{Fields: fields, Times: copyTimes(times)}
	vs, ok := fields[manager]
	if !ok {
		return out.Encode()
	}
	set := vs.Set().Difference(f.strip)
	if set.Empty() {
		delete(fields, manager)
		return out.Encode()
	}
	fields[manager] = fieldpath.NewVersionedSet(set, vs.APIVersion(), true)
	old, had := before[manager]
	if objectChanged || !had || !old.Set().Equals(set) || old.APIVersion() != vs.APIVersion() {
		t := f.cfg.Now()
		out.Times[manager] = &t
	}
	return out.Encode()
}

// entriesOf reads metadata.managedFields of an unstructured object.
func entriesOf(obj map[string]any) ([]meta.ManagedFieldsEntry, error) {
	md, _ := obj["metadata"].(map[string]any)
	raw, ok := md["managedFields"]
	if !ok || raw == nil {
		return nil, nil
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidManagedFields, err)
	}
	var out []meta.ManagedFieldsEntry
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidManagedFields, err)
	}
	return out, nil
}

// withoutManagedFields returns obj without metadata.managedFields,
// copying only what it changes.
func withoutManagedFields(obj map[string]any) map[string]any {
	md, ok := obj["metadata"].(map[string]any)
	if !ok {
		return obj
	}
	if _, ok := md["managedFields"]; !ok {
		return obj
	}
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		out[k] = v
	}
	m := make(map[string]any, len(md))
	for k, v := range md {
		if k != "managedFields" {
			m[k] = v
		}
	}
	out["metadata"] = m
	return out
}

// identityConverter converts between versions by not converting: each
// kind is served in one version.
type identityConverter struct{}

func (identityConverter) Convert(v *typed.TypedValue, _ fieldpath.APIVersion) (*typed.TypedValue, error) {
	return v, nil
}

func (identityConverter) IsMissingVersionError(error) bool { return false }
