package protobuf

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/meta"
)

// negative returns the varint form of a negative int32/int64 (sign-extended
// to 64 bits, as protobuf writes it).
func negative(v int64) uint64 { return uint64(v) }

func TestToJSONValues(t *testing.T) {
	om := objectMetaPB("n")
	tests := []struct {
		name string
		body []byte
		want string
	}{
		{
			name: "lease micro times and present zeros",
			body: wrap("coordination.k8s.io/v1", "Lease", pbMsg{}.msg(1, om).msg(2, pbMsg{}.
				str(1, "").varint(2, 0).
				msg(3, pbMsg{}.varint(1, 1704164645).varint(2, 123456789)).
				msg(4, pbMsg{}.varint(1, 1704164646)).varint(5, 0))),
			want: `{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"n","creationTimestamp":null},
				"spec":{"holderIdentity":"","leaseDurationSeconds":0,"acquireTime":"2024-01-02T03:04:05.123456Z",
				"renewTime":"2024-01-02T03:04:06.000000Z","leaseTransitions":0}}`,
		},
		{
			name: "endpoint slice: conditions, present false, nil port",
			body: wrap("discovery.k8s.io/v1", "EndpointSlice", pbMsg{}.msg(1, om).
				msg(2, pbMsg{}.str(1, "10.0.0.1").msg(2, pbMsg{}.varint(1, 1).varint(3, 0)).str(6, "node-1")).
				msg(3, pbMsg{}.str(1, "http").str(2, "TCP").varint(3, 80)).
				msg(3, pbMsg{}.str(1, "all").str(2, "UDP")).str(4, "IPv4")),
			want: `{"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice","metadata":{"name":"n","creationTimestamp":null},
				"endpoints":[{"addresses":["10.0.0.1"],"conditions":{"ready":true,"terminating":false},"nodeName":"node-1"}],
				"ports":[{"name":"http","protocol":"TCP","port":80},{"name":"all","protocol":"UDP"}],"addressType":"IPv4"}`,
		},
		{
			name: "event times, zero time, unix epoch",
			body: wrap("v1", "Event", pbMsg{}.msg(1, om).
				msg(6, pbMsg{}.varint(1, 1704164645).varint(2, 999999999)).
				msg(7, pbMsg{}.varint(1, negative(-62135596800))).
				msg(10, pbMsg{}.varint(1, 0).varint(2, 0)).
				varint(8, 2).str(9, "Normal").str(14, "").msg(11, pbMsg{}.varint(1, 3))),
			want: `{"apiVersion":"v1","kind":"Event","metadata":{"name":"n","creationTimestamp":null},
				"firstTimestamp":"2024-01-02T03:04:05Z","lastTimestamp":null,"eventTime":"1970-01-01T00:00:00.000000Z",
				"count":2,"type":"Normal","reportingComponent":"","series":{"count":3}}`,
		},
		{
			name: "secret bytes as base64",
			body: wrap("v1", "Secret", pbMsg{}.msg(1, om).
				msg(2, pbMsg{}.str(1, "bin").bytes(2, []byte{0xff, 0x00, 0x10})).
				msg(2, pbMsg{}.str(1, "empty")).
				msg(4, pbMsg{}.str(1, "s").str(2, "plain")).str(3, "Opaque").varint(5, 0)),
			want: `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"n","creationTimestamp":null},
				"data":{"bin":"/wAQ","empty":""},"stringData":{"s":"plain"},"type":"Opaque","immutable":false}`,
		},
		{
			name: "service int and string target ports",
			body: wrap("v1", "Service", pbMsg{}.msg(2, pbMsg{}.
				msg(1, pbMsg{}.str(1, "a").str(2, "TCP").varint(3, 80).msg(4, pbMsg{}.varint(1, 0).varint(2, 8080).str(3, "")).varint(5, 0)).
				msg(1, pbMsg{}.str(1, "b").varint(3, 443).msg(4, pbMsg{}.varint(1, 1).varint(2, 0).str(3, "https"))).
				msg(1, pbMsg{}.varint(3, 0).msg(4, nil)).
				str(17, "SingleStack").varint(20, 0))),
			want: `{"apiVersion":"v1","kind":"Service","spec":{"ports":[
				{"name":"a","protocol":"TCP","port":80,"targetPort":8080},
				{"name":"b","port":443,"targetPort":"https"},{"port":0,"targetPort":0}],
				"ipFamilyPolicy":"SingleStack","allocateLoadBalancerNodePorts":false}}`,
		},
		{
			name: "controller revision raw JSON and managed fields",
			body: wrap("apps/v1", "ControllerRevision", pbMsg{}.
				msg(1, pbMsg{}.str(1, "r").msg(17, pbMsg{}.str(1, "kubectl").str(2, "Update").str(3, "apps/v1").
					msg(4, pbMsg{}.varint(1, 1704164645)).str(6, "FieldsV1").msg(7, pbMsg{}.str(1, `{"f:spec": {}}`)))).
				msg(2, pbMsg{}.str(1, " {\"spec\": {\"template\": [1, 2.5, null, true]}} ")).varint(3, 7)),
			want: `{"apiVersion":"apps/v1","kind":"ControllerRevision","metadata":{"name":"r","managedFields":[
				{"manager":"kubectl","operation":"Update","apiVersion":"apps/v1","time":"2024-01-02T03:04:05Z",
				"fieldsType":"FieldsV1","fieldsV1":{"f:spec":{}}}]},
				"data":{"spec":{"template":[1,2.5,null,true]}},"revision":7}`,
		},
		{
			name: "empty raw extension is null",
			body: wrap("apps/v1", "ControllerRevision", pbMsg{}.msg(2, nil).varint(3, 0)),
			want: `{"apiVersion":"apps/v1","kind":"ControllerRevision","data":null,"revision":0}`,
		},
		{
			name: "subject access review extra values",
			body: wrap("authorization.k8s.io/v1", "SubjectAccessReview", pbMsg{}.msg(2, pbMsg{}.
				msg(2, pbMsg{}.str(1, "/healthz").str(2, "get")).str(3, "alice").str(4, "devs").str(4, "ops").
				msg(5, pbMsg{}.str(1, "scopes").msg(2, pbMsg{}.str(1, "a").str(1, "b"))).
				msg(5, pbMsg{}.str(1, "none")).str(6, "")).
				msg(3, pbMsg{}.varint(1, 0).varint(4, 0).str(2, ""))),
			want: `{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{
				"nonResourceAttributes":{"path":"/healthz","verb":"get"},"user":"alice","groups":["devs","ops"],
				"extra":{"scopes":["a","b"],"none":[]}},"status":{"allowed":false}}`,
		},
		{
			name: "delete options in meta.k8s.io/v1",
			body: wrap("meta.k8s.io/v1", "DeleteOptions", pbMsg{}.varint(1, 0).
				msg(2, pbMsg{}.str(1, "uid-1").str(2, "")).varint(3, 0).str(4, "Foreground").str(5, "All")),
			want: `{"apiVersion":"meta.k8s.io/v1","kind":"DeleteOptions","gracePeriodSeconds":0,
				"preconditions":{"uid":"uid-1","resourceVersion":""},"orphanDependents":false,
				"propagationPolicy":"Foreground","dryRun":["All"]}`,
		},
		{
			name: "delete options in a resource group version",
			body: wrap("apps/v1", "DeleteOptions", pbMsg{}.str(4, "Background")),
			want: `{"apiVersion":"apps/v1","kind":"DeleteOptions","propagationPolicy":"Background"}`,
		},
		{
			name: "eviction",
			body: wrap("policy/v1", "Eviction", pbMsg{}.msg(1, pbMsg{}.str(1, "p").str(3, "default")).msg(2, pbMsg{}.varint(1, 30))),
			want: `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p","namespace":"default"},
				"deleteOptions":{"gracePeriodSeconds":30}}`,
		},
		{
			name: "scale: zero spec replicas is omitted, zero status replicas kept",
			body: wrap("autoscaling/v1", "Scale", pbMsg{}.msg(1, om).msg(2, pbMsg{}.varint(1, 0)).msg(3, pbMsg{}.varint(1, 0).str(2, ""))),
			want: `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"n","creationTimestamp":null},
				"spec":{},"status":{"replicas":0}}`,
		},
		{
			name: "priority class zero value kept, false default omitted",
			body: wrap("scheduling.k8s.io/v1", "PriorityClass", pbMsg{}.varint(2, 0).varint(3, 0).str(4, "")),
			want: `{"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","value":0}`,
		},
		{
			name: "negative numbers",
			body: wrap("v1", "Pod", pbMsg{}.msg(2, pbMsg{}.varint(25, negative(-5)).varint(5, negative(-1)).
				msg(14, pbMsg{}.varint(2, negative(-7))))),
			want: `{"apiVersion":"v1","kind":"Pod","spec":{"activeDeadlineSeconds":-1,"securityContext":{"runAsUser":-7},"priority":-5}}`,
		},
		{
			name: "packed and unpacked repeated numbers",
			body: wrap("v1", "Pod", pbMsg{}.msg(2, pbMsg{}.
				msg(14, pbMsg{}.bytes(4, appendVarint(appendVarint(nil, 1000), 0)).varint(4, 7)).
				msg(2, pbMsg{}.str(1, "c").msg(25, pbMsg{}.str(1, "Restart").msg(2, pbMsg{}.str(1, "In").
					varint(2, 1).bytes(2, appendVarint(appendVarint(nil, 2), negative(-3)))))))),
			want: `{"apiVersion":"v1","kind":"Pod","spec":{"containers":[{"name":"c","restartPolicyRules":[
				{"action":"Restart","exitCodes":{"operator":"In","values":[1,2,-3]}}]}],
				"securityContext":{"supplementalGroups":[1000,0,7]}}}`,
		},
		{
			name: "repeated message occurrences merge, last scalar wins",
			body: wrap("v1", "ConfigMap", pbMsg{}.
				msg(1, pbMsg{}.str(1, "first").entry(11, "a", "1")).
				msg(1, pbMsg{}.str(1, "second").entry(11, "b", "2")).varint(4, 1).varint(4, 0)),
			want: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"second","labels":{"a":"1","b":"2"}},"immutable":false}`,
		},
		{
			name: "unknown fields of every wire type are skipped",
			body: wrap("v1", "Namespace", pbMsg{}.varint(40, 1).fixed64(41, 2).str(42, "x").
				msg(1, pbMsg{}.str(1, "n").varint(63, 5)).bytes(5, []byte{0x2d, 1, 2, 3, 4})),
			want: `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"n"}}`,
		},
		{
			name: "strings are escaped, invalid UTF-8 replaced",
			body: wrap("v1", "ConfigMap", pbMsg{}.msg(1, pbMsg{}.str(1, "n")).
				entry(2, "q\"\\\n\t\x01</>", "bad\xff\xfeend é \u2028")),
			want: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"n"},
				"data":{"q\"\\\n\t\u0001</>":"bad\ufffd\ufffdend é \u2028"}}`,
		},
		{
			name: "empty quantity is zero, inline local object reference",
			body: wrap("v1", "Pod", pbMsg{}.msg(2, pbMsg{}.msg(2, pbMsg{}.str(1, "c").
				msg(8, pbMsg{}.msg(1, pbMsg{}.str(1, "cpu").msg(2, nil)).msg(2, pbMsg{}.str(1, "memory"))).
				msg(19, pbMsg{}.msg(2, pbMsg{}.msg(1, pbMsg{}.str(1, "cm")).varint(2, 0)))))),
			want: `{"apiVersion":"v1","kind":"Pod","spec":{"containers":[{"name":"c",
				"resources":{"limits":{"cpu":"0"},"requests":{"memory":"0"}},
				"envFrom":[{"configMapRef":{"name":"cm","optional":false}}]}]}}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, _, err := ToJSON(tc.body)
			require.NoError(t, err)
			assertSameJSON(t, tc.want, string(got))
		})
	}
}

// TestSpecialDurationAndDouble covers the special encodings no built-in
// kind reaches today.
func TestSpecialDurationAndDouble(t *testing.T) {
	d := &decoder{reg: defaultRegistry(), limit: 1 << 20}
	require.NoError(t, d.special(spans{pbMsg{}.varint(1, uint64(90*1e9))}, typeDuration, spDuration))
	require.Equal(t, `"1m30s"`, string(d.out))

	d.out = nil
	require.NoError(t, d.double(2.5, "x", 1))
	require.Equal(t, `2.5`, string(d.out))
	require.ErrorIs(t, d.double(math.NaN(), "x", 1), ErrMalformed)
	require.ErrorIs(t, d.double(math.Inf(1), "x", 1), ErrMalformed)
}

// TestScalarKindsSynthetic covers double and bytes scalars, which no
// built-in kind uses today, with a one-message registry.
func TestScalarKindsSynthetic(t *testing.T) {
	gvk := meta.GroupVersion{Group: "t", Version: "v1"}.WithKind("M")
	reg := &registry{
		messages: schema{"t.M": {
			fields: fields{1: dbl("d"), 2: byt("b"), 3: {name: "ds", kind: kDouble, repeated: true}},
			order:  []uint32{1, 2, 3},
		}},
		kinds: map[meta.GroupVersionKind]string{gvk: "t.M"},
	}
	var packed []byte
	for _, v := range []float64{1.5, -2} {
		bits := math.Float64bits(v)
		for i := 0; i < 8; i++ {
			packed = append(packed, byte(bits>>(8*i)))
		}
	}
	body := wrap("t/v1", "M", pbMsg{}.fixed64(1, math.Float64bits(0.25)).bytes(2, []byte("hi")).
		bytes(3, packed).fixed64(3, math.Float64bits(1e21)))
	d := &decoder{reg: reg, limit: 1 << 20}
	_, err := d.convert(body)
	require.NoError(t, err)
	assertSameJSON(t, `{"apiVersion":"t/v1","kind":"M","d":0.25,"b":"aGk=","ds":[1.5,-2,1e21]}`, string(d.out))

	for name, in := range map[string][]byte{
		"nan":             wrap("t/v1", "M", pbMsg{}.fixed64(1, math.Float64bits(math.NaN()))),
		"packed nan":      wrap("t/v1", "M", pbMsg{}.bytes(3, []byte{0, 0, 0, 0, 0, 0, 0xf8, 0x7f})),
		"truncated float": wrap("t/v1", "M", pbMsg{}.bytes(3, []byte{0, 0, 0})),
		"double varint":   wrap("t/v1", "M", pbMsg{}.varint(1, 1)),
	} {
		t.Run(name, func(t *testing.T) {
			d := &decoder{reg: reg, limit: 1 << 20}
			_, err := d.convert(in)
			require.ErrorIs(t, err, ErrMalformed)
		})
	}
}
