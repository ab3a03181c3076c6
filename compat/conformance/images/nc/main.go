// Command nc is the netcat of the conformance suite's agnhost stand-in
// (compat/conformance/images.sh): upstream's agnhost image has OpenBSD's
// netcat, busybox's nc knows none of the options the sig-network specs
// pass. It covers what they run:
//
//	echo hostName | nc -v -t -w 2 HOST PORT     (TCP: send stdin, print the reply)
//	echo hostName | nc -v -u -w 2 HOST PORT     (UDP: one datagram, print the replies)
//	nc -z -w 2 HOST PORT                        (TCP: only connect)
//	nc -w T -W 1 -u -p SRCPORT HOST PORT        (UDP from a source port, stop after 1 reply)
//
// -w is the connect timeout and, once connected, how long it waits with
// nothing to read before it ends (without -w a TCP connection is read until
// the peer closes it). -v reports the connection on stderr as OpenBSD's nc.
// Exit 0 once connected (TCP) or sent (UDP), 1 otherwise.
package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// options are the parsed command line.
type options struct {
	udp, verbose, zero bool
	wait               time.Duration // 0: none
	packets            int           // -W: stop after this many received packets; 0: no limit
	srcPort            int
	host, port         string
}

func parse(args []string) (options, error) {
	var o options
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if len(a) < 2 || a[0] != '-' {
			rest = append(rest, a)
			continue
		}
		// flags may be grouped: -vz, -uw2
		for j := 1; j < len(a); j++ {
			switch c := a[j]; c {
			case 'v':
				o.verbose = true
			case 'u':
				o.udp = true
			case 't':
				o.udp = false
			case 'z':
				o.zero = true
			case 'n', 'N', 'q':
				// numeric-only / shutdown / quit: nothing to do here
			case 'w', 'W', 'p':
				v := a[j+1:]
				if v == "" {
					if i+1 >= len(args) {
						return o, fmt.Errorf("option -%c needs a value", c)
					}
					i++
					v = args[i]
				}
				n, err := strconv.Atoi(v)
				if err != nil || n < 0 {
					return o, fmt.Errorf("option -%c: %q is not a number", c, v)
				}
				switch c {
				case 'w':
					o.wait = time.Duration(n) * time.Second
				case 'W':
					o.packets = n
				case 'p':
					o.srcPort = n
				}
				j = len(a)
			default:
				return o, fmt.Errorf("unsupported option -%c", c)
			}
		}
	}
	if len(rest) != 2 {
		return o, errors.New("usage: nc [-tuvz] [-w SECONDS] [-W PACKETS] [-p SRCPORT] HOST PORT")
	}
	o.host, o.port = rest[0], rest[1]
	return o, nil
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	o, err := parse(args)
	if err != nil {
		fmt.Fprintln(stderr, "nc:", err)
		return 1
	}
	if o.udp {
		err = runUDP(o, stdin, stdout, stderr)
	} else {
		err = runTCP(o, stdin, stdout, stderr)
	}
	if err != nil {
		fmt.Fprintln(stderr, "nc:", err)
		return 1
	}
	return 0
}

func dialer(o options, network string) *net.Dialer {
	d := &net.Dialer{Timeout: o.wait}
	if o.srcPort > 0 {
		if network == "udp" {
			d.LocalAddr = &net.UDPAddr{Port: o.srcPort}
		} else {
			d.LocalAddr = &net.TCPAddr{Port: o.srcPort}
		}
	}
	return d
}

func runTCP(o options, stdin io.Reader, stdout, stderr io.Writer) error {
	conn, err := dialer(o, "tcp").Dial("tcp", net.JoinHostPort(o.host, o.port))
	if err != nil {
		return fmt.Errorf("connect to %s port %s (tcp) failed: %w", o.host, o.port, err)
	}
	defer conn.Close()
	if o.verbose {
		fmt.Fprintf(stderr, "Connection to %s %s port [tcp/*] succeeded!\n", o.host, o.port)
	}
	if o.zero {
		return nil
	}
	go func() {
		io.Copy(conn, stdin)
		if tc, ok := conn.(*net.TCPConn); ok {
			tc.CloseWrite()
		}
	}()
	return copyReplies(conn, stdout, o.wait, 0)
}

func runUDP(o options, stdin io.Reader, stdout, stderr io.Writer) error {
	conn, err := dialer(o, "udp").Dial("udp", net.JoinHostPort(o.host, o.port))
	if err != nil {
		return fmt.Errorf("connect to %s port %s (udp) failed: %w", o.host, o.port, err)
	}
	defer conn.Close()
	if o.verbose {
		fmt.Fprintf(stderr, "Connection to %s %s port [udp/*] succeeded!\n", o.host, o.port)
	}
	if o.zero {
		return nil
	}
	msg, err := io.ReadAll(io.LimitReader(stdin, 64<<10))
	if err != nil {
		return err
	}
	if _, err := conn.Write(msg); err != nil {
		return err
	}
	wait := o.wait
	if wait == 0 {
		wait = 2 * time.Second // a datagram has no end: stop when the replies do
	}
	return copyReplies(conn, stdout, wait, o.packets)
}

// copyReplies copies what conn receives to out until the peer closes it,
// nothing arrives for idle (0: no limit), or packets reads (0: no limit).
// A failing read ends it without an error.
func copyReplies(conn net.Conn, out io.Writer, idle time.Duration, packets int) error {
	buf := make([]byte, 64<<10)
	for n := 0; packets == 0 || n < packets; n++ {
		if idle > 0 {
			conn.SetReadDeadline(time.Now().Add(idle))
		}
		k, err := conn.Read(buf)
		if k > 0 {
			if _, werr := out.Write(buf[:k]); werr != nil {
				return werr
			}
		}
		if err != nil {
			// the peer closed, went quiet or refused (an ICMP reply to a
			// datagram): the session ends, as nc's does, without an error
			return nil
		}
	}
	return nil
}
