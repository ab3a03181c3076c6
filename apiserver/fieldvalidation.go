package apiserver

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"sync"

	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
)

// The values of the fieldValidation query parameter.
const (
	// fieldValidationIgnore drops unknown fields silently.
	fieldValidationIgnore = "Ignore"
	// fieldValidationWarn drops unknown fields with a Warning header for
	// each, and for each duplicate field; the API's default.
	fieldValidationWarn = "Warn"
	// fieldValidationStrict rejects unknown and duplicate fields (400).
	fieldValidationStrict = "Strict"
)

// fieldValidation returns the request's fieldValidation directive, Warn
// when unset, as kube-apiserver does. Another value is a 422 naming the
// options kind of the verb (CreateOptions, UpdateOptions, PatchOptions).
func fieldValidation(q url.Values, optionsKind string) (string, error) {
	v := q.Get("fieldValidation")
	switch v {
	case "":
		return fieldValidationWarn, nil
	case fieldValidationIgnore, fieldValidationWarn, fieldValidationStrict:
		return v, nil
	}
	errs := field.ErrorList{field.NotSupported(field.NewPath("fieldValidation"), v,
		[]string{"", fieldValidationIgnore, fieldValidationStrict, fieldValidationWarn})}
	return "", apierrors.NewInvalid(meta.GroupVersionKind{Group: "meta.k8s.io", Kind: optionsKind}, "", errs)
}

// decodeObject decodes the JSON body of a create, update or patch into obj
// of kind gvk as kube-apiserver does under directive: field names match
// case-sensitively (a key that differs from a field only in case is an
// unknown field and is dropped, where encoding/json would take it), and
// unknown and duplicate fields are errors (Strict), warnings (Warn) or
// nothing (Ignore). It returns the warnings, in document order.
func decodeObject(body []byte, obj any, gvk meta.GroupVersionKind, directive string) ([]string, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, apierrors.NewBadRequest("the request body is empty")
	}
	cannot := func(err error) error {
		return apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", gvk.Kind, gvk.Version, gvk.Kind, err))
	}
	sc := &fieldScanner{b: body}
	scanErr := sc.document(reflect.TypeOf(obj))
	if scanErr == nil && len(sc.drops) > 0 {
		body = dropMembers(body, sc.drops)
	}
	if err := json.Unmarshal(body, obj); err != nil {
		return nil, cannot(err)
	}
	if p, ok := obj.(interface{ decodeProblems() []string }); ok {
		sc.problems = append(sc.problems, p.decodeProblems()...) // a custom resource's pruned unknown fields
	}
	if scanErr != nil {
		// json.Unmarshal accepted what the scanner did not: a bug here.
		return nil, cannot(scanErr)
	}
	switch {
	case len(sc.problems) == 0 || directive == fieldValidationIgnore:
		return nil, nil
	case directive == fieldValidationStrict:
		return nil, cannot(errors.New("strict decoding error: " + strings.Join(sc.problems, ", ")))
	}
	return sc.problems, nil
}

// addWarnings adds a Warning header per distinct message, in kube-apiserver's
// form (299 - "text", with " and \ escaped), which kubectl prints as
// "Warning: text".
func addWarnings(h http.Header, warnings []string) {
	seen := map[string]bool{}
	for _, w := range warnings {
		if seen[w] {
			continue
		}
		seen[w] = true
		var b strings.Builder
		b.WriteString(`299 - "`)
		for _, r := range w {
			switch {
			case r == '"' || r == '\\':
				b.WriteByte('\\')
				b.WriteRune(r)
			case r < ' ' || r == 0x7f:
				b.WriteByte(' ') // no control characters in a header
			default:
				b.WriteRune(r)
			}
		}
		b.WriteByte('"')
		h.Add("Warning", b.String())
	}
}

// fieldScanner walks a JSON document alongside the Go type it decodes into
// and finds what kube-apiserver's strict decoder reports: keys that name
// no field (`unknown field "spec.foo"`) and keys given twice in one object
// (`duplicate field "metadata.name"`), with the path of each. Keys that
// would reach a field only through encoding/json's case-insensitive
// matching are recorded for dropping. It allocates only for what it finds.
type fieldScanner struct {
	b        []byte
	i        int
	path     []byte
	problems []string
	drops    []span
}

// span is the bytes of one object member, from its key to the end of its
// value.
type span struct{ start, end int }

var errSyntax = errors.New("malformed JSON")

// document scans the whole body as a value of type t.
func (s *fieldScanner) document(t reflect.Type) error {
	if err := s.value(t); err != nil {
		return err
	}
	s.ws()
	if s.i != len(s.b) {
		return errSyntax
	}
	return nil
}

func (s *fieldScanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// value scans one value that decodes into t (nil: anything).
func (s *fieldScanner) value(t reflect.Type) error {
	s.ws()
	if s.i >= len(s.b) {
		return errSyntax
	}
	ti := infoOf(t)
	switch s.b[s.i] {
	case '{':
		return s.object(ti.fields, ti.mapElem)
	case '[':
		return s.array(ti.listElem)
	case '"':
		_, err := s.str()
		return err
	}
	return s.literal()
}

// object scans an object: a struct's (fields set) or a map's (values of
// type elem), or one whose members are not checked (both nil).
func (s *fieldScanner) object(fields map[string]reflect.Type, elem reflect.Type) error {
	s.i++ // '{'
	checked := fields != nil || elem != nil
	var seen keySet
	for n := 0; ; n++ {
		s.ws()
		if s.i < len(s.b) && s.b[s.i] == '}' && n == 0 {
			s.i++
			return nil
		}
		start := s.i
		key, err := s.str()
		if err != nil {
			return err
		}
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return errSyntax
		}
		s.i++
		mark := len(s.path)
		if checked {
			if len(s.path) > 0 {
				s.path = append(s.path, '.')
			}
			s.path = append(s.path, key...)
		}
		var vt reflect.Type
		drop := false
		switch {
		case !checked:
		case fields != nil:
			var ok bool
			if vt, ok = fields[string(key)]; !ok {
				s.problems = append(s.problems, fmt.Sprintf("unknown field %q", s.path))
				drop = foldsToField(fields, key)
			}
		default:
			vt = elem
		}
		if checked && !seen.add(key) {
			s.problems = append(s.problems, fmt.Sprintf("duplicate field %q", s.path))
		}
		if err := s.value(vt); err != nil {
			return err
		}
		s.path = s.path[:mark]
		if drop {
			s.drops = append(s.drops, span{start, s.i})
		}
		s.ws()
		if s.i >= len(s.b) {
			return errSyntax
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case '}':
			s.i++
			return nil
		default:
			return errSyntax
		}
	}
}

// array scans an array whose elements decode into elem (nil: anything).
func (s *fieldScanner) array(elem reflect.Type) error {
	s.i++ // '['
	for n := 0; ; n++ {
		s.ws()
		if s.i < len(s.b) && s.b[s.i] == ']' && n == 0 {
			s.i++
			return nil
		}
		mark := len(s.path)
		if elem != nil {
			s.path = append(s.path, '[')
			s.path = strconv.AppendInt(s.path, int64(n), 10)
			s.path = append(s.path, ']')
		}
		if err := s.value(elem); err != nil {
			return err
		}
		s.path = s.path[:mark]
		s.ws()
		if s.i >= len(s.b) {
			return errSyntax
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case ']':
			s.i++
			return nil
		default:
			return errSyntax
		}
	}
}

// str scans a string and returns its value: the bytes in the document,
// or a copy unescaped when it holds escapes.
func (s *fieldScanner) str() ([]byte, error) {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, errSyntax
	}
	start := s.i
	escaped := false
	for s.i++; s.i < len(s.b); s.i++ {
		switch s.b[s.i] {
		case '\\':
			escaped = true
			s.i++
		case '"':
			s.i++
			if !escaped {
				return s.b[start+1 : s.i-1], nil
			}
			var v string
			if err := json.Unmarshal(s.b[start:s.i], &v); err != nil {
				return nil, errSyntax
			}
			return []byte(v), nil
		}
	}
	return nil, errSyntax
}

// literal scans a number, true, false or null (json.Unmarshal checks its
// form).
func (s *fieldScanner) literal() error {
	start := s.i
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			if s.i == start {
				return errSyntax
			}
			return nil
		case '{', '[', '"', ':':
			return errSyntax
		}
		s.i++
	}
	if s.i == start {
		return errSyntax
	}
	return nil
}

// dropMembers removes the members spans names from b, with the comma that
// separates each from its neighbour. Spans are in document order and do
// not overlap; they are removed last first, so earlier offsets hold.
func dropMembers(b []byte, spans []span) []byte {
	out := append([]byte(nil), b...)
	isWS := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
	for k := len(spans) - 1; k >= 0; k-- {
		start, end := spans[k].start, spans[k].end
		j := end
		for j < len(out) && isWS(out[j]) {
			j++
		}
		if j < len(out) && out[j] == ',' {
			end = j + 1
		} else {
			p := start - 1
			for p >= 0 && isWS(out[p]) {
				p--
			}
			if p >= 0 && out[p] == ',' {
				start = p
			}
		}
		out = append(out[:start], out[end:]...)
	}
	return out
}

// foldsToField reports whether key would reach one of fields through
// encoding/json's case-insensitive matching.
func foldsToField(fields map[string]reflect.Type, key []byte) bool {
	for name := range fields {
		if bytes.EqualFold([]byte(name), key) {
			return true
		}
	}
	return false
}

// keySet holds the keys of one object: a small array while few (no
// allocation for most objects), a map once an object (a big Secret's
// data) has many. The keys alias the document.
type keySet struct {
	small [8][]byte
	n     int
	m     map[string]struct{}
}

// add adds k and reports whether it was new.
func (ks *keySet) add(k []byte) bool {
	if ks.m != nil {
		if _, ok := ks.m[string(k)]; ok {
			return false
		}
		ks.m[string(k)] = struct{}{}
		return true
	}
	for _, v := range ks.small[:ks.n] {
		if bytes.Equal(v, k) {
			return false
		}
	}
	if ks.n < len(ks.small) {
		ks.small[ks.n] = k
		ks.n++
		return true
	}
	ks.m = make(map[string]struct{}, 4*len(ks.small))
	for _, v := range ks.small {
		ks.m[string(v)] = struct{}{}
	}
	ks.m[string(k)] = struct{}{}
	return true
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// opaque reports whether values of t decode themselves (or into an
// interface), so their insides are not checked, as kube-apiserver does not
// check inside a RawExtension.
func opaque(t reflect.Type) bool {
	if t.Kind() == reflect.Interface {
		return true
	}
	pt := reflect.PointerTo(t)
	return t.Implements(jsonUnmarshaler) || pt.Implements(jsonUnmarshaler) ||
		t.Implements(textUnmarshaler) || pt.Implements(textUnmarshaler)
}

// typeInfo is what the scanner needs of a Go type: the fields of a
// struct, the element type of a map or of a list; all nil for a type
// whose insides are not checked (opaque, scalars, nil).
type typeInfo struct {
	fields   map[string]reflect.Type
	mapElem  reflect.Type
	listElem reflect.Type
}

// typeInfos caches infoOf per type.
var typeInfos sync.Map // reflect.Type -> *typeInfo

// infoOf returns the scanner's view of t (nil: anything), pointers
// dereferenced.
func infoOf(t reflect.Type) *typeInfo {
	if t == nil {
		return &typeInfo{}
	}
	if ti, ok := typeInfos.Load(t); ok {
		return ti.(*typeInfo)
	}
	ti := &typeInfo{}
	et := t
	for et.Kind() == reflect.Pointer {
		et = et.Elem()
	}
	if !opaque(et) {
		switch et.Kind() {
		case reflect.Struct:
			ti.fields = map[string]reflect.Type{}
			collectFields(et, ti.fields, map[string]int{}, 0)
		case reflect.Map:
			ti.mapElem = et.Elem()
		case reflect.Slice, reflect.Array:
			ti.listElem = et.Elem()
		}
	}
	typeInfos.Store(t, ti)
	return ti
}

// collectFields adds the JSON names of struct t's fields and their types,
// as encoding/json sees them: exported fields by their tag name (or Go
// name), the fields of embedded structs without a tag name promoted (the
// shallower one winning a name), "-" skipped.
func collectFields(t reflect.Type, m map[string]reflect.Type, depth map[string]int, d int) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if f.Anonymous && name == "" && ft.Kind() == reflect.Struct {
			collectFields(ft, m, depth, d+1)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if old, ok := depth[name]; ok && old <= d {
			continue
		}
		m[name], depth[name] = f.Type, d
	}
}
