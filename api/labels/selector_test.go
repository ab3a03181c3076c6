package labels

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/meta"
)

func TestMatches(t *testing.T) {
	labels := Set{"app": "web", "tier": "fe", "n": "5", "empty": ""}
	tests := []struct {
		sel  string
		want bool
	}{
		{"", true},
		{"app=web", true}, {"app==web", true}, {"app=db", false}, {"missing=x", false},
		{"app!=db", true}, {"app!=web", false}, {"missing!=x", true},
		{"tier in (fe,be)", true}, {"tier in (be)", false}, {"missing in (x)", false},
		{"tier notin (be)", true}, {"tier notin (fe)", false}, {"missing notin (x)", true},
		{"app", true}, {"missing", false}, {"!missing", true}, {"!app", false},
		{"empty=", true}, {"empty", true}, {"app=", false}, {"missing=", false}, {"empty in (,x)", true},
		{"n>4", true}, {"n>5", false}, {"n<6", true}, {"app>1", false}, {"missing<1", false},
		{"app=web,tier=fe", true}, {"app=web,tier=be", false},
	}
	for _, tt := range tests {
		t.Run(tt.sel, func(t *testing.T) {
			s, err := Parse(tt.sel)
			require.NoError(t, err)
			assert.Equal(t, tt.want, s.Matches(labels))
		})
	}
	assert.False(t, Nothing().Matches(labels))
	assert.False(t, Nothing().Matches(Set{}))
	assert.True(t, Everything().Matches(Set(nil)))
}

func TestEverythingNothing(t *testing.T) {
	assert.True(t, Everything().Empty())
	assert.Equal(t, "", Everything().String())
	assert.Nil(t, Everything().Requirements())
	assert.False(t, Nothing().Empty())
	assert.Equal(t, "", Nothing().String())
	assert.Nil(t, Nothing().Requirements())
}

func TestSelectorFromSet(t *testing.T) {
	s := SelectorFromSet(Set{"b": "2", "a": "1"})
	assert.Equal(t, "a=1,b=2", s.String())
	assert.True(t, s.Matches(Set{"a": "1", "b": "2", "c": "3"}))
	assert.False(t, s.Matches(Set{"a": "1"}))
	assert.True(t, SelectorFromSet(nil).Empty())
	assert.True(t, Set{}.AsSelector().Matches(Set{"x": "y"}))
	assert.Equal(t, "a=1,b=2", Set{"b": "2", "a": "1"}.String())
	set := Set{"a": "1"}
	assert.True(t, set.Has("a"))
	assert.False(t, set.Has("b"))
	assert.Equal(t, "", set.Get("b"))
}

func TestSelectorFromLabelSelector(t *testing.T) {
	tests := []struct {
		name    string
		ls      *meta.LabelSelector
		want    string
		nothing bool
		wantErr string
	}{
		{name: "nil", ls: nil, nothing: true},
		{name: "empty", ls: &meta.LabelSelector{}, want: ""},
		{name: "labels and expressions", ls: &meta.LabelSelector{
			MatchLabels: map[string]string{"app": "web"},
			MatchExpressions: []meta.LabelSelectorRequirement{
				{Key: "tier", Operator: meta.LabelSelectorOpIn, Values: []string{"fe", "be"}},
				{Key: "env", Operator: meta.LabelSelectorOpNotIn, Values: []string{"prod"}},
				{Key: "canary", Operator: meta.LabelSelectorOpDoesNotExist},
				{Key: "team", Operator: meta.LabelSelectorOpExists},
			}}, want: "app=web,!canary,env notin (prod),team,tier in (be,fe)"},
		{name: "bad operator", ls: &meta.LabelSelector{MatchExpressions: []meta.LabelSelectorRequirement{{Key: "a", Operator: "Gt"}}},
			wantErr: `"Gt" is not a valid label selector operator`},
		{name: "in without values", ls: &meta.LabelSelector{MatchExpressions: []meta.LabelSelectorRequirement{{Key: "a", Operator: "In"}}},
			wantErr: "values set can't be empty"},
		{name: "exists with values", ls: &meta.LabelSelector{MatchExpressions: []meta.LabelSelectorRequirement{{Key: "a", Operator: "Exists", Values: []string{"x"}}}},
			wantErr: "values set must be empty"},
		{name: "bad key", ls: &meta.LabelSelector{MatchLabels: map[string]string{"a b": "c"}}, wantErr: `key "a b"`},
		{name: "bad value", ls: &meta.LabelSelector{MatchLabels: map[string]string{"a": "c d"}}, wantErr: `value "c d"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := SelectorFromLabelSelector(tt.ls)
			if tt.wantErr != "" {
				require.ErrorIs(t, err, ErrInvalidSelector)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			if tt.nothing {
				assert.False(t, s.Matches(Set{}))
				assert.False(t, s.Empty())
				return
			}
			assert.Equal(t, tt.want, s.String())
		})
	}
}

func TestRequirements(t *testing.T) {
	r, err := NewRequirement("a", In, []string{"y", "x", "y"})
	require.NoError(t, err)
	assert.Equal(t, "a", r.Key())
	assert.Equal(t, In, r.Operator())
	assert.Equal(t, []string{"x", "y"}, r.Values())
	vals := r.Values()
	vals[0] = "mutated"
	assert.Equal(t, []string{"x", "y"}, r.Values(), "Values returns a copy")

	s := NewSelector(r)
	reqs := s.Requirements()
	reqs[0] = Requirement{}
	assert.Equal(t, "a in (x,y)", s.String(), "Requirements returns a copy")

	_, err = NewRequirement("a", "~", nil)
	assert.ErrorIs(t, err, ErrInvalidSelector)
	_, err = NewRequirement("a", Equals, []string{"x", "y"})
	assert.ErrorContains(t, err, "exact-match compatibility requires one single value")

	dbl, err := NewRequirement("a", DoubleEquals, []string{""})
	require.NoError(t, err)
	assert.Equal(t, "a=", dbl.String())
	assert.True(t, dbl.Equal(dbl))
	assert.False(t, dbl.Equal(r))
}

func TestRequiresExactMatch(t *testing.T) {
	tests := []struct {
		sel, key, want string
		found          bool
	}{
		{"a=x", "a", "x", true}, {"a==x", "a", "x", true}, {"a in (x)", "a", "x", true},
		{"a in (x,y)", "a", "", false}, {"a!=x", "a", "", false}, {"b=x", "a", "", false},
		{"a in (x,y),a=x", "a", "x", true}, {"a", "a", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.sel, func(t *testing.T) {
			s, err := Parse(tt.sel)
			require.NoError(t, err)
			v, found := RequiresExactMatch(s, tt.key)
			assert.Equal(t, tt.found, found)
			assert.Equal(t, tt.want, v)
		})
	}
}
