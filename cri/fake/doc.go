// Package fake is an in-memory cri.Runtime for tests and for simulated
// nodes: nothing runs, but sandboxes, containers, images and events behave
// as the real runtime's do, including its errors, idempotent stops and
// removes, and exit codes.
//
// It is light enough for one process to host thousands of simulated nodes,
// each with its own Runtime: state is a few maps under one mutex, no
// goroutine runs per runtime, sandbox or container, and a container that is
// to exit by itself holds one runtime timer until it does.
//
// Containers run a simulated program chosen from their command, as the
// bundled orkit.local/hello:v1 image's multi-call tool would: with no
// command (or "serve") the program runs until stopped, honouring the env
// HELLO_EXIT_AFTER and HELLO_EXIT_CODE; "exit CODE" exits at once;
// one-shot tools ("write", "ls", "rm-dir" (the local-path provisioner's
// cleanup: nothing to remove on a simulated node), ...) exit 0 at once;
// "sleep D" exits 0 after D; "sleep-ignore-term D" also ignores SIGTERM,
// so StopContainer kills it (exit 137) when its timeout expires. ExecSync
// runs the tool's echo, echo-err, print, exit and sleep; Exec streams the
// same model, and also reads stdin for "cat -" and "ttysize" (which answers
// with the terminal size last sent on Resize). WithProgram and WithExec
// replace these models; Runtime.Exit ends a container on demand.
// ImageProgram is the model for nodes that run any image (as kwok's do):
// servers run until stopped, and "sleep N", "true", "sh -c 'exit N'" end
// as they would.
//
// Options add per-method latencies (WithLatency), injected failures
// (WithFailure, Runtime.InjectFailure), deterministic IDs
// (WithDeterministicIDs) and the node's initial images (WithImages).
package fake
