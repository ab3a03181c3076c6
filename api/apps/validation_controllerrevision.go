package apps

import (
	"bytes"
	"encoding/json"
	"reflect"

	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/validation"
)

// ValidateControllerRevision checks a new ControllerRevision: data is
// required and revision is non-negative.
func ValidateControllerRevision(r *ControllerRevision) field.ErrorList {
	errs := validation.ValidateObjectMeta(&r.ObjectMeta, true, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	if len(r.Data) == 0 || bytes.Equal(r.Data, []byte("null")) {
		errs = append(errs, field.Required(field.NewPath("data"), "data is mandatory"))
	}
	return append(errs, validation.ValidateNonnegativeField(r.Revision, field.NewPath("revision"))...)
}

// ValidateControllerRevisionUpdate checks r as a replacement for old; data
// is immutable.
func ValidateControllerRevisionUpdate(r, old *ControllerRevision) field.ErrorList {
	errs := validation.ValidateObjectMetaUpdate(&r.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	errs = append(errs, ValidateControllerRevision(r)...)
	if !jsonEqual(r.Data, old.Data) {
		errs = append(errs, field.Invalid(field.NewPath("data"), string(r.Data), "field is immutable"))
	}
	return errs
}

// jsonEqual reports whether a and b hold the same JSON value: a patch of
// the revision's metadata re-encodes data, which may order its keys or
// space it differently (Kubernetes keeps the bytes; orkit compares values).
func jsonEqual(a, b []byte) bool {
	var va, vb any
	da, db := json.NewDecoder(bytes.NewReader(a)), json.NewDecoder(bytes.NewReader(b))
	da.UseNumber()
	db.UseNumber()
	if da.Decode(&va) != nil || db.Decode(&vb) != nil {
		return bytes.Equal(compactJSON(a), compactJSON(b))
	}
	return reflect.DeepEqual(va, vb)
}

func compactJSON(b []byte) []byte {
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		return b
	}
	return out.Bytes()
}
