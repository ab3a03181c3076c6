// Command dnstools is the dig and getent of the conformance suite's image
// stand-ins (compat/conformance/images.sh): one static binary that acts as
// the program its name says (argv[0] is dig or getent; "dnstools dig ..."
// also works). The sig-network DNS specs run, in the agnhost and
// glibc-dns-testing images,
//
//	dig +notcp +noall +answer +search NAME A      (and +tcp, SRV, AAAA, PTR)
//	dig +short [@SERVER [-p PORT]] [-x ADDR] NAME [TYPE]
//	getent hosts NAME
//
// and compare what they print and whether it is empty. dig here is BIND's
// dig for those options: the answer section in its zone-file layout, the
// search list and ndots of /etc/resolv.conf under +search, exit 0 on any
// answer (NXDOMAIN included), 9 when no server replies, 1 on a usage
// error. getent hosts is glibc's: the hosts file, then DNS (AAAA, then A)
// through the search list, lines "ADDRESS NAME ALIASES", exit 2 when a key
// is not found.
package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// system names the files the tools read; tests point them elsewhere.
type system struct {
	resolvConf string
	hosts      string
	port       uint16 // the DNS port of resolv.conf's nameservers
}

var defaultSystem = system{resolvConf: "/etc/resolv.conf", hosts: "/etc/hosts", port: 53}

func main() {
	os.Exit(run(os.Args, os.Stdout, os.Stderr, defaultSystem))
}

// run dispatches on the program name (or, for dnstools, the first
// argument) and returns the exit code.
func run(args []string, stdout, stderr io.Writer, sys system) int {
	name := filepath.Base(args[0])
	rest := args[1:]
	if name == "dnstools" && len(rest) > 0 {
		name, rest = rest[0], rest[1:]
	}
	switch name {
	case "dig":
		return digMain(rest, stdout, stderr, sys)
	case "getent":
		return getentMain(rest, stdout, stderr, sys)
	}
	fmt.Fprintf(stderr, "dnstools: run as dig or getent, not %q\n", name)
	return 1
}
