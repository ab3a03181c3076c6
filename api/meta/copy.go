package meta

import "encoding/json"

// DeepCopy returns a copy of obj that shares no memory with it. It copies
// through JSON, so it carries exactly what the wire format carries.
func DeepCopy[T any](obj T) T {
	var out T
	b, err := json.Marshal(obj)
	if err != nil {
		panic("meta.DeepCopy: " + err.Error()) // only on types that cannot be encoded: a programming error
	}
	if err := json.Unmarshal(b, &out); err != nil {
		panic("meta.DeepCopy: " + err.Error())
	}
	return out
}
