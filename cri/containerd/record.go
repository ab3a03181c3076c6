package containerd

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/containerd/containerd/containers"
	"github.com/containerd/typeurl/v2"

	"github.com/orkit/orkit/cri"
)

// Labels on containerd containers. Identity labels are set at creation;
// status labels are updated as the object changes and are what makes the
// status recoverable.
const (
	labelKind      = "io.orkit.kind" // "sandbox" or "container"
	labelSandboxID = "io.orkit.sandbox-id"
	labelName      = "io.orkit.name" // pod name or container name
	labelPodNS     = "io.orkit.pod-namespace"
	labelPodUID    = "io.orkit.pod-uid"
	labelAttempt   = "io.orkit.attempt"
	labelStarted   = "io.orkit.started-at"  // RFC 3339 nano
	labelFinished  = "io.orkit.finished-at" // RFC 3339 nano
	labelExitCode  = "io.orkit.exit-code"
	labelReason    = "io.orkit.reason"
	labelMessage   = "io.orkit.message"
	labelPodIP     = "io.orkit.pod-ip"
	labelPodIPs    = "io.orkit.pod-additional-ips" // comma separated
	labelStdinDone = "io.orkit.stdin-closed"       // "true" once stdinOnce closed stdin

	kindSandbox   = "sandbox"
	kindContainer = "container"

	extSandbox   = "io.orkit.sandbox"
	extContainer = "io.orkit.container"
	typeSandbox  = "orkit.io/cri/SandboxRecord"
	typeCtr      = "orkit.io/cri/ContainerRecord"

	// maxRecordSize bounds a stored record (configs carry user labels
	// and annotations; the apiserver bounds those well below this).
	maxRecordSize = 1 << 20
)

// sandboxRecord is a sandbox's immutable part, stored as an extension.
type sandboxRecord struct {
	Config    cri.PodSandboxConfig
	NetNSPath string `json:",omitempty"`
}

// containerRecord is a container's immutable part, stored as an extension.
type containerRecord struct {
	SandboxID string
	Config    cri.ContainerConfig
	ImageRef  string
	LogPath   string `json:",omitempty"`
	// Resources are the current limits (UpdateContainerResources).
	Resources *cri.LinuxContainerResources `json:",omitempty"`
}

// jsonAny is a typeurl.Any holding JSON.
type jsonAny struct {
	url   string
	value []byte
}

func (a jsonAny) GetTypeUrl() string { return a.url }
func (a jsonAny) GetValue() []byte   { return a.value }

func marshalRecord(url string, v any) (typeurl.Any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", url, err)
	}
	if len(b) > maxRecordSize {
		return nil, fmt.Errorf("record %s is %d bytes, over %d: %w", url, len(b), maxRecordSize, cri.ErrInvalidArgument)
	}
	return jsonAny{url: url, value: b}, nil
}

// decodeRecord decodes the extension name of c, of type url, into v.
func decodeRecord(exts map[string]typeurl.Any, name, url string, v any) error {
	a, ok := exts[name]
	if !ok || a == nil {
		return fmt.Errorf("extension %s missing", name)
	}
	return decodeRecordBytes(a.GetTypeUrl(), url, a.GetValue(), v)
}

func decodeRecordBytes(gotURL, wantURL string, b []byte, v any) error {
	if gotURL != wantURL {
		return fmt.Errorf("extension has type %q, want %q", gotURL, wantURL)
	}
	if len(b) > maxRecordSize {
		return fmt.Errorf("extension %s is %d bytes, over %d", wantURL, len(b), maxRecordSize)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("decode %s: %w", wantURL, err)
	}
	return nil
}

func sandboxRecordOf(c containers.Container) (sandboxRecord, error) {
	var rec sandboxRecord
	err := decodeRecord(c.Extensions, extSandbox, typeSandbox, &rec)
	return rec, err
}

func containerRecordOf(c containers.Container) (containerRecord, error) {
	var rec containerRecord
	err := decodeRecord(c.Extensions, extContainer, typeCtr, &rec)
	return rec, err
}

// sandboxID derives a sandbox's ID from its pod's identity: the same
// metadata gives the same ID, so a duplicate fails to create atomically.
func sandboxID(m cri.PodSandboxMetadata) string {
	return hashID("sandbox", m.Namespace, m.Name, m.UID, strconv.FormatUint(uint64(m.Attempt), 10))
}

// containerID derives a container's ID from its sandbox, name and attempt.
func containerID(sandbox string, m cri.ContainerMetadata) string {
	return hashID("container", sandbox, m.Name, strconv.FormatUint(uint64(m.Attempt), 10))
}

func hashID(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(h[:16])
}

// exitRecord is the recorded end of a container.
type exitRecord struct {
	finished time.Time
	code     int32
	reason   string
	message  string
}

// labelsOfExit returns the labels recording e.
func labelsOfExit(e exitRecord) map[string]string {
	return map[string]string{
		labelFinished: e.finished.UTC().Format(time.RFC3339Nano),
		labelExitCode: strconv.FormatInt(int64(e.code), 10),
		labelReason:   e.reason,
		labelMessage:  e.message,
	}
}

// exitOfLabels reads a recorded exit; ok is false when none is recorded
// or the labels are malformed (then the task's status is used instead).
func exitOfLabels(l map[string]string) (exitRecord, bool) {
	fin, ok := l[labelFinished]
	if !ok {
		return exitRecord{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, fin)
	if err != nil {
		return exitRecord{}, false
	}
	code, err := strconv.ParseInt(l[labelExitCode], 10, 32)
	if err != nil {
		return exitRecord{}, false
	}
	return exitRecord{finished: t, code: int32(code), reason: l[labelReason], message: l[labelMessage]}, true
}

// timeLabel parses a time label; zero when absent or malformed.
func timeLabel(l map[string]string, key string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, l[key])
	if err != nil {
		return time.Time{}
	}
	return t
}

// reasonFor names an exit as CRI does.
func reasonFor(code int32, oom bool) string {
	switch {
	case oom:
		return cri.ReasonOOMKilled
	case code == 0:
		return cri.ReasonCompleted
	default:
		return cri.ReasonError
	}
}

func copyLabels(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
