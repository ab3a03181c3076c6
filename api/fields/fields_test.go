package fields

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in, want string
		reqs     []Requirement
	}{
		{in: "", want: ""},
		{in: ",", want: ""},
		{in: "metadata.name=x", want: "metadata.name=x", reqs: []Requirement{{"metadata.name", Equals, "x"}}},
		{in: "metadata.name==x", want: "metadata.name=x", reqs: []Requirement{{"metadata.name", Equals, "x"}}},
		{in: "spec.nodeName!=y", want: "spec.nodeName!=y", reqs: []Requirement{{"spec.nodeName", NotEquals, "y"}}},
		{in: "metadata.name=x,spec.nodeName!=y", want: "metadata.name=x,spec.nodeName!=y"},
		{in: "spec.nodeName!=y,metadata.name=x", want: "metadata.name=x,spec.nodeName!=y"},
		{in: "spec.nodeName=", want: "spec.nodeName=", reqs: []Requirement{{"spec.nodeName", Equals, ""}}},
		{in: "a=x,,b=y,", want: "a=x,b=y"},
		{in: `a=x\,y`, want: `a=x\,y`, reqs: []Requirement{{"a", Equals, "x,y"}}},
		{in: `a=x\=y`, want: `a=x\=y`, reqs: []Requirement{{"a", Equals, "x=y"}}},
		{in: `a=x\\y`, want: `a=x\\y`, reqs: []Requirement{{"a", Equals, `x\y`}}},
		{in: `a=x\\,b=y`, want: `a=x\\,b=y`, reqs: []Requirement{{"a", Equals, `x\`}, {"b", Equals, "y"}}},
		{in: "a!b=c", want: "a!b=c", reqs: []Requirement{{"a!b", Equals, "c"}}},
		{in: "a=b!c", want: "a=b!c", reqs: []Requirement{{"a", Equals, "b!c"}}},
		{in: "a!=", want: "a!=", reqs: []Requirement{{"a", NotEquals, ""}}},
		{in: "a = b", want: "a = b", reqs: []Requirement{{"a ", Equals, " b"}}},
		{in: "status.phase=Running,status.phase!=Failed", want: "status.phase!=Failed,status.phase=Running"},
		{in: "a=é", want: "a=é"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			s, err := Parse(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, s.String())
			if tt.reqs != nil {
				assert.Equal(t, tt.reqs, s.Requirements())
			}
			again, err := Parse(s.String())
			require.NoError(t, err)
			assert.Equal(t, s.Requirements(), again.Requirements())
			assert.Equal(t, tt.want == "", s.Empty())
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a", "can't understand 'a': expected field=value, field==value or field!=value"},
		{"a=b,c", "can't understand 'c'"},
		{"=x", "can't understand '=x': the field name is empty"},
		{"!=x", "the field name is empty"},
		{"a=b=c", "in 'a=b=c': unescaped character in value: '='"},
		{"a===b", "unescaped character in value: '='"},
		{"a!==b", "unescaped character in value: '='"},
		{`a=b\`, `in 'a=b\': invalid escape sequence: a lone '\' ends the value`},
		{`a=b\n`, `invalid escape sequence: "\\n"`},
		{`a=\é`, `invalid escape sequence: "\\é"`},
		{"a!b", "can't understand 'a!b'"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, err := Parse(tt.in)
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrInvalidSelector)
			assert.Contains(t, err.Error(), tt.want)
			assert.True(t, strings.HasPrefix(err.Error(), `invalid field selector "`), err.Error())
		})
	}
}

func TestMatches(t *testing.T) {
	f := Set{"metadata.name": "web", "spec.nodeName": "node-1", "status.phase": ""}
	tests := []struct {
		sel  string
		want bool
	}{
		{"", true},
		{"metadata.name=web", true}, {"metadata.name==web", true}, {"metadata.name=db", false},
		{"metadata.name!=db", true}, {"metadata.name!=web", false},
		{"spec.nodeName=", false}, {"status.phase=", true}, {"missing=", true}, {"missing!=", false},
		{"missing!=x", true}, {"missing=x", false},
		{"metadata.name=web,spec.nodeName=node-1", true}, {"metadata.name=web,spec.nodeName!=node-1", false},
	}
	for _, tt := range tests {
		t.Run(tt.sel, func(t *testing.T) {
			s, err := Parse(tt.sel)
			require.NoError(t, err)
			assert.Equal(t, tt.want, s.Matches(f))
		})
	}
	assert.True(t, Everything().Matches(Set(nil)))
	assert.True(t, Everything().Empty())
	assert.Equal(t, "", Everything().String())
	assert.Nil(t, Everything().Requirements())
}

func TestRequiresExactMatch(t *testing.T) {
	tests := []struct {
		sel, field, want string
		found            bool
	}{
		{"spec.nodeName=n1", "spec.nodeName", "n1", true},
		{"spec.nodeName==n1,metadata.name=x", "spec.nodeName", "n1", true},
		{"spec.nodeName=", "spec.nodeName", "", true},
		{"spec.nodeName!=n1", "spec.nodeName", "", false},
		{"metadata.name=x", "spec.nodeName", "", false},
		{"", "spec.nodeName", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.sel, func(t *testing.T) {
			s, err := Parse(tt.sel)
			require.NoError(t, err)
			v, found := s.RequiresExactMatch(tt.field)
			assert.Equal(t, tt.found, found)
			assert.Equal(t, tt.want, v)
		})
	}
}

func TestConstructors(t *testing.T) {
	s := OneTermEqualSelector("metadata.name", "a,b")
	assert.Equal(t, `metadata.name=a\,b`, s.String())
	assert.True(t, s.Matches(Set{"metadata.name": "a,b"}))
	v, ok := s.RequiresExactMatch("metadata.name")
	assert.True(t, ok)
	assert.Equal(t, "a,b", v)

	n := OneTermNotEqualSelector("spec.nodeName", "")
	assert.Equal(t, "spec.nodeName!=", n.String())
	assert.False(t, n.Matches(Set{}))

	set := Set{"b": "2", "a": `x=\`}
	assert.Equal(t, `a=x\=\\,b=2`, set.String())
	assert.True(t, set.AsSelector().Matches(set))
	assert.True(t, set.Has("a"))
	assert.False(t, set.Has("c"))
	assert.Equal(t, "2", set.Get("b"))

	sel := NewSelector(Requirement{"b", DoubleEquals, "1"}, Requirement{"a", NotEquals, "2"})
	assert.Equal(t, "a!=2,b=1", sel.String())
	reqs := sel.Requirements()
	reqs[0].Value = "mutated"
	assert.Equal(t, "a!=2,b=1", sel.String(), "Requirements returns a copy")

	assert.Equal(t, `\\\,\=plain`, EscapeValue(`\,=plain`))
}
