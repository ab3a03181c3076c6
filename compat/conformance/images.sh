#!/usr/bin/env bash
# images.sh builds the images the conformance suite's pods run, offline,
# as docker-save archives that containerd imports (ctr images import):
#
#   bash compat/conformance/images.sh OUTDIR E2E_TEST_BINARY
#
# It prints one archive path a line. The image names are the ones the
# suite asks for (e2e.test --list-images), so no --kube-test-repo-list is
# needed. What stands in for what:
#   agnhost:<v> (and the older tag the suite also uses): agnhost built from
#       its Go source (k8s.io/kubernetes/test/images/agnhost at the suite's
#       version, CGO_ENABLED=0) at /agnhost (+ /agnhost-2), on Debian's
#       busybox-static for the shell and tools (the real image is alpine
#       with bash, curl, nc...), with porter's localhost.crt and .key at /
#       (from the module, as upstream); entrypoint /agnhost and cmd pause, as
#       upstream; /usr/bin/curl is a shell stand-in that GETs its URL
#       arguments with busybox wget (options skipped, with their values;
#       a URL without scheme is http://), enough for the specs' `curl
#       http://...` and `curl -q -s --max-time 30 IP:PORT/hostname` hooks
#       and probes; /usr/bin/nc is
#       images/nc, an OpenBSD-style netcat (busybox's nc has none of the
#       -v -t -u -z options the sig-network reachability checks pass);
#       /usr/bin/dig and /usr/bin/getent are links to dnstools (below) for
#       the DNS specs' probes (upstream: alpine's bind-tools and musl's
#       getent).
#   glibc-dns-testing:<v>: the busybox base with the same dig and getent
#       (upstream: Debian with dnsutils and glibc's getent, and coredns);
#       cmd sh.
#   dnstools (images/dnstools, built static) is one binary that acts as
#       dig or getent by its name: dig's +[no]tcp +noall +answer +search
#       +short @server -p -x and types A AAAA PTR SRV CNAME..., in dig's
#       output format and exit codes; getent hosts: the hosts file, then
#       DNS through resolv.conf's search list, exit 2 when not found.
#   busybox:<v>: Debian's busybox-static, every applet linked in /bin; cmd sh.
#   Its /bin/sh is images/sh: busybox's ash (upstream's shell, whose
#   messages the specs read), or bash-static when the environment holds a
#   variable whose name is not an identifier (busybox 1.35's ash drops
#   those, upstream's newer busybox keeps them).
#   Every other image's /bin/sh and /bin/bash is Debian's bash-static.
#   nginx:<v> (both tags): agnhost's netexec serving HTTP on :80, on the
#       same busybox base (no nginx build offline).
#   kitten:<v>, nautilus:<v>: as upstream, the agnhost image with the
#       picture and data.json of test/images/{kitten,nautilus}/html (from
#       the k8s.io/kubernetes module) at /, cmd test-webserver (serves /
#       on :80): the kubectl Update Demo specs read data.json through the
#       pod proxy; the ImageVolume spec mounts kitten as a volume and reads
#       its data.json and etc/os-release.
#   The agnhost-based images (agnhost, nginx, kitten, nautilus) carry an
#   /etc/os-release naming Alpine Linux, as upstream's (alpine-based) ones
#   do, with a comment and PRETTY_NAME saying it is this stand-in on
#   Debian's busybox-static: the ImageVolume spec checks the mounted
#   image's os-release for "Alpine Linux".
#   pause:<v>: orkit's pause program (images/pause).
#   nonewprivs:<v>: test/images/nonewprivs (nnp, built static) setuid root
#       at /usr/local/bin/nnp on the busybox base, cmd nnp, as upstream (on
#       alpine).
#   nonroot:<v>: the busybox base with user 1234, as upstream (on
#       debian-base).
# --- aggregator images (sample-apiserver, etcd) ---
#   sample-apiserver:<v>: k8s.io/sample-apiserver at the suite's staging
#       version (v0.37.2, pinned in images/go.mod; upstream's image builds
#       the sample-apiserver repository's tag the same way, CGO_ENABLED=0)
#       at /sample-apiserver on the busybox base; entrypoint
#       /sample-apiserver, as upstream (test/images/sample-apiserver).
#   etcd:<v>: the static etcd that scripts/setup.sh builds from
#       go.etcd.io/etcd/server/v3 (/usr/local/bin/etcd, or $ORKIT_ETCD) at
#       /usr/local/bin/etcd on the busybox base; no entrypoint, cmd
#       /usr/local/bin/etcd (the aggregator spec gives the command). A
#       missing or dynamically linked etcd fails the script: run
#       scripts/setup.sh first.
# --- end aggregator images ---
# Archives are cached in OUTDIR by name; delete OUTDIR to rebuild.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$1
e2e=$2
mkdir -p "$out"
out=$(cd "$out" && pwd)
export PATH=$PATH:/usr/local/go/bin

list=$("$e2e" --list-images)
img() { grep -E "^registry\.k8s\.io/(e2e-test-images/)?$1:" <<<"$list"; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# busybox-static from Debian, unpacked once.
bb=$out/busybox-static/bin/busybox
if [ ! -x "$bb" ]; then
	(cd "$work" && apt-get download busybox-static >/dev/null)
	mkdir -p "$out/busybox-static"
	dpkg-deb -x "$work"/busybox-static_*.deb "$out/busybox-static"
fi

# bash-static from Debian, unpacked once: /bin/bash and /bin/sh of the
# images. Busybox 1.35's ash drops environment variables whose names are
# not shell identifiers (data-1) before it runs a command; upstream's
# images keep them (their busybox is newer, agnhost's alpine has bash).
bash_static=$out/bash-static/bin/bash-static
if [ ! -x "$bash_static" ]; then
	(cd "$work" && apt-get download bash-static >/dev/null)
	mkdir -p "$out/bash-static"
	dpkg-deb -x "$work"/bash-static_*.deb "$out/bash-static"
fi

# Go programs, built static in the images module.
build_go() { # PACKAGE OUTPUT
	[ -x "$2" ] || (cd "$here/images" && CGO_ENABLED=0 go build -trimpath -o "$2" "$1")
}
build_go k8s.io/kubernetes/test/images/agnhost "$out/agnhost"
build_go github.com/orkit/orkit/images/pause "$out/pause"
build_go k8s.io/kubernetes/test/images/nonewprivs "$out/nnp"
# nc and dnstools are orkit's and change with this tree: built every time
# (the Go build cache makes that quick), and their digest is part of
# rootfs_rev.
rm -f "$out/nc" "$out/dnstools" "$out/sh"
build_go github.com/orkit/orkit/compat/conformance/images/nc "$out/nc"
build_go github.com/orkit/orkit/compat/conformance/images/dnstools "$out/dnstools"
build_go github.com/orkit/orkit/compat/conformance/images/sh "$out/sh"
# --- aggregator images: build ---
build_go k8s.io/sample-apiserver "$out/sample-apiserver"
# --- end aggregator images: build ---
kube=$(cd "$here/images" && go list -m -f '{{.Dir}}' k8s.io/kubernetes)

# base_rootfs DIR: busybox with its applets in /bin, /etc/passwd and group.
base_rootfs() {
	mkdir -p "$1/bin" "$1/etc" "$1/tmp" "$1/root" "$1/home/user"
	chmod 1777 "$1/tmp"
	cp "$bb" "$1/bin/busybox"
	for a in $("$bb" --list); do [ -e "$1/bin/$a" ] || ln -s busybox "$1/bin/$a"; done
	cp "$bash_static" "$1/bin/bash"
	ln -sf bash "$1/bin/sh"
	printf 'root:x:0:0:root:/root:/bin/sh\nuser-defined-in-image:x:1000:1000::/home/user:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' >"$1/etc/passwd"
	printf 'root:x:0:\nuser-defined-in-image:x:1000:\nnogroup:x:65534:\n' >"$1/etc/group"
}

# rootfs_rev names the revision of the rootfs trees below (2: agnhost's curl;
# 3: agnhost's /localhost.crt and .key, group-defined-in-image; 4: bash
# as /bin/sh; 5: agnhost's nc; 6: dig and getent in agnhost and
# glibc-dns-testing; 7: agnhost's /etc/os-release; 8: curl takes URLs
# without a scheme; 9: and passes no -T to wget; 10: busybox's /bin/sh is
# images/sh), with the digest of the nc, dnstools and sh binaries.
rootfs_rev=10-$(cat "$out/nc" "$out/dnstools" "$out/sh" | sha256sum | cut -c1-12)

# dns_tools DIR: dnstools at /usr/bin with dig and getent linked to it.
dns_tools() {
	mkdir -p "$1/usr/bin"
	cp "$out/dnstools" "$1/usr/bin/dnstools"
	ln -sf dnstools "$1/usr/bin/dig"
	ln -sf dnstools "$1/usr/bin/getent"
}

# archive REF ROOTFS ENTRYPOINT_JSON CMD_JSON [USER]: a docker-save tarball of one layer.
archive() {
	local ref=$1 root=$2 ep=$3 cmd=$4 user=${5:-} name d
	name=$(tr '/:' '__' <<<"$ref")
	# Reused while its entrypoint, cmd and the rootfs revision are unchanged
	# (.cfg records them; bump rootfs_rev when a rootfs changes).
	if [ -f "$out/$name.tar" ] && [ "$(cat "$out/$name.cfg" 2>/dev/null)" = "$rootfs_rev $ep $cmd $user" ]; then
		echo "$out/$name.tar"
		return
	fi
	d=$work/$name
	mkdir -p "$d"
	tar -C "$root" --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -cf "$d/layer.tar" .
	local diff cfg
	diff=$(sha256sum "$d/layer.tar" | cut -d' ' -f1)
	mkdir -p "$d/$diff"
	mv "$d/layer.tar" "$d/$diff/layer.tar"
	printf '{"architecture":"amd64","os":"linux","config":{"Env":["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"],"Entrypoint":%s,"Cmd":%s,"User":"%s"},"rootfs":{"type":"layers","diff_ids":["sha256:%s"]}}' \
		"$ep" "$cmd" "$user" "$diff" >"$d/config.json"
	cfg=$(sha256sum "$d/config.json" | cut -d' ' -f1)
	mv "$d/config.json" "$d/$cfg.json"
	printf '[{"Config":"%s.json","RepoTags":["%s"],"Layers":["%s/layer.tar"]}]' "$cfg" "$ref" "$diff" >"$d/manifest.json"
	tar -C "$d" --sort=name --mtime=@0 --owner=0 --group=0 -cf "$out/$name.tar.tmp" .
	mv "$out/$name.tar.tmp" "$out/$name.tar"
	printf '%s' "$rootfs_rev $ep $cmd $user" >"$out/$name.cfg"
	echo "$out/$name.tar"
}

root=$work/agnhost
base_rootfs "$root"
cp "$out/agnhost" "$root/agnhost"
ln -s agnhost "$root/agnhost-2"
mkdir -p "$root/usr/bin"
cat >"$root/usr/bin/curl" <<'EOS'
#!/bin/sh
# curl stand-in (busybox has no curl): GET each URL with busybox wget.
# The options that take a value are skipped with it (busybox 1.35's
# wget crashes with -T, so timeouts are the caller's); a URL without a
# scheme is http://, as for curl.
while [ $# -gt 0 ]; do
	case $1 in
	-m | --max-time | --connect-timeout | -o | --output | -H | --header | -X | --request | -d | --data | -w | --write-out | --retry | \
		-A | --user-agent | --resolve | --interface | -u | --user | -e | --referer | --cacert | \
		--cert | --key | -b | --cookie | -c | --cookie-jar | -T | --upload-file | -F | --form | \
		-x | --proxy) shift 2 ;;
	-*) shift ;;
	*)
		url=$1
		shift
		case $url in *://*) ;; *) url=http://$url ;; esac
		wget -q -O - "$url" || exit 7
		;;
	esac
done
EOS
chmod 755 "$root/usr/bin/curl"
cp "$out/nc" "$root/usr/bin/nc"
dns_tools "$root"
mkdir -p "$root/uploads"
# As upstream: porter's certificate and key at / (the StatefulSet specs
# probe /localhost.crt over HTTP and move it away to fail readiness), and
# the image's group.
cp "$kube/test/images/agnhost/porter/localhost.crt" "$kube/test/images/agnhost/porter/localhost.key" "$root/"
chmod 644 "$root/localhost.crt" "$root/localhost.key"
echo 'group-defined-in-image:x:50000:user-defined-in-image' >>"$root/etc/group"
# As upstream's alpine base names itself (the ImageVolume spec reads it
# through an image volume of kitten); the comment and PRETTY_NAME say what
# this really is.
cat >"$root/etc/os-release" <<'EOS'
# orkit conformance stand-in (compat/conformance/images.sh): upstream's
# image is built on Alpine Linux; this one is agnhost on Debian's
# busybox-static and bash-static.
NAME="Alpine Linux"
ID=alpine
PRETTY_NAME="Alpine Linux (orkit stand-in on Debian busybox-static)"
HOME_URL="https://github.com/orkit/orkit"
EOS
chmod 644 "$root/etc/os-release"
for ref in $(img agnhost); do
	archive "$ref" "$root" '["/agnhost"]' '["pause"]'
done
for ref in $(img nginx); do
	archive "$ref" "$root" '["/agnhost","netexec","--http-port=80"]' 'null'
done
for pic in kitten nautilus; do
	cp "$kube/test/images/$pic/html/$pic.jpg" "$kube/test/images/$pic/html/data.json" "$root/"
	chmod 644 "$root/$pic.jpg" "$root/data.json"
	for ref in $(img "$pic"); do
		archive "$ref" "$root" '["/agnhost"]' '["test-webserver"]'
	done
	rm "$root/$pic.jpg" "$root/data.json"
done

root=$work/busybox
base_rootfs "$root"
rm "$root/bin/sh"
cp "$out/sh" "$root/bin/sh"
for ref in $(img busybox); do
	archive "$ref" "$root" 'null' '["sh"]'
done

root=$work/glibc-dns-testing
base_rootfs "$root"
dns_tools "$root"
for ref in $(img glibc-dns-testing); do
	archive "$ref" "$root" 'null' '["sh"]'
done

root=$work/nonewprivs
base_rootfs "$root"
mkdir -p "$root/usr/local/bin"
cp "$out/nnp" "$root/usr/local/bin/nnp"
chmod 4755 "$root/usr/local/bin/nnp"
for ref in $(img nonewprivs); do
	archive "$ref" "$root" 'null' '["nnp"]'
done

root=$work/nonroot
base_rootfs "$root"
for ref in $(img nonroot); do
	archive "$ref" "$root" 'null' '["sh"]' 1234
done

root=$work/pause
mkdir -p "$root"
cp "$out/pause" "$root/pause"
for ref in $(img pause); do
	archive "$ref" "$root" '["/pause"]' 'null'
done

# --- aggregator images (sample-apiserver, etcd) ---
root=$work/sample-apiserver
base_rootfs "$root"
cp "$out/sample-apiserver" "$root/sample-apiserver"
for ref in $(img sample-apiserver); do
	archive "$ref" "$root" '["/sample-apiserver"]' 'null'
done

etcd_bin=${ORKIT_ETCD:-/usr/local/bin/etcd}
if [ -n "$(img etcd)" ]; then
	if ! [ -x "$etcd_bin" ] || { command -v file >/dev/null && ! file -b "$etcd_bin" | grep -q 'statically linked'; }; then
		echo "images.sh: the etcd image needs a static etcd at $etcd_bin (scripts/setup.sh builds it; ORKIT_ETCD names another)" >&2
		exit 1
	fi
	root=$work/etcd
	base_rootfs "$root"
	mkdir -p "$root/usr/local/bin" "$root/var/lib/etcd"
	cp "$etcd_bin" "$root/usr/local/bin/etcd"
	for ref in $(img etcd); do
		archive "$ref" "$root" 'null' '["/usr/local/bin/etcd"]'
	done
fi
# --- end aggregator images ---
