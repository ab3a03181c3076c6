package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestUnmet(t *testing.T) {
	results := map[string]result{
		"a passes": {Name: "a passes", State: "passed"},
		"b fails":  {Name: "b fails", State: "failed", Message: "timed out\nmore"},
		"c skips":  {Name: "c skips", State: "skipped", Message: "no nodes"},
	}
	tests := []struct {
		name     string
		required []string
		want     []string
	}{
		{"all passed", []string{"a passes"}, nil},
		{"failed", []string{"a passes", "b fails"}, []string{"b fails: failed (timed out)"}},
		{"skipped", []string{"c skips"}, []string{"c skips: skipped (no nodes)"}},
		{"never ran", []string{"d renamed"}, []string{"d renamed: never ran (not in the binary, or filtered out)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, unmet(tt.required, results))
		})
	}
}

func TestReadRequired(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		text    string
		want    []string
		wantErr bool
	}{
		{"names and comments", "# CI subset\n\n[sig-x] a [Conformance]\n  [sig-x] b [Conformance]  \n", []string{"[sig-x] a [Conformance]", "[sig-x] b [Conformance]"}, false},
		{"empty", "# nothing\n\n", nil, true},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(dir, string(rune('a'+i)))
			require.NoError(t, os.WriteFile(p, []byte(tt.text), 0o644))
			got, err := readRequired(p)
			if tt.wantErr {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
	_, err := readRequired(filepath.Join(dir, "missing"))
	assert.Error(t, err)
}
