package protobuf

// A minimal protobuf writer for tests: field numbers are written by hand
// from the generated.proto files, independently of the schema tables.

func appendVarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// pbMsg builds one message.
type pbMsg []byte

func (m pbMsg) varint(num int, v uint64) pbMsg {
	m = appendVarint(m, uint64(num)<<3|uint64(wtVarint))
	return appendVarint(m, v)
}

func (m pbMsg) bytes(num int, b []byte) pbMsg {
	m = appendVarint(m, uint64(num)<<3|uint64(wtBytes))
	m = appendVarint(m, uint64(len(b)))
	return append(m, b...)
}

func (m pbMsg) str(num int, s string) pbMsg      { return m.bytes(num, []byte(s)) }
func (m pbMsg) msg(num int, sub pbMsg) pbMsg     { return m.bytes(num, sub) }
func (m pbMsg) entry(num int, k, v string) pbMsg { return m.msg(num, pbMsg{}.str(1, k).str(2, v)) }

func (m pbMsg) fixed64(num int, v uint64) pbMsg {
	m = appendVarint(m, uint64(num)<<3|uint64(wtFixed64))
	for i := 0; i < 8; i++ {
		m = append(m, byte(v>>(8*i)))
	}
	return m
}

// wrap wraps raw in the "k8s\x00" runtime.Unknown envelope.
func wrap(apiVersion, kind string, raw pbMsg) []byte {
	typeMeta := pbMsg{}.str(1, apiVersion).str(2, kind)
	env := pbMsg{}.msg(1, typeMeta).bytes(2, raw).str(3, "").str(4, "")
	return append([]byte("k8s\x00"), env...)
}

// objectMeta is a meta/v1 ObjectMeta with a name, as gogo writes it: every
// non-pointer scalar present and an empty creationTimestamp.
func objectMetaPB(name string) pbMsg {
	return pbMsg{}.str(1, name).str(2, "").str(3, "").str(4, "").str(5, "").str(6, "").varint(7, 0).msg(8, nil)
}
