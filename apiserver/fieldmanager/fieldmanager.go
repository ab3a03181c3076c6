package fieldmanager

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/orkit/orkit/api/meta"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/merge"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
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
	// ResetFields are top-level fields that writes through this endpoint
	// cannot change and so never own, as kube-apiserver's strategies reset
	// them: "status" for a resource with a status subresource, "spec" and
	// "metadata" for its status subresource. Zero: none.
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
		reset.Insert(fieldpath.MakePathOrDie(f))
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
	liveTV, err := f.cfg.TypeConverter.FromUnstructured(withoutManagedFields(live), true)
	if err != nil {
		return nil, err
	}
	nextTV, err := f.cfg.TypeConverter.FromUnstructured(withoutManagedFields(next), true)
	if err != nil {
		return nil, err
	}
	key := ManagerKey(meta.ManagedFieldsEntry{Manager: manager, Operation: OperationUpdate, APIVersion: f.cfg.APIVersion, Subresource: f.cfg.Subresource})
	before := managed.Fields.Copy()
	_, fields, err := f.updater.Update(liveTV, nextTV, f.version, managed.Fields.Copy(), key)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidObject, err)
	}
	return f.finish(before, fields, managed.Times, key)
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
	entries, err := f.finish(before, fields, managed.Times, key)
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

// finish strips the fields nobody owns from manager's set, stamps the
// time of every manager whose set changed, and encodes the result.
func (f *FieldManager) finish(before, fields fieldpath.ManagedFields, times map[string]*meta.Time, manager string) ([]meta.ManagedFieldsEntry, error) {
	if vs, ok := fields[manager]; ok {
		set := vs.Set().Difference(f.strip)
		if set.Empty() {
			delete(fields, manager)
		} else {
			fields[manager] = fieldpath.NewVersionedSet(set, vs.APIVersion(), vs.Applied())
		}
	}
	now := f.cfg.Now()
	out := Managed{Fields: fields, Times: map[string]*meta.Time{}}
	for key, vs := range fields {
		out.Times[key] = times[key]
		if old, ok := before[key]; !ok || !old.Set().Equals(vs.Set()) || old.APIVersion() != vs.APIVersion() {
			t := now
			out.Times[key] = &t
		}
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
