package apiserver

import (
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api"
	apischema "github.com/orkit/orkit/api/apiextensions/schema"
	"github.com/orkit/orkit/api/resource"
)

// The walk must give exactly what encoding and parsing give, for every
// built-in kind filled with random values (nil, empty and zero fields,
// invalid UTF-8, large numbers, quantities, times, raw JSON).
func TestToUnstructuredMatchesJSON(t *testing.T) {
	for _, typ := range api.NewScheme().Types() {
		t.Run(typ.Kind.Kind, func(t *testing.T) {
			_, err := walkValue(reflect.ValueOf(typ.New()))
			require.NotErrorIs(t, err, errNotWalkable, "a built-in kind takes the slow path")
			for seed := range uint64(40) {
				obj := typ.New()
				fillRandom(reflect.ValueOf(obj).Elem(), rand.New(rand.NewPCG(seed, 7)), 0)
				assertSameUnstructured(t, obj)
			}
		})
	}
}

func assertSameUnstructured(t *testing.T, obj any) {
	t.Helper()
	want, wantErr := toUnstructuredJSON(obj)
	got, err := toUnstructured(obj)
	if wantErr != nil {
		assert.Error(t, err, "encoding/json refused %#v", obj)
		return
	}
	require.NoError(t, err)
	assert.Equal(t, want, got)
}

type (
	ptrMarshaler struct{ A string }
	textKey      string
	ptrZero      struct{ N int }
	valueZero    struct{ N int }
	inner        struct {
		B string `json:"b,omitempty"`
	}
	clash struct {
		inner
		B string `json:"b"`
	}
	edgeCases struct {
		inner
		*Embedded  `json:",inline"`
		Named      inner              `json:"named"`
		Skipped    string             `json:"-"`
		Dash       string             `json:"-,"`
		NoTag      int                `json:""`
		Ints       map[int]string     `json:"ints,omitempty"`
		Uints      map[uint8]bool     `json:"uints"`
		Big        uint64             `json:"big"`
		Float      float64            `json:"float"`
		NegZero    float64            `json:"negZero,omitempty"`
		Bytes      []byte             `json:"bytes"`
		Array      [2]byte            `json:"array"`
		Any        any                `json:"any"`
		AnyPtr     any                `json:"anyPtr"`
		Raw        apischema.JSON     `json:"raw"`
		Qty        *resource.Quantity `json:"qty,omitempty"`
		Zero       valueZero          `json:"zero,omitzero"`
		PtrZero    ptrZero            `json:"ptrZero,omitzero"`
		Time       time.Time          `json:"time,omitzero"`
		Str        string             `json:"str"`
		unexported string
	}
	// Embedded is promoted when set, absent when nil.
	Embedded struct {
		E string `json:"e"`
	}
)

func (p *ptrMarshaler) MarshalJSON() ([]byte, error) { return []byte(`"custom"`), nil }
func (valueZero) IsZero() bool                       { return true }
func (p *ptrZero) IsZero() bool                      { return p.N == 1 }
func (k textKey) MarshalText() ([]byte, error)       { return []byte("k-" + string(k)), nil }

func TestToUnstructuredEdgeCases(t *testing.T) {
	q := resource.MustParse("250m")
	nilQty := (*resource.Quantity)(nil)
	cases := map[string]any{
		"zero":                 &edgeCases{},
		"nil embedded pointer": &edgeCases{Str: "x"},
		"full": &edgeCases{
			inner: inner{B: "b"}, Embedded: &Embedded{E: "e"}, Named: inner{B: "n"}, Skipped: "s", Dash: "d",
			NoTag: 3, Ints: map[int]string{-1: "m"}, Uints: map[uint8]bool{7: true}, Big: math.MaxUint64,
			Float: 3, NegZero: math.Copysign(0, -1), Bytes: []byte{0, 255}, Array: [2]byte{1, 2},
			Any: map[string]any{"n": 1.5, "l": []any{int32(2), "x\xff"}}, AnyPtr: nilQty,
			Raw: apischema.JSON{Raw: []byte(`{"a": [1, 2.5e3]}`)}, Qty: &q, PtrZero: ptrZero{N: 2},
			Time: time.Unix(1700000000, 5).UTC(), Str: "bad \xff\xfe utf-8 <&>", unexported: "u",
		},
		"omitzero by pointer method": &edgeCases{PtrZero: ptrZero{N: 1}},
		"large float":                &edgeCases{Float: 1e21},
		"pointer-receiver marshaler": &struct{ M ptrMarshaler }{M: ptrMarshaler{A: "a"}},
		"text marshaler map key":     &struct{ M map[textKey]int }{M: map[textKey]int{"a": 1}},
		"text marshaler value":       &struct{ V textKey }{V: "v"},
		"clashing promoted field":    &clash{inner: inner{B: "inner"}, B: "outer"},
		"string option": &struct {
			N int `json:"n,string"`
		}{N: 4},
	}
	for name, obj := range cases {
		t.Run(name, func(t *testing.T) { assertSameUnstructured(t, obj) })
	}
}

// Values encoding/json refuses are refused by the walk too.
func TestToUnstructuredRefusals(t *testing.T) {
	for name, obj := range map[string]any{
		"NaN":          &struct{ F float64 }{F: math.NaN()},
		"invalid raw":  &struct{ R apischema.JSON }{R: apischema.JSON{Raw: []byte("{")}},
		"channel":      &struct{ C chan int }{C: make(chan int)},
		"not a object": []string{"a"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := toUnstructured(obj)
			assert.Error(t, err)
		})
	}
}

// FuzzToUnstructured fills built-in kinds from fuzzed seeds and compares
// the walk with encoding and parsing.
func FuzzToUnstructured(f *testing.F) {
	types := api.NewScheme().Types()
	f.Add(uint64(1), uint16(0))
	f.Add(uint64(99), uint16(17))
	f.Fuzz(func(t *testing.T, seed uint64, kind uint16) {
		obj := types[int(kind)%len(types)].New()
		fillRandom(reflect.ValueOf(obj).Elem(), rand.New(rand.NewPCG(seed, seed>>7)), 0)
		assertSameUnstructured(t, obj)
	})
}

var (
	fillTimeType     = reflect.TypeFor[time.Time]()
	fillQuantityType = reflect.TypeFor[resource.Quantity]()
	fillRawJSONType  = reflect.TypeFor[apischema.JSON]()
)

// fillRandom sets v's exported parts to random values, leaving some nil,
// empty or zero; depth bounds recursive types.
func fillRandom(v reflect.Value, r *rand.Rand, depth int) {
	if !v.CanSet() {
		return
	}
	switch v.Type() {
	case fillTimeType:
		if r.IntN(3) > 0 {
			v.Set(reflect.ValueOf(time.Unix(r.Int64N(4e9), r.Int64N(1e9)).UTC()))
		}
		return
	case fillQuantityType:
		qs := []string{"0", "1", "250m", "1.5Gi", "100M", "-3", "1e3"}
		v.Set(reflect.ValueOf(resource.MustParse(qs[r.IntN(len(qs))])))
		return
	case fillRawJSONType:
		raws := []string{"", `"s"`, `{"a":[1,{"b":null}]}`, `12345678901234567890`, `-0.5`, `true`}
		if raw := raws[r.IntN(len(raws))]; raw != "" {
			v.Set(reflect.ValueOf(apischema.JSON{Raw: []byte(raw)}))
		}
		return
	}
	if depth > 6 && (v.Kind() == reflect.Pointer || v.Kind() == reflect.Slice || v.Kind() == reflect.Map) {
		return
	}
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 1)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		ns := []int64{0, 1, -7, 1 << 20, math.MaxInt32, math.MinInt32}
		if n := ns[r.IntN(len(ns))]; !v.OverflowInt(n) {
			v.SetInt(n)
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		ns := []uint64{0, 1, 255, math.MaxUint32, math.MaxUint64}
		if n := ns[r.IntN(len(ns))]; !v.OverflowUint(n) {
			v.SetUint(n)
		}
	case reflect.Float32, reflect.Float64:
		fs := []float64{0, 0.5, 3, -2.25, 1e21, 1e-7}
		v.SetFloat(fs[r.IntN(len(fs))])
	case reflect.String:
		ss := []string{"", "a", "web-0", "ünï", "bad\xffutf8", "<&>\"\\\n", "10.0.0.1"}
		v.SetString(ss[r.IntN(len(ss))])
	case reflect.Pointer:
		if r.IntN(3) == 0 {
			return
		}
		p := reflect.New(v.Type().Elem())
		fillRandom(p.Elem(), r, depth+1)
		v.Set(p)
	case reflect.Slice:
		switch n := r.IntN(4); n {
		case 0:
		case 1:
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
		default:
			s := reflect.MakeSlice(v.Type(), n-1, n-1)
			for i := range n - 1 {
				fillRandom(s.Index(i), r, depth+1)
			}
			v.Set(s)
		}
	case reflect.Map:
		if r.IntN(3) == 0 {
			return
		}
		m := reflect.MakeMap(v.Type())
		for i := range r.IntN(3) {
			k := reflect.New(v.Type().Key()).Elem()
			fillRandom(k, r, depth+1)
			if k.Kind() == reflect.String {
				k.SetString(k.String() + string(rune('a'+i)))
			}
			e := reflect.New(v.Type().Elem()).Elem()
			fillRandom(e, r, depth+1)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Interface:
		if v.NumMethod() == 0 {
			vals := []any{nil, "s", int64(-3), 2.5, true, map[string]any{"k": []any{"x", int64(1)}}}
			if x := vals[r.IntN(len(vals))]; x != nil {
				v.Set(reflect.ValueOf(x))
			}
		}
	case reflect.Struct:
		for i := range v.NumField() {
			fillRandom(v.Field(i), r, depth)
		}
	}
}

func TestErrNotWalkableIsUnexported(t *testing.T) {
	// The fallback sentinel never leaves toUnstructured.
	_, err := toUnstructured(&struct{ M ptrMarshaler }{})
	assert.False(t, errors.Is(err, errNotWalkable))
}

// BenchmarkToUnstructured compares the walk with encoding and parsing on
// a running pod.
func BenchmarkToUnstructured(b *testing.B) {
	pod, _, err := api.NewScheme().Decode([]byte(benchPodJSON))
	require.NoError(b, err)
	for name, conv := range map[string]func(any) (map[string]any, error){"walk": toUnstructured, "json": toUnstructuredJSON} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := conv(pod); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

const benchPodJSON = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-7d9f8b6c5-x2x9q","namespace":"default",
"uid":"0b6a1c52-2f0e-4a57-9d7e-3f1b8f0c2a11","resourceVersion":"12345","creationTimestamp":"2026-11-28T03:00:00Z",
"labels":{"app":"web","pod-template-hash":"7d9f8b6c5"},"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet",
"name":"web-7d9f8b6c5","uid":"5d0c8f2e-9a1b-4c3d-8e7f-6a5b4c3d2e1f","controller":true,"blockOwnerDeletion":true}]},
"spec":{"containers":[{"name":"web","image":"nginx:1.27","ports":[{"containerPort":80,"protocol":"TCP"}],
"resources":{"requests":{"cpu":"100m","memory":"128Mi"},"limits":{"memory":"256Mi"}},
"env":[{"name":"MODE","value":"prod"}],"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File",
"imagePullPolicy":"IfNotPresent"}],"restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst",
"serviceAccountName":"default","nodeName":"node-1","schedulerName":"default-scheduler",
"tolerations":[{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}]},
"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True","lastTransitionTime":"2026-11-28T03:00:02Z"},
{"type":"PodScheduled","status":"True","lastTransitionTime":"2026-11-28T03:00:00Z"}],"hostIP":"10.0.0.5","podIP":"10.244.1.7",
"podIPs":[{"ip":"10.244.1.7"}],"startTime":"2026-11-28T03:00:00Z","qosClass":"Burstable",
"containerStatuses":[{"name":"web","ready":true,"restartCount":0,"image":"nginx:1.27","imageID":"sha256:abc",
"containerID":"containerd://0123","started":true,"state":{"running":{"startedAt":"2026-11-28T03:00:01Z"}}}]}}`
