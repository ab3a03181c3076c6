#!/usr/bin/env bash
# minicluster.sh is the README's run command: it installs what is missing
# (scripts/setup.sh) and starts the minicluster in the foreground.
#   bash scripts/minicluster.sh                 # data in /tmp/orkit
#   bash scripts/minicluster.sh --demo          # run the demo scenario and exit
#   DATA_DIR=/var/lib/orkit bash scripts/minicluster.sh --listen 127.0.0.1:6443
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=$PATH:/usr/local/go/bin
bash scripts/setup.sh
data=${DATA_DIR:-/tmp/orkit}
echo "[minicluster] go run ./examples/minicluster --data-dir $data $*"
exec go run ./examples/minicluster --data-dir "$data" "$@"
