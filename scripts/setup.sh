#!/usr/bin/env bash
# setup.sh installs what orkit's tests and minicluster need on a fresh Debian
# machine, printing each step. It is idempotent: what is present is left alone.
set -euo pipefail

say() { printf '[setup] %s\n' "$*"; }

pkgs=(containerd runc containernetworking-plugins docker-registry apache2-utils nftables iptables iproute2 kmod)
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

if ! command -v go >/dev/null; then
	say "go is not on PATH (expected /usr/local/go/bin/go)"
	exit 1
fi
say "go mod download"
go mod download
say "go mod download (compat/)"
(cd compat && go mod download)
say "done"
