#!/usr/bin/env bash
# setup.sh installs what orkit's tests and minicluster need on a fresh Debian
# machine, printing each step. It is idempotent: what is present is left alone.
set -euo pipefail

say() { printf '[setup] %s\n' "$*"; }

pkgs=(containerd runc containernetworking-plugins docker-registry apache2-utils nftables iptables iproute2 kmod haproxy)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
	if [[ $(id -u) -ne 0 ]]; then
		say "missing Debian packages: ${missing[*]} (run as root, or: sudo apt-get install ${missing[*]})"
		exit 1
	fi
	say "apt-get install ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
	say "Debian packages present: ${pkgs[*]}"
fi

# The Debian docker-registry package starts a registry on :5000 through its
# service; tests run their own, so make sure the packaged one is not in the way.
if command -v systemctl >/dev/null && systemctl is-active --quiet docker-registry 2>/dev/null; then
	say "stopping the packaged docker-registry service (tests start their own)"
	systemctl stop docker-registry || true
fi
# haproxy: tests start their own balancers (internal/lbtest); the packaged
# service, if it runs, is not needed.
if command -v systemctl >/dev/null && systemctl is-active --quiet haproxy 2>/dev/null; then
	say "stopping the packaged haproxy service (tests start their own)"
	systemctl stop haproxy || true
fi

if ! command -v go >/dev/null; then
	say "go is not on PATH (expected /usr/local/go/bin/go)"
	exit 1
fi
# etcd: the server binary store/etcd's tests (internal/etcdtest) and
# multi-server clusters run, built from etcd's own Go module (its go.mod has
# replace directives, so `go install ...@version` refuses it: build it from a
# throw-away module instead). Installed into $GOBIN if set, else
# /usr/local/bin as root, else $(go env GOPATH)/bin; skipped when that binary
# already reports the pinned version.
etcd_version=v3.7.3
etcd_dir=${GOBIN:-}
if [[ -z $etcd_dir ]]; then
	if [[ $(id -u) -eq 0 ]]; then etcd_dir=/usr/local/bin; else etcd_dir="$(go env GOPATH)/bin"; fi
fi
if [[ -x $etcd_dir/etcd ]] && [[ $("$etcd_dir/etcd" --version 2>/dev/null | head -n1) == "etcd Version: ${etcd_version#v}" ]]; then
	say "etcd ${etcd_version} present: $etcd_dir/etcd"
else
	say "building etcd ${etcd_version} from go.etcd.io/etcd/server/v3 into $etcd_dir/etcd (a few minutes)"
	etcd_tmp=$(mktemp -d)
	(
		cd "$etcd_tmp"
		export GOTOOLCHAIN=local GOFLAGS=-mod=mod
		go mod init orkit.local/etcd-build >/dev/null 2>&1
		go get "go.etcd.io/etcd/server/v3@${etcd_version}" >get.log 2>&1 || { cat get.log; exit 1; }
		mkdir -p "$etcd_dir"
		CGO_ENABLED=0 go build -trimpath -o "$etcd_dir/etcd.new" go.etcd.io/etcd/server/v3
		mv "$etcd_dir/etcd.new" "$etcd_dir/etcd"
	)
	rm -rf "$etcd_tmp"
	say "$("$etcd_dir/etcd" --version | head -n1)"
fi

# helm: the Helm 3 client compat/helm's acceptance test drives, built from
# its own Go module (`go install`, so its k8s.io dependencies stay out of
# compat's go.mod). Same directory rule as etcd; skipped when that binary
# was already built from the pinned module version.
helm_version=v3.22.0
helm_dir=$etcd_dir
if [[ -x $helm_dir/helm ]] && go version -m "$helm_dir/helm" 2>/dev/null | grep -Eq "^[[:space:]]+mod[[:space:]]+helm\.sh/helm/v3[[:space:]]+${helm_version}([[:space:]]|$)"; then
	say "helm ${helm_version} present: $helm_dir/helm"
else
	say "building helm ${helm_version}: GOBIN=$helm_dir go install helm.sh/helm/v3/cmd/helm@${helm_version} (a few minutes)"
	mkdir -p "$helm_dir"
	GOBIN=$helm_dir GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-mod=mod go install "helm.sh/helm/v3/cmd/helm@${helm_version}"
	say "$("$helm_dir/helm" version --short) ($(go version -m "$helm_dir/helm" | awk '$1 == "mod" {print $2, $3}'))"
fi

say "go mod download"
go mod download
say "go mod download (compat/)"
(cd compat && go mod download)
# compat/conformance/ci.sh (run by scripts/test.sh) builds the conformance
# suite's CI subset: fetch only the modules that build needs (~90 MB of
# module zips; go mod download of the whole suite/go.mod graph fetches more).
say "fetching the modules of compat/conformance/suite/subset (go list -deps -test ./subset)"
(cd compat/conformance/suite && go list -deps -test ./subset >/dev/null)
say "done"
