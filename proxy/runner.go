package proxy

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
)

// Runner applies an nft script as one transaction. NFT is the real one;
// tests may pass their own.
type Runner interface {
	Apply(ctx context.Context, script string) error
}

// NFT runs the nft command. The zero value runs "nft" from PATH in the
// caller's network namespace.
type NFT struct {
	// Path is the nft binary; empty means "nft" from PATH.
	Path string
	// NetNS, when set, runs nft in that named network namespace
	// (through "ip netns exec"); tests use it to program a namespace
	// they created.
	NetNS string
}

var _ Runner = (*NFT)(nil)

// Apply feeds script to "nft -f -". The error carries nft's message.
func (n *NFT) Apply(ctx context.Context, script string) error {
	path := n.Path
	if path == "" {
		path = "nft"
	}
	args := []string{path, "-f", "-"}
	if n.NetNS != "" {
		args = append([]string{"ip", "netns", "exec", n.NetNS}, args...)
	}
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Stdin = strings.NewReader(script)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%w: %v: %s", ErrApply, err, firstLines(out.String(), 5))
	}
	return nil
}

// Available reports whether the nft binary can be found.
func (n *NFT) Available() bool {
	path := n.Path
	if path == "" {
		path = "nft"
	}
	_, err := exec.LookPath(path)
	return err == nil
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(strings.TrimSpace(s), "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}
