package main

import (
	"bytes"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	tests := []struct {
		args    []string
		want    options
		wantErr string
	}{
		{[]string{"-v", "-t", "-w", "2", "10.0.0.1", "80"}, options{verbose: true, wait: 2 * time.Second, host: "10.0.0.1", port: "80"}, ""},
		{[]string{"-vu", "-w2", "svc", "53"}, options{verbose: true, udp: true, wait: 2 * time.Second, host: "svc", port: "53"}, ""},
		{[]string{"-w", "5", "-W", "1", "-u", "-p", "1234", "h", "9"}, options{udp: true, wait: 5 * time.Second, packets: 1, srcPort: 1234, host: "h", port: "9"}, ""},
		{[]string{"-z", "h", "1"}, options{zero: true, host: "h", port: "1"}, ""},
		{[]string{"-x", "h", "1"}, options{}, "unsupported option -x"},
		{[]string{"-w"}, options{}, "option -w needs a value"},
		{[]string{"-w", "soon", "h", "1"}, options{}, `option -w: "soon" is not a number`},
		{[]string{"h"}, options{}, "usage"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			got, err := parse(tt.args)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// hostnameServer answers every TCP connection's and UDP datagram's
// "hostName" with "web-1", as agnhost's netexec does.
func hostnameServer(t *testing.T) (tcpPort, udpPort string) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				buf := make([]byte, 64)
				n, _ := c.Read(buf)
				if strings.TrimSpace(string(buf[:n])) == "hostName" {
					c.Write([]byte("web-1"))
				}
			}()
		}
	}()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { pc.Close() })
	go func() {
		buf := make([]byte, 64)
		for {
			n, addr, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			if strings.TrimSpace(string(buf[:n])) == "hostName" {
				pc.WriteTo([]byte("web-1"), addr)
			}
		}
	}()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port), strconv.Itoa(pc.LocalAddr().(*net.UDPAddr).Port)
}

func TestRun(t *testing.T) {
	tcp, udp := hostnameServer(t)
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closedPort := strconv.Itoa(closed.Addr().(*net.TCPAddr).Port)
	closed.Close()

	tests := []struct {
		name      string
		args      []string
		code      int
		stdout    string
		stderrHas string
	}{
		{"tcp reply", []string{"-v", "-t", "-w", "2", "127.0.0.1", tcp}, 0, "web-1", "Connection to 127.0.0.1 " + tcp + " port [tcp/*] succeeded!"},
		{"udp reply", []string{"-v", "-u", "-w", "2", "127.0.0.1", udp}, 0, "web-1", "[udp/*] succeeded!"},
		{"udp one packet", []string{"-w", "2", "-W", "1", "-u", "127.0.0.1", udp}, 0, "web-1", ""},
		{"scan only", []string{"-z", "-w", "2", "127.0.0.1", tcp}, 0, "", ""},
		{"refused", []string{"-v", "-w", "1", "127.0.0.1", closedPort}, 1, "", "connect to 127.0.0.1 port " + closedPort + " (tcp) failed"},
		{"bad option", []string{"-e", "/bin/sh", "127.0.0.1", tcp}, 1, "", "unsupported option -e"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(tt.args, strings.NewReader("hostName\n"), &out, &errOut)
			assert.Equal(t, tt.code, code, errOut.String())
			assert.Equal(t, tt.stdout, out.String())
			assert.Contains(t, errOut.String(), tt.stderrHas)
		})
	}
}
