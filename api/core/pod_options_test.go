package core

import (
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func i64(n int64) *int64 { return &n }

func TestParsePodLogOptions(t *testing.T) {
	tests := []struct {
		name    string
		query   string
		want    PodLogOptions
		wantErr string
	}{
		{"empty", "", PodLogOptions{}, ""},
		{"everything", "container=c&follow=true&previous=true&timestamps=true&tailLines=10&sinceSeconds=60&limitBytes=5",
			PodLogOptions{Container: "c", Follow: true, Previous: true, Timestamps: true, TailLines: i64(10), SinceSeconds: i64(60), LimitBytes: i64(5)}, ""},
		{"zero tail", "tailLines=0", PodLogOptions{TailLines: i64(0)}, ""},
		{"flags need true", "follow=1&previous=yes", PodLogOptions{}, ""},
		{"unknown parameters ignored", "pretty=true&insecureSkipTLSVerifyBackend=true", PodLogOptions{}, ""},
		{"negative tail", "tailLines=-1", PodLogOptions{}, `invalid tailLines "-1"`},
		{"not a number", "limitBytes=x", PodLogOptions{}, `invalid limitBytes "x"`},
		{"overflow", "sinceSeconds=99999999999999999999", PodLogOptions{}, `invalid sinceSeconds "99999999999999999999"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := url.ParseQuery(tt.query)
			require.NoError(t, err)
			got, err := ParsePodLogOptions(q)
			if tt.wantErr != "" {
				require.ErrorIs(t, err, ErrInvalidOptions)
				assert.EqualError(t, err, tt.wantErr, "the message is the text a client sees")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			back, err := ParsePodLogOptions(got.Query())
			require.NoError(t, err)
			assert.Equal(t, got, back, "Query encodes what ParsePodLogOptions reads")
		})
	}
	assert.Equal(t, url.Values{"follow": {"true"}, "tailLines": {"3"}}, PodLogOptions{Follow: true, TailLines: i64(3)}.Query())
}

func TestParsePodExecOptions(t *testing.T) {
	tests := []struct {
		name    string
		query   string
		want    PodExecOptions
		wantErr string
	}{
		{"kubectl", "command=/hello&command=echo&container=app&stdout=true&stderr=true",
			PodExecOptions{Container: "app", Command: []string{"/hello", "echo"}, Stdout: true, Stderr: true}, ""},
		{"flags as 1", "command=sh&stdin=1&tty=1", PodExecOptions{Command: []string{"sh"}, Stdin: true, TTY: true}, ""},
		{"kubelet names are not the API's", "command=sh&output=1", PodExecOptions{}, "you must specify at least 1 of stdin, stdout, stderr"},
		{"no command", "stdout=true", PodExecOptions{}, "you must specify at least 1 command"},
		{"no stream", "command=sh&stdout=false", PodExecOptions{}, "you must specify at least 1 of stdin, stdout, stderr"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := url.ParseQuery(tt.query)
			require.NoError(t, err)
			got, err := ParsePodExecOptions(q)
			if tt.wantErr != "" {
				require.ErrorIs(t, err, ErrInvalidOptions)
				assert.EqualError(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			back, err := ParsePodExecOptions(got.Query())
			require.NoError(t, err)
			assert.Equal(t, got, back, "Query encodes what ParsePodExecOptions reads")
		})
	}
}

func TestKubeletExecQuery(t *testing.T) {
	o := PodExecOptions{Container: "app", Command: []string{"/hello", "echo", "a b"}, Stdin: true, Stdout: true, TTY: true}
	q := o.KubeletQuery()
	assert.Equal(t, url.Values{"command": {"/hello", "echo", "a b"}, "input": {"1"}, "output": {"1"}, "tty": {"1"}}, q,
		"the kubelet's names, no container (the path names it)")
	back, err := ParseKubeletExecQuery(q)
	require.NoError(t, err)
	o.Container = ""
	assert.Equal(t, o, back)

	back, err = ParseKubeletExecQuery(url.Values{"command": {"x"}, "error": {"true"}})
	require.NoError(t, err)
	assert.Equal(t, PodExecOptions{Command: []string{"x"}, Stderr: true}, back)

	_, err = ParseKubeletExecQuery(url.Values{"command": {"x"}, "stdout": {"1"}})
	assert.ErrorIs(t, err, ErrInvalidOptions, "the API's names are not the kubelet's")
	_, err = ParseKubeletExecQuery(url.Values{"output": {"1"}})
	assert.EqualError(t, err, "you must specify at least 1 command")
}

// FuzzParsePodLogOptions reads arbitrary queries: never a panic, never a
// negative count accepted, every error an ErrInvalidOptions, and what
// parses survives Query unchanged.
func FuzzParsePodLogOptions(f *testing.F) {
	for _, s := range []string{"follow=true&tailLines=10", "tailLines=-1", "limitBytes=x", "sinceSeconds=99999999999999999999", "", "container=%00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		o, err := ParsePodLogOptions(q)
		if err != nil {
			require.ErrorIs(t, err, ErrInvalidOptions)
			return
		}
		for _, v := range []*int64{o.TailLines, o.SinceSeconds, o.LimitBytes} {
			if v != nil && *v < 0 {
				t.Fatalf("negative option accepted from %q", raw)
			}
		}
		back, err := ParsePodLogOptions(o.Query())
		require.NoError(t, err)
		require.Equal(t, o, back)
	})
}

// FuzzParsePodExecOptions reads arbitrary queries in both forms: never a
// panic, what parses has a command and a stream, and survives its
// encoding unchanged.
func FuzzParsePodExecOptions(f *testing.F) {
	for _, s := range []string{"command=sh&stdin=1&tty=1", "command=x&output=1", "stdout=true", "command=&command=%20&error=true", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		for _, form := range []struct {
			parse  func(url.Values) (PodExecOptions, error)
			encode func(PodExecOptions) url.Values
		}{{ParsePodExecOptions, PodExecOptions.Query}, {ParseKubeletExecQuery, PodExecOptions.KubeletQuery}} {
			o, err := form.parse(q)
			if err != nil {
				require.ErrorIs(t, err, ErrInvalidOptions)
				continue
			}
			require.NotEmpty(t, o.Command)
			require.True(t, o.Stdin || o.Stdout || o.Stderr)
			back, err := form.parse(form.encode(o))
			require.NoError(t, err)
			require.Equal(t, o, back)
		}
	})
}
