// Command report turns the ginkgo JSON reports of conformance runs
// (compat/conformance/run.sh's output directories) into CONFORMANCE.md:
// per sig the specs run, passed and failed, and every failing spec with
// its cause.
//
//	report --causes causes.txt --notes notes.md --md CONFORMANCE.md RUNDIR...
//	report --require ci-specs.txt --md RUNDIR/CONFORMANCE.md RUNDIR
//
// A RUNDIR holds report.json (ginkgo --json-report) and meta.txt (the
// run's focus, skip, cluster shape and command, written by run.sh). An
// argument that is a file instead is a run's kept results: the small JSON
// that --save writes (meta and every spec's outcome), which the
// repository keeps under compat/conformance/results so that CONFORMANCE.md
// can be regenerated after the run directories are gone:
//
//	report --save RUNDIR/results.json --md /dev/null RUNDIR
//
// A
// cause is the first line of the causes file whose regular expression
// matches the spec's name, its failure message or its location; a failure nothing
// matches is listed as "untriaged" with the first line of its message.
// When several runs hold the same spec, the later run's result counts.
//
// With --require FILE (one full spec name a line; blank lines and lines
// starting with # are ignored) report still writes the Markdown, then exits
// 1 unless every named spec ran and passed, listing those that failed,
// were skipped or never ran (a spec renamed upstream shows up as never run).
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/onsi/ginkgo/v2/types"
)

func main() {
	causesPath := flag.String("causes", "", "file of 'REGEXP<TAB>cause' lines; # starts a comment")
	mdPath := flag.String("md", "CONFORMANCE.md", "the Markdown report to write")
	notesPath := flag.String("notes", "", "a Markdown file inserted after the runs (images, bugs, build figures)")
	requirePath := flag.String("require", "", "file of full spec names (one a line) that must all have passed; exit 1 otherwise")
	savePath := flag.String("save", "", "also write the (single) run's kept results, small JSON, to this file")
	list := flag.Bool("list", false, "only print the names of the specs the run holds, one a line (with a dry run: the suite's spec list)")
	suitePath := flag.String("suite", "", "file of every [Conformance] spec name of the suite (one a line): adds how many of them passed and never ran")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "report: name at least one run directory or results file")
		os.Exit(2)
	}
	if *list {
		if err := printNames(flag.Args()); err != nil {
			fmt.Fprintln(os.Stderr, "report:", err)
			os.Exit(1)
		}
		return
	}
	if *savePath != "" {
		if flag.NArg() != 1 {
			fmt.Fprintln(os.Stderr, "report: --save takes exactly one run")
			os.Exit(2)
		}
		if err := save(*savePath, flag.Arg(0)); err != nil {
			fmt.Fprintln(os.Stderr, "report:", err)
			os.Exit(1)
		}
	}
	results, err := run(*causesPath, *mdPath, *notesPath, *suitePath, flag.Args())
	if err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
	if *requirePath == "" {
		return
	}
	names, err := readRequired(*requirePath)
	if err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
	bad := unmet(names, results)
	for _, b := range bad {
		fmt.Fprintln(os.Stderr, "report: required spec not passed:", b)
	}
	fmt.Printf("report: %d of %d required specs passed\n", len(names)-len(bad), len(names))
	if len(bad) > 0 {
		os.Exit(1)
	}
}

// run reads the run directories, writes the Markdown report and returns
// every spec's result (the later run's when several ran it).
func run(causesPath, mdPath, notesPath, suitePath string, dirs []string) (map[string]result, error) {
	var suite []string
	if suitePath != "" {
		var err error
		if suite, err = readRequired(suitePath); err != nil {
			return nil, err
		}
	}
	var notes []byte
	if notesPath != "" {
		var err error
		if notes, err = os.ReadFile(notesPath); err != nil {
			return nil, err
		}
	}
	var cs []cause
	if causesPath != "" {
		var err error
		if cs, err = readCauses(causesPath); err != nil {
			return nil, err
		}
	}
	var runs []runInfo
	results := map[string]result{}
	for _, d := range dirs {
		r, specs, err := readAny(d)
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
		for _, s := range specs {
			s.Cause = classify(cs, s)
			results[s.Name] = s
		}
	}
	f, err := os.Create(mdPath)
	if err != nil {
		return nil, err
	}
	w := bufio.NewWriter(f)
	writeMarkdown(w, runs, notes, results, suite)
	if err := w.Flush(); err != nil {
		f.Close()
		return nil, err
	}
	return results, f.Close()
}

// runInfo is one run directory's meta.txt.
type runInfo struct {
	Dir  string
	Meta map[string]string
}

// result is one spec's outcome.
type result struct {
	Name    string `json:"name"`
	Sig     string `json:"-"`
	State   string `json:"state"`             // passed, failed (panicked, timedout, interrupted, aborted count as failed), skipped
	Message string `json:"message,omitempty"` // the failure or skip message
	Where   string `json:"where,omitempty"`   // the failure's code location
	Cause   string `json:"-"`
}

// kept is a run's kept results: what --save writes and a results file
// argument holds.
type kept struct {
	Meta  map[string]string `json:"meta"`
	Specs []result          `json:"specs"`
}

// maxKeptMessage bounds a kept failure message: the report shows the first
// line, causes match on the whole message.
const maxKeptMessage = 4096

// save writes the kept results of one run (a directory or a results file).
func save(path, arg string) error {
	info, specs, err := readAny(arg)
	if err != nil {
		return err
	}
	k := kept{Meta: info.Meta, Specs: make([]result, len(specs))}
	for i, s := range specs {
		if s.State == "passed" {
			s.Message, s.Where = "", ""
		}
		if r := []rune(s.Message); len(r) > maxKeptMessage {
			s.Message = string(r[:maxKeptMessage]) + "…"
		}
		k.Specs[i] = s
	}
	sort.Slice(k.Specs, func(i, j int) bool { return k.Specs[i].Name < k.Specs[j].Name })
	b, err := json.MarshalIndent(k, "", "\t")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// printNames prints the sorted names of every spec the runs hold.
func printNames(args []string) error {
	var names []string
	for _, a := range args {
		_, specs, err := readAny(a)
		if err != nil {
			return err
		}
		for _, s := range specs {
			if s.Sig != "suite" {
				names = append(names, s.Name)
			}
		}
	}
	sort.Strings(names)
	for _, n := range slices.Compact(names) {
		fmt.Println(n)
	}
	return nil
}

// readAny reads a run directory or a kept results file.
func readAny(arg string) (runInfo, []result, error) {
	st, err := os.Stat(arg)
	if err != nil {
		return runInfo{}, nil, err
	}
	if st.IsDir() {
		return readRun(arg)
	}
	return readKept(arg)
}

// readKept reads a results file written by --save.
func readKept(path string) (runInfo, []result, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return runInfo{}, nil, err
	}
	var k kept
	if err := json.Unmarshal(b, &k); err != nil {
		return runInfo{}, nil, fmt.Errorf("%s: %w", path, err)
	}
	if k.Meta == nil {
		return runInfo{}, nil, fmt.Errorf("%s: no meta: not a results file written by report --save", path)
	}
	for i, s := range k.Specs {
		switch s.State {
		case "passed", "failed", "skipped":
		default:
			return runInfo{}, nil, fmt.Errorf("%s: spec %q: state %q is not passed, failed or skipped", path, s.Name, s.State)
		}
		k.Specs[i].Sig = sigOf(s.Name)
	}
	return runInfo{Dir: path, Meta: k.Meta}, k.Specs, nil
}

// sigOf is the sig a spec's name is tagged with, "other" if none.
func sigOf(name string) string {
	if strings.HasPrefix(name, "[suite] ") {
		return "suite"
	}
	if m := sigRE.FindStringSubmatch(name); m != nil {
		return m[1]
	}
	return "other"
}

var sigRE = regexp.MustCompile(`\[sig-([a-z-]+)\]`)

// readRun reads one run directory; specs ginkgo never ran (filtered out
// by the focus) are dropped, specs skipped at run time are kept.
func readRun(dir string) (runInfo, []result, error) {
	info := runInfo{Dir: dir, Meta: map[string]string{}}
	if b, err := os.ReadFile(filepath.Join(dir, "meta.txt")); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, "="); ok {
				info.Meta[k] = v
			}
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		return info, nil, err
	}
	var reports []types.Report
	if err := json.Unmarshal(b, &reports); err != nil {
		return info, nil, fmt.Errorf("%s/report.json: %w", dir, err)
	}
	var out []result
	for _, rep := range reports {
		for _, sr := range rep.SpecReports {
			if sr.LeafNodeType != types.NodeTypeIt {
				if sr.State.Is(types.SpecStateFailureStates) {
					// a suite-level node failed (setup): report it as a spec
					out = append(out, result{Name: "[suite] " + sr.LeafNodeType.String(), Sig: sigOf("[suite] "), State: "failed",
						Message: sr.Failure.Message, Where: sr.Failure.Location.String()})
				}
				continue
			}
			name := sr.FullText()
			if sr.State == types.SpecStateSkipped && sr.Failure.Message == "" {
				continue // filtered out, never ran
			}
			res := result{Name: name, Sig: sigOf(name), Message: strings.TrimSpace(sr.Failure.Message), Where: sr.Failure.Location.String()}
			switch {
			case sr.State == types.SpecStatePassed:
				res.State = "passed"
			case sr.State == types.SpecStateSkipped:
				res.State = "skipped"
			default:
				res.State = "failed"
				if sr.State != types.SpecStateFailed {
					res.Message = sr.State.String() + ": " + res.Message
				}
			}
			out = append(out, res)
		}
	}
	return info, out, nil
}

// cause is one line of the causes file.
type cause struct {
	re   *regexp.Regexp
	text string
}

func readCauses(path string) ([]cause, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var cs []cause
	for i, line := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		pat, text, ok := strings.Cut(line, "\t")
		if !ok {
			return nil, fmt.Errorf("%s:%d: want REGEXP<TAB>cause", path, i+1)
		}
		re, err := regexp.Compile(pat)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, i+1, err)
		}
		cs = append(cs, cause{re: re, text: strings.TrimSpace(text)})
	}
	return cs, nil
}

// classify names a failed spec's cause.
func classify(cs []cause, r result) string {
	if r.State != "failed" {
		return ""
	}
	subject := r.Name + "\n" + r.Message + "\n" + r.Where
	for _, c := range cs {
		if c.re.MatchString(subject) {
			return c.text
		}
	}
	return "untriaged"
}

// readRequired reads a --require file: one full spec name a line, blank
// lines and # comments ignored.
func readRequired(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, line := range strings.Split(string(b), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			names = append(names, line)
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%s: no spec names", path)
	}
	return names, nil
}

// unmet lists, in the order given, each required spec that did not pass,
// with what happened to it instead.
func unmet(required []string, results map[string]result) []string {
	var bad []string
	for _, n := range required {
		r, ok := results[n]
		switch {
		case !ok:
			bad = append(bad, n+": never ran (not in the binary, or filtered out)")
		case r.State != "passed":
			bad = append(bad, fmt.Sprintf("%s: %s (%s)", n, r.State, firstLine(r.Message, 200)))
		}
	}
	return bad
}

// firstLine is s's first non-empty line, cut to n runes.
func firstLine(s string, n int) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			if r := []rune(l); len(r) > n {
				return string(r[:n]) + "…"
			}
			return l
		}
	}
	return ""
}

// sigs are the report's rows, in the order the brief lists them; a sig
// with no spec in any run is shown with zeros.
var sigs = []string{"api-machinery", "apps", "auth", "cli", "node", "network", "scheduling", "storage", "instrumentation", "architecture"}

func writeMarkdown(w *bufio.Writer, runs []runInfo, notes []byte, results map[string]result, suite []string) {
	names := make([]string, 0, len(results))
	for n := range results {
		names = append(names, n)
	}
	sort.Strings(names)
	type counts struct{ run, passed, failed, skipped int }
	per := map[string]*counts{}
	rows := append([]string(nil), sigs...)
	var total counts
	for _, n := range names {
		r := results[n]
		c := per[r.Sig]
		if c == nil {
			c = &counts{}
			per[r.Sig] = c
			if !contains(rows, r.Sig) {
				rows = append(rows, r.Sig)
			}
		}
		for _, cc := range []*counts{c, &total} {
			switch r.State {
			case "passed":
				cc.run++
				cc.passed++
			case "failed":
				cc.run++
				cc.failed++
			case "skipped":
				cc.skipped++
			}
		}
	}
	writeHeader(w, runs)
	if len(notes) > 0 {
		w.Write(notes)
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "## Results per sig\n\n| sig | run | passed | failed | skipped at run time |\n| --- | ---: | ---: | ---: | ---: |\n")
	for _, s := range rows {
		c := per[s]
		if c == nil {
			c = &counts{}
		}
		fmt.Fprintf(w, "| %s | %d | %d | %d | %d |\n", s, c.run, c.passed, c.failed, c.skipped)
	}
	fmt.Fprintf(w, "| **total** | **%d** | **%d** | **%d** | **%d** |\n\n", total.run, total.passed, total.failed, total.skipped)
	if suite != nil {
		writeSuite(w, suite, results)
	}
	writeCauses(w, names, results)
	writeFailures(w, names, results)
	writeSkips(w, names, results)
}

// writeSuite measures the results against the suite's own list of
// conformance specs: per sig how many it has, how many passed, failed and
// never ran, and the share of all that passed. Specs a focus ran beyond
// [Conformance] ones (the table above counts them) do not count here.
func writeSuite(w *bufio.Writer, suite []string, results map[string]result) {
	type counts struct{ all, passed, failed, notRun int }
	per := map[string]*counts{}
	rows := append([]string(nil), sigs...)
	var total counts
	for _, n := range suite {
		sig := sigOf(n)
		c := per[sig]
		if c == nil {
			c = &counts{}
			per[sig] = c
			if !contains(rows, sig) {
				rows = append(rows, sig)
			}
		}
		for _, cc := range []*counts{c, &total} {
			cc.all++
			switch results[n].State {
			case "passed":
				cc.passed++
			case "failed":
				cc.failed++
			default: // never ran, or skipped at run time
				cc.notRun++
			}
		}
	}
	fmt.Fprintf(w, "**%d of the suite's %d conformance specs passed (%.1f%%)**; %d failed, %d have not run (or were skipped at run time).\n\n",
		total.passed, total.all, 100*float64(total.passed)/float64(max(total.all, 1)), total.failed, total.notRun)
	fmt.Fprintf(w, "| sig | conformance specs | passed | failed | not run |\n| --- | ---: | ---: | ---: | ---: |\n")
	for _, s := range rows {
		if c := per[s]; c != nil {
			fmt.Fprintf(w, "| %s | %d | %d | %d | %d |\n", s, c.all, c.passed, c.failed, c.notRun)
		}
	}
	fmt.Fprintf(w, "| **total** | **%d** | **%d** | **%d** | **%d** |\n\n", total.all, total.passed, total.failed, total.notRun)
}

func writeHeader(w *bufio.Writer, runs []runInfo) {
	fmt.Fprintf(w, "<!-- Generated by compat/conformance/run.sh (compat/conformance/suite/report); causes from compat/conformance/causes.txt. -->\n")
	fmt.Fprintf(w, "# Kubernetes conformance results\n\n")
	fmt.Fprintf(w, "The `[Conformance]` specs of the Kubernetes e2e suite (k8s.io/kubernetes test/e2e, built from the Go module proxy as pinned in `compat/conformance/suite/go.mod`), run unpatched with the suite's own timeouts against an orkit minicluster.\n\n")
	fmt.Fprintf(w, "## Runs\n\n")
	for i, r := range runs {
		m := r.Meta
		fmt.Fprintf(w, "%d. suite %s; %s real + %s simulated nodes; %s ginkgo processes; %s to %s (ginkgo exit %s)\n",
			i+1, m["version"], m["nodes"], m["sim_nodes"], m["procs"], m["started"], m["finished"], m["ginkgo_exit"])
		fmt.Fprintf(w, "   - focus `%s`, skip `%s`\n   - `%s`\n", m["focus"], orNone(m["skip"]), m["command"])
	}
	fmt.Fprintln(w)
}

func writeCauses(w *bufio.Writer, names []string, results map[string]result) {
	byCause := map[string]int{}
	for _, n := range names {
		if r := results[n]; r.State == "failed" {
			byCause[r.Cause]++
		}
	}
	if len(byCause) == 0 {
		return
	}
	keys := make([]string, 0, len(byCause))
	for k := range byCause {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if byCause[keys[i]] != byCause[keys[j]] {
			return byCause[keys[i]] > byCause[keys[j]]
		}
		return keys[i] < keys[j]
	})
	fmt.Fprintf(w, "## Failures by cause\n\n| failed | cause |\n| ---: | --- |\n")
	for _, k := range keys {
		fmt.Fprintf(w, "| %d | %s |\n", byCause[k], k)
	}
	fmt.Fprintln(w)
}

func writeFailures(w *bufio.Writer, names []string, results map[string]result) {
	fmt.Fprintf(w, "## Failing specs\n\n")
	for _, s := range append(append([]string(nil), sigs...), "other", "suite") {
		first := true
		for _, n := range names {
			r := results[n]
			if r.State != "failed" || r.Sig != s && !(s == "other" && !contains(sigs, r.Sig) && r.Sig != "suite") {
				continue
			}
			if first {
				fmt.Fprintf(w, "### %s\n\n", s)
				first = false
			}
			fmt.Fprintf(w, "- %s\n  - cause: %s\n  - `%s` (%s)\n", mdEscape(r.Name), r.Cause, mdCode(firstLine(r.Message, 300)), r.Where)
		}
		if !first {
			fmt.Fprintln(w)
		}
	}
}

func writeSkips(w *bufio.Writer, names []string, results map[string]result) {
	first := true
	for _, n := range names {
		r := results[n]
		if r.State != "skipped" {
			continue
		}
		if first {
			fmt.Fprintf(w, "## Skipped at run time\n\n")
			first = false
		}
		fmt.Fprintf(w, "- %s: `%s`\n", mdEscape(r.Name), mdCode(firstLine(r.Message, 200)))
	}
	if !first {
		fmt.Fprintln(w)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// mdEscape keeps a spec name's brackets from being read as links.
func mdEscape(s string) string {
	return strings.NewReplacer("[", `\[`, "]", `\]`, "*", `\*`, "_", `\_`).Replace(s)
}

// mdCode makes s safe inside a one-line code span.
func mdCode(s string) string { return strings.ReplaceAll(s, "`", "'") }

// orNone shows an empty setting as "(none)".
func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
