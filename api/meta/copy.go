package meta

import (
	"encoding/json"
	"reflect"
)

// DeepCopy returns a copy of obj that shares no memory with it. It copies
// through JSON, so it carries exactly what the wire format carries. obj may
// be a value or a pointer, also one held in an interface type such as
// Object (the copy then has the same dynamic type). A nil pointer copies
// to nil.
func DeepCopy[T any](obj T) T {
	b, err := json.Marshal(obj)
	if err != nil {
		panic("meta.DeepCopy: " + err.Error()) // only on types that cannot be encoded: a programming error
	}
	if v := reflect.ValueOf(obj); v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return obj
		}
		nv := reflect.New(v.Elem().Type())
		if err := json.Unmarshal(b, nv.Interface()); err != nil {
			panic("meta.DeepCopy: " + err.Error())
		}
		return nv.Interface().(T)
	}
	var out T
	if err := json.Unmarshal(b, &out); err != nil {
		panic("meta.DeepCopy: " + err.Error())
	}
	return out
}
