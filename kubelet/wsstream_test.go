package kubelet

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/cri"
)

func TestParseClientMessage(t *testing.T) {
	tests := []struct {
		name     string
		protocol string
		msg      []byte
		want     clientFrame
		wantErr  bool
	}{
		{name: "stdin", protocol: ProtocolV5, msg: []byte("\x00hello"), want: clientFrame{kind: frameStdin, data: []byte("hello")}},
		{name: "empty stdin", protocol: ProtocolV5, msg: []byte{0}, want: clientFrame{kind: frameStdin, data: []byte{}}},
		{name: "resize", protocol: ProtocolV5, msg: []byte("\x04{\"Width\":80,\"Height\":24}"),
			want: clientFrame{kind: frameResize, size: cri.TerminalSize{Width: 80, Height: 24}}},
		{name: "resize v4", protocol: ProtocolV4, msg: []byte("\x04{\"Width\":1,\"Height\":2}"),
			want: clientFrame{kind: frameResize, size: cri.TerminalSize{Width: 1, Height: 2}}},
		{name: "close stdin v5", protocol: ProtocolV5, msg: []byte{255, 0}, want: clientFrame{kind: frameCloseStdin}},
		{name: "close of another channel", protocol: ProtocolV5, msg: []byte{255, 4}, want: clientFrame{kind: frameIgnored}},
		{name: "close signal is unknown in v4", protocol: ProtocolV4, msg: []byte{255, 0}, want: clientFrame{kind: frameIgnored}},
		{name: "client writes stdout", protocol: ProtocolV5, msg: []byte("\x01x"), want: clientFrame{kind: frameIgnored}},
		{name: "unknown channel", protocol: ProtocolV5, msg: []byte("\x09x"), want: clientFrame{kind: frameIgnored}},

		{name: "empty message", protocol: ProtocolV5, msg: nil, wantErr: true},
		{name: "oversized", protocol: ProtocolV5, msg: append([]byte{0}, bytes.Repeat([]byte("x"), maxExecMessage)...), wantErr: true},
		{name: "close without channel", protocol: ProtocolV5, msg: []byte{255}, wantErr: true},
		{name: "close with two channels", protocol: ProtocolV5, msg: []byte{255, 0, 1}, wantErr: true},
		{name: "resize not JSON", protocol: ProtocolV5, msg: []byte("\x0480x24"), wantErr: true},
		{name: "resize missing height", protocol: ProtocolV5, msg: []byte("\x04{\"Width\":80}"), wantErr: true},
		{name: "resize out of range", protocol: ProtocolV5, msg: []byte("\x04{\"Width\":70000,\"Height\":24}"), wantErr: true},
		{name: "resize negative", protocol: ProtocolV5, msg: []byte("\x04{\"Width\":-1,\"Height\":24}"), wantErr: true},
		{name: "resize oversized", protocol: ProtocolV5, msg: append([]byte("\x04{\"Width\":1,\"Height\":1,\"x\":\""),
			append(bytes.Repeat([]byte("y"), 2*maxResizeMessage), '"', '}')...), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseClientMessage(tt.protocol, tt.msg)
			if tt.wantErr {
				require.ErrorIs(t, err, ErrExecProtocol)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestNegotiateProtocol(t *testing.T) {
	tests := []struct {
		offered []string
		want    string
	}{
		{[]string{ProtocolV5}, ProtocolV5},
		{[]string{ProtocolV5, ProtocolV4}, ProtocolV5},
		{[]string{ProtocolV4, ProtocolV5}, ProtocolV4},
		{[]string{"v3.channel.k8s.io", ProtocolV4}, ProtocolV4},
		{[]string{"channel.k8s.io", "base64.channel.k8s.io"}, ProtocolV1},
		{[]string{"base64.channel.k8s.io"}, ""},
		{nil, ""},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, negotiateProtocol(tt.offered), "%v", tt.offered)
	}
}

func TestSendLatestKeepsNewestSize(t *testing.T) {
	ch := make(chan cri.TerminalSize, 1)
	sendLatest(ch, cri.TerminalSize{Width: 1, Height: 1})
	sendLatest(ch, cri.TerminalSize{Width: 2, Height: 2})
	sendLatest(ch, cri.TerminalSize{Width: 3, Height: 3})
	assert.Equal(t, cri.TerminalSize{Width: 3, Height: 3}, <-ch)
	assert.Empty(t, ch)
}

func TestExecStatus(t *testing.T) {
	s := execStatus([]string{"/hello", "exit", "3"}, 3, nil)
	assert.Equal(t, "Failure", s.Status)
	assert.Equal(t, "NonZeroExitCode", string(s.Reason))
	require.NotNil(t, s.Details)
	assert.Equal(t, "ExitCode", s.Details.Causes[0].Type)
	assert.Equal(t, "3", s.Details.Causes[0].Message)
	assert.Equal(t, "Success", execStatus(nil, 0, nil).Status)
	s = execStatus(nil, 0, cri.ErrNotFound)
	assert.Equal(t, "Failure", s.Status)
	assert.Contains(t, s.Message, "error executing command in container")
}

func FuzzParseClientMessage(f *testing.F) {
	for _, seed := range [][]byte{
		[]byte("\x00data"), []byte("\x04{\"Width\":80,\"Height\":24}"), {255, 0}, {255}, {}, []byte("\x04{"),
		[]byte("\x04{\"Width\":1e9,\"Height\":2}"), {3, 1, 2}, []byte("\x04null"),
	} {
		f.Add(true, seed)
		f.Add(false, seed)
	}
	f.Fuzz(func(t *testing.T, v5 bool, msg []byte) {
		protocol := ProtocolV4
		if v5 {
			protocol = ProtocolV5
		}
		got, err := parseClientMessage(protocol, msg)
		if err != nil {
			require.ErrorIs(t, err, ErrExecProtocol)
			return
		}
		require.NotEmpty(t, msg, "an empty message is an error")
		switch got.kind {
		case frameStdin:
			require.Equal(t, byte(0), msg[0])
			require.Equal(t, msg[1:], got.data)
		case frameResize:
			require.Equal(t, chanResize, msg[0])
		case frameCloseStdin:
			require.Equal(t, []byte{255, 0}, msg)
			require.True(t, v5)
		case frameIgnored:
		default:
			t.Fatalf("unknown frame kind %d", got.kind)
		}
	})
}
