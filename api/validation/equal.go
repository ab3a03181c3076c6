package validation

import (
	"reflect"
	"time"

	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/resource"
)

var (
	quantityType  = reflect.TypeFor[resource.Quantity]()
	timeType      = reflect.TypeFor[time.Time]()
	metaTimeType  = reflect.TypeFor[meta.Time]()
	microTimeType = reflect.TypeFor[meta.MicroTime]()
)

// SemanticEqual reports whether a and b hold the same API value. It is
// reflect.DeepEqual with the API's notion of sameness: quantities compare
// by value ("1" equals "1000m"), timestamps by instant, and a nil slice or
// map equals an empty one. Like reflect.DeepEqual it does not terminate on
// cyclic values, which API objects never are.
func SemanticEqual(a, b any) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return semanticEqual(reflect.ValueOf(a), reflect.ValueOf(b))
}

func semanticEqual(a, b reflect.Value) bool {
	if a.Type() != b.Type() {
		return false
	}
	if eq, ok := specialEqual(a, b); ok {
		return eq
	}
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return semanticEqual(a.Elem(), b.Elem())
	case reflect.Struct:
		for i := range a.NumField() {
			if !semanticEqual(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Slice, reflect.Array:
		if a.Len() != b.Len() {
			return false
		}
		for i := range a.Len() {
			if !semanticEqual(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Map:
		return mapsEqual(a, b)
	default:
		return valuesEqual(a, b)
	}
}

// specialEqual compares the types whose sameness is not their layout. A
// value reached through an unexported field cannot be extracted and is
// compared by layout instead (API types export every field).
func specialEqual(a, b reflect.Value) (equal, handled bool) {
	if !a.CanInterface() || !b.CanInterface() {
		return false, false
	}
	switch a.Type() {
	case quantityType:
		x, y := valueOf[resource.Quantity](a), valueOf[resource.Quantity](b)
		return x.Cmp(y) == 0, true
	case timeType:
		return valueOf[time.Time](a).Equal(valueOf[time.Time](b)), true
	case metaTimeType:
		return valueOf[meta.Time](a).Equal(valueOf[meta.Time](b).Time), true
	case microTimeType:
		return valueOf[meta.MicroTime](a).Equal(valueOf[meta.MicroTime](b).Time), true
	}
	return false, false
}

// valueOf returns the T held in v.
func valueOf[T any](v reflect.Value) T { return v.Interface().(T) }

func mapsEqual(a, b reflect.Value) bool {
	if a.Len() != b.Len() {
		return false
	}
	iter := a.MapRange()
	for iter.Next() {
		bv := b.MapIndex(iter.Key())
		if !bv.IsValid() || !semanticEqual(iter.Value(), bv) {
			return false
		}
	}
	return true
}

// valuesEqual compares scalars; funcs are equal only when both are nil and
// channels when they are the same channel, as in reflect.DeepEqual.
func valuesEqual(a, b reflect.Value) bool {
	switch a.Kind() {
	case reflect.Bool:
		return a.Bool() == b.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return a.Int() == b.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return a.Uint() == b.Uint()
	case reflect.Float32, reflect.Float64:
		return a.Float() == b.Float()
	case reflect.Complex64, reflect.Complex128:
		return a.Complex() == b.Complex()
	case reflect.String:
		return a.String() == b.String()
	case reflect.Func:
		return a.IsNil() && b.IsNil()
	case reflect.Chan, reflect.UnsafePointer:
		return a.Pointer() == b.Pointer()
	}
	return false
}
