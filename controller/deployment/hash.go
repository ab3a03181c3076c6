package deployment

import (
	"encoding/binary"
	"encoding/json"
	"hash/fnv"
	"strconv"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

// hashAlphabet is Kubernetes' SafeEncodeString alphabet: no vowels (no
// words) and no look-alike characters.
const hashAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// ComputeHash returns the pod-template-hash of template: an FNV-32a hash
// of its JSON encoding (and of collisionCount when set), in Kubernetes'
// safe alphabet. It is stable for equal templates.
func ComputeHash(template *core.PodTemplateSpec, collisionCount *int32) string {
	h := fnv.New32a()
	b, _ := json.Marshal(template) // a template always encodes
	h.Write(b)
	if collisionCount != nil {
		var c [4]byte
		binary.LittleEndian.PutUint32(c[:], uint32(*collisionCount))
		h.Write(c[:])
	}
	return safeEncode(strconv.FormatUint(uint64(h.Sum32()), 10))
}

func safeEncode(s string) string {
	out := make([]byte, len(s))
	for i := range s {
		out[i] = hashAlphabet[int(s[i])%len(hashAlphabet)]
	}
	return string(out)
}

// EqualIgnoreHash reports whether two pod templates are equal apart
// from the pod-template-hash label, comparing their JSON encodings (so
// equal quantities written differently by different clients compare as
// the server stored them).
func EqualIgnoreHash(a, b *core.PodTemplateSpec) bool {
	x, y := meta.DeepCopy(a), meta.DeepCopy(b)
	delete(x.Labels, apps.DefaultDeploymentUniqueLabelKey)
	delete(y.Labels, apps.DefaultDeploymentUniqueLabelKey)
	if len(x.Labels) == 0 {
		x.Labels = nil
	}
	if len(y.Labels) == 0 {
		y.Labels = nil
	}
	bx, errx := json.Marshal(x)
	by, erry := json.Marshal(y)
	return errx == nil && erry == nil && string(bx) == string(by)
}
