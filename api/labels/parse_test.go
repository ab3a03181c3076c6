package labels

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"", ""},
		{"a=b", "a=b"},
		{"a==b", "a==b"},
		{"a!=b", "a!=b"},
		{"a", "a"},
		{"!a", "!a"},
		{"a=b,c!=d,e in (x,y),f notin (z),g,!h", "a=b,c!=d,e in (x,y),f notin (z),g,!h"},
		{"  a = b ,\tc\n!=  d ", "a=b,c!=d"},
		{"z=1,a=2", "a=2,z=1"},
		{"e in (y,x,y)", "e in (x,y)"},
		{"e in(x)", "e in (x)"},
		{"e in ()", "e in ()"},
		{"e in (x,)", "e in (,x)"},
		{"e in (,,x)", "e in (,x)"},
		{"a=", "a="},
		{"a=,b=", "a=,b="},
		{"a!=", "a!="},
		{"in in (in)", "in in (in)"},
		{"notin=in", "notin=in"},
		{"x>1", "x>1"},
		{"x<-1", ""}, // -1 is not a label value: error, see below
		{"example.com/app=web", "example.com/app=web"},
		{"app.kubernetes.io/name in (a.b,c_d,E-1)", "app.kubernetes.io/name in (E-1,a.b,c_d)"},
		{"!a,!b", "!a,!b"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			s, err := Parse(tt.in)
			if tt.in == "x<-1" {
				require.ErrorIs(t, err, ErrInvalidSelector)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, s.String())
			again, err := Parse(s.String())
			require.NoError(t, err)
			assert.Equal(t, s.Requirements(), again.Requirements())
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a in (", "found end of string, expected: ',', ')' or identifier"},
		{"a in", "found end of string, expected: '('"},
		{"a in (b", "found end of string, expected: ',', ')' or identifier"},
		{"a in (b c)", "found 'c' at offset 8, expected: ',', ')' or identifier"},
		{"a in b", "found 'b' at offset 5, expected: '('"},
		{"=b", "found '=' at offset 0, expected: identifier"},
		{"a==", "found end of string, expected: a value after '=='"},
		{"a==,b", "found ',' at offset 3, expected: a value after '=='"},
		{"a=b=c", "found '=' at offset 3, expected: ',' or end of string"},
		{"a b", "found 'b' at offset 2, expected: in, notin, =, ==, !=, >, <"},
		{"a,", "found end of string, expected: identifier after ','"},
		{",a", "found ',' at offset 0, expected: identifier"},
		{"a,,b", "found ',' at offset 2, expected: identifier after ','"},
		{"!a=b", "found '=' at offset 2, expected: ',' or end of string after '!a'"},
		{"!", "found end of string, expected: identifier"},
		{"!!a", "found '!' at offset 1, expected: identifier"},
		{"a=(b)", "found '(' at offset 2, expected: a value after '='"},
		{"a>b", "for 'Gt', 'Lt' operators, the value must be an integer"},
		{strings.Repeat("k", 64) + "=v", "name part must be no more than 63 characters"},
		{"a=" + strings.Repeat("v", 64), "must be no more than 63 characters"},
		{"a=b/c", `value "b/c"`},
		{"Bad Key=1", "found 'Key' at offset 4"},
		{"-a=b", `key "-a": name part must consist of`},
		{"a in (x),b notin (-y)", `value "-y"`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, err := Parse(tt.in)
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrInvalidSelector)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}
