package schema

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// celSchema puts rules on spec, whose fields cover every CEL-visible type.
func celSchema(rules string) string {
	return `{"type":"object","properties":{"spec":{"type":"object","x-kubernetes-validations":` + rules + `,"properties":{
	 "name":{"type":"string","maxLength":64},
	 "replicas":{"type":"integer"},
	 "ratio":{"type":"number"},
	 "when":{"type":"string","format":"date-time"},
	 "timeout":{"type":"string","format":"duration"},
	 "port":{"x-kubernetes-int-or-string":true},
	 "mem":{"type":"string","maxLength":32},
	 "link":{"type":"string","maxLength":256},
	 "foo-bar":{"type":"string","maxLength":8},
	 "namespace":{"type":"string","maxLength":8},
	 "nums":{"type":"array","maxItems":10,"items":{"type":"integer"}},
	 "words":{"type":"array","maxItems":10,"items":{"type":"string","maxLength":16}},
	 "labels":{"type":"object","maxProperties":10,"additionalProperties":{"type":"string","maxLength":16}}
	}}}}`
}

func TestCELRules(t *testing.T) {
	wrap := func(spec string) string { return `{"metadata":{"name":"obj"},"spec":` + spec + `}` }
	tests := []struct {
		name  string
		rules string
		spec  string
		want  []string
	}{
		{"pass", `[{"rule":"self.replicas > 0"}]`, `{"replicas":1}`, nil},
		{"fail with default message", `[{"rule":"self.replicas > 0"}]`, `{"replicas":0}`,
			[]string{`spec: Invalid value: "object": failed rule: self.replicas > 0`}},
		{"message", `[{"rule":"self.replicas > 0","message":"must be positive"}]`, `{"replicas":0}`,
			[]string{`spec: Invalid value: "object": must be positive`}},
		{"messageExpression", `[{"rule":"self.replicas > 0","messageExpression":"'replicas is ' + string(self.replicas)"}]`, `{"replicas":-2}`,
			[]string{`spec: Invalid value: "object": replicas is -2`}},
		{"reason Forbidden and fieldPath", `[{"rule":"!has(self.name)","reason":"FieldValueForbidden","fieldPath":".name","message":"name is not allowed"}]`, `{"name":"x"}`,
			[]string{`spec.name: Forbidden: name is not allowed`}},
		{"reason Required", `[{"rule":"has(self.name)","reason":"FieldValueRequired","message":"name please"}]`, `{}`,
			[]string{`spec: Required value: name please`}},
		{"missing field is a runtime error", `[{"rule":"self.name == 'x'"}]`, `{}`,
			[]string{`spec: Invalid value: "object": no such key: name evaluating rule: self.name == 'x'`}},
		{"number is a double", `[{"rule":"self.ratio * 2.0 > 1.0"}]`, `{"ratio":1}`, nil},
		{"timestamp", `[{"rule":"self.when > timestamp('2020-01-01T00:00:00Z')"}]`, `{"when":"2019-01-01T00:00:00Z"}`,
			[]string{`spec: Invalid value: "object": failed rule: self.when > timestamp('2020-01-01T00:00:00Z')`}},
		{"duration", `[{"rule":"self.timeout <= duration('1m')"}]`, `{"timeout":"30s"}`, nil},
		{"int-or-string", `[{"rule":"type(self.port) == string ? self.port.endsWith('%') : self.port < 100"}]`, `{"port":"50%"}`, nil},
		{"int-or-string int", `[{"rule":"type(self.port) == string ? self.port.endsWith('%') : self.port < 100"}]`, `{"port":500}`,
			[]string{`spec: Invalid value: "object": failed rule: type(self.port) == string ? self.port.endsWith('%') : self.port < 100`}},
		{"escaped names", `[{"rule":"self.foo__dash__bar == 'a' && self.__namespace__ == 'b'"}]`, `{"foo-bar":"a","namespace":"b"}`, nil},
		{"lists library", `[{"rule":"self.nums.isSorted() && self.nums.sum() == 6 && self.nums.min() == 1 && self.nums.max() == 3 && self.nums.indexOf(2) == 1 && self.nums.lastIndexOf(9) == -1"}]`, `{"nums":[1,2,3]}`, nil},
		{"min of empty list", `[{"rule":"self.nums.min() > 0"}]`, `{"nums":[]}`,
			[]string{`spec: Invalid value: "object": min called on empty list evaluating rule: self.nums.min() > 0`}},
		{"regex library", `[{"rule":"self.name.find('[0-9]+') == '42' && self.name.findAll('[a-z]').size() == 2 && self.name.matches('^[a-z0-9]+$')"}]`, `{"name":"ab42"}`, nil},
		{"strings extension", `[{"rule":"self.name.lowerAscii().split('-').size() == 2 && self.words.join(',') == 'a,b'"}]`, `{"name":"A-B","words":["a","b"]}`, nil},
		{"url library", `[{"rule":"isURL(self.link) && url(self.link).getHost() == 'example.com:8080' && url(self.link).getScheme() == 'https' && url(self.link).getQuery()['q'] == ['1']"}]`, `{"link":"https://example.com:8080/p?q=1"}`, nil},
		{"quantity library", `[{"rule":"isQuantity(self.mem) && quantity(self.mem).isGreaterThan(quantity('1Gi')) && quantity(self.mem).add(1).sign() == 1"}]`, `{"mem":"2Gi"}`, nil},
		{"sets extension", `[{"rule":"sets.contains(self.words, ['a'])"}]`, `{"words":["a","b"]}`, nil},
		{"map macros", `[{"rule":"self.labels.all(k, self.labels[k].size() < 5)"}]`, `{"labels":{"a":"long value"}}`,
			[]string{`spec: Invalid value: "object": failed rule: self.labels.all(k, self.labels[k].size() < 5)`}},
		{"optional field", `[{"rule":"self.?name.orValue('') != 'bad'"}]`, `{"name":"bad"}`,
			[]string{`spec: Invalid value: "object": failed rule: self.?name.orValue('') != 'bad'`}},
		{"transition rule skipped on create", `[{"rule":"self.replicas >= oldSelf.replicas"}]`, `{"replicas":1}`, nil},
		{"optionalOldSelf runs on create", `[{"rule":"oldSelf.hasValue() || self.replicas == 1","optionalOldSelf":true,"message":"start with 1"}]`, `{"replicas":2}`,
			[]string{`spec: Invalid value: "object": start with 1`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc := mustCompile(t, celSchema(tt.rules))
			assert.Equal(t, tt.want, validate(t, sc, wrap(tt.spec)))
		})
	}
}

func TestCELRootMetadata(t *testing.T) {
	sc := mustCompile(t, `{"type":"object","x-kubernetes-validations":[{"rule":"self.metadata.name.startsWith('ok-')","message":"bad name"}],"properties":{"spec":{"type":"object"}}}`)
	assert.Nil(t, validate(t, sc, `{"apiVersion":"a/v1","kind":"K","metadata":{"name":"ok-1"}}`))
	assert.Equal(t, []string{`<nil>: Invalid value: "object": bad name`}, validate(t, sc, `{"apiVersion":"a/v1","kind":"K","metadata":{"name":"nope"}}`))
}

func TestCELTransitionRules(t *testing.T) {
	sc := mustCompile(t, `{"type":"object","properties":{"spec":{"type":"object","properties":{
	 "mode":{"type":"string","x-kubernetes-validations":[{"rule":"self == oldSelf","message":"mode is immutable"}]},
	 "items":{"type":"array","maxItems":10,"x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],
	  "items":{"type":"object","required":["name"],"properties":{"name":{"type":"string","maxLength":8},
	   "size":{"type":"integer","x-kubernetes-validations":[{"rule":"self >= oldSelf","message":"size may only grow"}]}}}}}}}}`)
	ctx := context.Background()
	old := mustObj(t, `{"spec":{"mode":"a","items":[{"name":"x","size":5},{"name":"y","size":1}]}}`)
	ok := mustObj(t, `{"spec":{"mode":"a","items":[{"name":"y","size":1},{"name":"x","size":6},{"name":"z","size":0}]}}`)
	assert.Empty(t, sc.ValidateUpdate(ctx, ok, old))
	bad := mustObj(t, `{"spec":{"mode":"b","items":[{"name":"y","size":1},{"name":"x","size":4}]}}`)
	assert.Equal(t, []string{
		`spec.items[1].size: Invalid value: "integer": size may only grow`,
		`spec.mode: Invalid value: "string": mode is immutable`,
	}, strs(sc.ValidateUpdate(ctx, bad, old)))
	assert.Empty(t, sc.Validate(ctx, bad), "transition rules do not run on create")
}

func TestCELBlockedByInvalidObject(t *testing.T) {
	sc := mustCompile(t, celSchema(`[{"rule":"self.replicas > 0"}]`))
	assert.Equal(t, []string{
		`spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"`,
		`<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation`,
	}, validate(t, sc, `{"spec":{"replicas":"x"}}`))
}

func TestCELCostLimits(t *testing.T) {
	// a rule that is cheap to estimate (bounded list) but runs long.
	const expensive = `[{"rule":"self.words.all(a, self.words.all(b, self.words.all(c, a + b + c != 'zzz')))"}]`
	t.Run("per-call limit", func(t *testing.T) {
		sc, err := Compile(mustProps(t, celSchema(expensive)), &Config{PerCallLimit: 100})
		require.NoError(t, err)
		errs := validate(t, sc, `{"spec":{"words":["a","b","c","d","e","f","g","h","i","j"]}}`)
		require.Len(t, errs, 1)
		assert.Contains(t, errs[0], "operation cancelled: actual cost limit exceeded")
		assert.Contains(t, errs[0], "no further validation rules will be run due to call cost exceeds limit for rule")
	})
	t.Run("runtime budget", func(t *testing.T) {
		sc, err := Compile(mustProps(t, celSchema(expensive+``)), &Config{RuntimeCostBudget: 50})
		require.NoError(t, err)
		assert.Equal(t, []string{`spec: Invalid value: "object": validation failed due to running out of cost budget, no further validation rules will be run`},
			validate(t, sc, `{"spec":{"words":["a","b","c","d","e","f","g","h","i","j"]}}`))
	})
	t.Run("refused at compile time", func(t *testing.T) {
		_, err := Compile(mustProps(t, `{"type":"object","properties":{"l":{"type":"array","items":{"type":"string"},"x-kubernetes-validations":[{"rule":"self.all(x, self.all(y, x.contains(y)))"}]}}}`), nil)
		require.ErrorIs(t, err, ErrInvalidSchema)
		assert.Contains(t, err.Error(), "estimated rule cost exceeds budget by factor of more than 100x")
	})
}

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		name, schema string
		is           error
		contains     string
	}{
		{"not structural", `{"type":"object","properties":{"a":{}}}`, ErrNotStructural, "must not be empty for specified object fields"},
		{"$ref", `{"type":"object","properties":{"a":{"$ref":"#"}}}`, ErrNotStructural, "'$ref' is not supported"},
		{"bad pattern", `{"type":"object","properties":{"a":{"type":"string","pattern":"("}}}`, ErrNotStructural, "must be a valid regular expression"},
		{"rule syntax", `{"type":"object","x-kubernetes-validations":[{"rule":"self.("}]}`, ErrInvalidSchema, "compilation failed"},
		{"too deep", `{"type":"object","properties":{"a":` + strings.Repeat(`{"type":"object","properties":{"a":`, MaxDepth+1) + `{"type":"string"}` + strings.Repeat(`}}`, MaxDepth+1) + `}}`, ErrNotStructural, "nested deeper than 512 levels"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compile(mustProps(t, tt.schema), nil)
			require.ErrorIs(t, err, tt.is)
			assert.Contains(t, err.Error(), tt.contains)
		})
	}
}

func TestCELKeyedLists(t *testing.T) {
	sc := mustCompile(t, `{"type":"object","properties":{"spec":{"type":"object","properties":{
	 "set":{"type":"array","maxItems":10,"x-kubernetes-list-type":"set","items":{"type":"string","maxLength":8},
	   "x-kubernetes-validations":[{"rule":"self == oldSelf","message":"set is immutable"},{"rule":"(self + ['a']).size() <= 3","message":"set union too big"}]},
	 "map":{"type":"array","maxItems":10,"x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["k"],
	   "items":{"type":"object","required":["k"],"properties":{"k":{"type":"string","maxLength":8},"v":{"type":"integer"}}},
	   "x-kubernetes-validations":[{"rule":"self == oldSelf","message":"map is immutable"},{"rule":"(self + self).size() == self.size()","message":"merging a map list with itself adds nothing"}]},
	 "list":{"type":"array","maxItems":10,"items":{"type":"string","maxLength":8},"x-kubernetes-validations":[{"rule":"self == oldSelf","message":"list is immutable"}]}
	}}}}`)
	ctx := context.Background()
	old := mustObj(t, `{"spec":{"set":["a","b"],"map":[{"k":"x","v":1},{"k":"y","v":2}],"list":["a","b"]}}`)
	reordered := mustObj(t, `{"spec":{"set":["b","a"],"map":[{"k":"y","v":2},{"k":"x","v":1}],"list":["b","a"]}}`)
	assert.Equal(t, []string{`spec.list: Invalid value: "array": list is immutable`}, strs(sc.ValidateUpdate(ctx, reordered, old)))
	changed := mustObj(t, `{"spec":{"set":["a","c"],"map":[{"k":"x","v":3},{"k":"y","v":2}],"list":["a","b"]}}`)
	assert.Equal(t, []string{
		`spec.map: Invalid value: "array": map is immutable`,
		`spec.set: Invalid value: "array": set is immutable`,
	}, strs(sc.ValidateUpdate(ctx, changed, old)))
	assert.Equal(t, []string{`spec.set: Invalid value: "array": set union too big`},
		validate(t, sc, `{"spec":{"set":["b","c","d"]}}`), "a set union keeps one 'a'")
	assert.Empty(t, validate(t, sc, `{"spec":{"set":["a","b","c"]}}`))
}
