package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
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

func TestSaveAndReadKept(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	require.NoError(t, os.MkdirAll(run, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(run, "meta.txt"), []byte("focus=x\nnodes=2\n"), 0o644))
	report := `[{"SpecReports":[
	 {"LeafNodeType":"It","LeafNodeText":"b passes [Conformance]","ContainerHierarchyTexts":["[sig-apps] B"],"State":"passed"},
	 {"LeafNodeType":"It","LeafNodeText":"a fails [Conformance]","ContainerHierarchyTexts":["[sig-network] A"],"State":"failed",
	  "Failure":{"Message":"timed out\nwaiting","Location":{"FileName":"a.go","LineNumber":7}}},
	 {"LeafNodeType":"It","LeafNodeText":"never ran","ContainerHierarchyTexts":["[sig-network] A"],"State":"skipped"},
	 {"LeafNodeType":"SynchronizedBeforeSuite","State":"failed","Failure":{"Message":"no nodes"}}
	]}]`
	require.NoError(t, os.WriteFile(filepath.Join(run, "report.json"), []byte(report), 0o644))

	kept := filepath.Join(dir, "kept.json")
	require.NoError(t, save(kept, run))
	fromDir, err := reportOf(t, run)
	require.NoError(t, err)
	fromKept, err := reportOf(t, kept)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"focus": "x", "nodes": "2"}, mustKept(t, kept).Meta)
	// the same outcomes either way; a passed spec keeps no message
	for name, want := range fromDir {
		got, ok := fromKept[name]
		require.True(t, ok, name)
		if want.State == "passed" {
			want.Where = ""
		}
		assert.Equal(t, want, got, name)
	}
	assert.Len(t, fromKept, 3)
	assert.Equal(t, "suite", fromKept["[suite] SynchronizedBeforeSuite"].Sig)
	assert.Equal(t, "network", fromKept["[sig-network] A a fails [Conformance]"].Sig)

	t.Run("malformed", func(t *testing.T) {
		for name, text := range map[string]string{
			"not json":  "{",
			"no meta":   `{"specs":[]}`,
			"bad state": `{"meta":{},"specs":[{"name":"x","state":"maybe"}]}`,
		} {
			p := filepath.Join(dir, "bad.json")
			require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
			_, _, err := readKept(p)
			assert.Error(t, err, name)
		}
		_, _, err := readAny(filepath.Join(dir, "missing"))
		assert.Error(t, err)
	})
}

// reportOf reports one run into a scratch Markdown file and returns its results.
func reportOf(t *testing.T, arg string) (map[string]result, error) {
	return run("", filepath.Join(t.TempDir(), "out.md"), "", "", []string{arg})
}

func mustKept(t *testing.T, path string) kept {
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var k kept
	require.NoError(t, json.Unmarshal(b, &k))
	return k
}

func TestWriteSuite(t *testing.T) {
	suite := []string{"[sig-apps] a [Conformance]", "[sig-apps] b [Conformance]", "[sig-network] c [Conformance]", "[sig-network] d [Conformance]"}
	results := map[string]result{
		"[sig-apps] a [Conformance]":    {State: "passed"},
		"[sig-apps] b [Conformance]":    {State: "failed"},
		"[sig-network] c [Conformance]": {State: "skipped"},
		"[sig-apps] not conformance":    {State: "passed"}, // run by a focus, not counted
	}
	var b strings.Builder
	w := bufio.NewWriter(&b)
	writeSuite(w, suite, results)
	require.NoError(t, w.Flush())
	out := b.String()
	assert.Contains(t, out, "**1 of the suite's 4 conformance specs passed (25.0%)**; 1 failed, 2 have not run")
	assert.Contains(t, out, "| apps | 2 | 1 | 1 | 0 |")
	assert.Contains(t, out, "| network | 2 | 0 | 0 | 2 |")
	assert.NotContains(t, out, "| node |", "sigs without conformance specs are left out")
	assert.Contains(t, out, "| **total** | **4** | **1** | **1** | **2** |")
}
