package containerd_test

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	ctrd "github.com/orkit/orkit/cri/containerd"
)

func ExampleCopyLog() {
	var out bytes.Buffer
	now := func() time.Time { return time.Date(2016, 10, 6, 0, 17, 9, 669794202, time.UTC) }
	ctrd.CopyLog(&out, strings.NewReader("hello\nworld"), "stdout", now)
	fmt.Print(out.String())
	// Output:
	// 2016-10-06T00:17:09.669794202Z stdout F hello
	// 2016-10-06T00:17:09.669794202Z stdout F world
}

func ExampleParseLogLine() {
	e, err := ctrd.ParseLogLine([]byte("2016-10-06T00:17:09.669794202Z stderr P part"))
	if err != nil {
		panic(err)
	}
	fmt.Println(e.Stream, e.Partial, string(e.Text))
	// Output: stderr true part
}
