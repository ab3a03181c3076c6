#!/usr/bin/env bash
# measure-build.sh measures what building the conformance binaries costs from
# an empty Go build cache, as on a fresh CI machine: CPU (user + system)
# seconds and wall time of go test -c, each in a private, throw-away GOCACHE
# (the shared cache and ~/.cache/orkit/conformance are left alone).
#
#   bash compat/conformance/measure-build.sh subset      # suite/subset (CI's)
#   bash compat/conformance/measure-build.sh e2e         # the whole test/e2e
#   bash compat/conformance/measure-build.sh download    # module download of
#                                                        # the subset, into an
#                                                        # empty GOMODCACHE
#
# CPU seconds do not depend on what else runs on the machine; wall time does
# (divide the CPU seconds by the cores for a quiet machine's lower bound).
# Outputs go to a temporary directory, removed at the end.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export PATH=$PATH:/usr/local/go/bin
what=${1:-subset}
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
cd "$here/suite"
case $what in
subset) pkg=./subset ;;
e2e) pkg=k8s.io/kubernetes/test/e2e ;;
download)
	echo "[measure] GOMODCACHE=<empty> go list -deps -test ./subset (downloads what the subset build needs)"
	GOMODCACHE=$tmp/mod /usr/bin/time -f '[measure] wall %e s, user %U s, system %S s' go list -deps -test ./subset >/dev/null 2>"$tmp/log" || { cat "$tmp/log"; exit 1; }
	tail -1 "$tmp/log"
	echo "[measure] module zips: $(du -sm "$tmp/mod/cache/download" | cut -f1) MB; extracted: $(du -sm "$tmp/mod" | cut -f1) MB"
	exit 0
	;;
*) echo "measure-build.sh: subset, e2e or download, not $what" >&2; exit 2 ;;
esac
echo "[measure] GOCACHE=<empty> go test -c -vet=off $pkg ($(go list -deps -test "$pkg" | wc -l) packages)"
GOCACHE=$tmp/cache /usr/bin/time -f '[measure] wall %e s, user %U s, system %S s, max RSS %M KB' \
	go test -c -vet=off -o "$tmp/bin.test" "$pkg"
echo "[measure] binary $(du -m "$tmp/bin.test" | cut -f1) MB, build cache $(du -sm "$tmp/cache" | cut -f1) MB; load now: $(cut -d' ' -f1-3 /proc/loadavg)"
