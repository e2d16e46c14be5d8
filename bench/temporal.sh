#!/usr/bin/env bash
# The Temporal engine at scale: N task loops of K iterations with a no-op agent
# (`true`) on one Temporal dev server and W workers, against the same loops on
# the local engine (W runs at a time) in the same run; see bench/temporal/main.go.
#
#   nice -n 10 bench/temporal.sh [N] [K] [W] [LOCAL_N]     (default 1000 3 2 N)
#
# LOCAL_N loops run on the local engine (fewer than N to save time; the figure
# compared is the time per iteration).
#
# Needs the temporal CLI on PATH (or in ~/.cache/agentloop-ci/bin, where .ci/run
# builds it).
set -euo pipefail
n=${1:-1000}
k=${2:-3}
workers=${3:-2}
local_n=${4:-$n}
root=$(cd "$(dirname "$0")/.." && pwd)
export PATH="$PATH:${AGENTLOOP_CI_CACHE:-$HOME/.cache/agentloop-ci}/bin"
command -v temporal >/dev/null || { echo "temporal CLI not found: see .ci/run" >&2; exit 2; }
tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
(cd "$root" && go build -tags temporal -o "$tmp/bin/agentloop" ./cmd/agentloop &&
  go build -o "$tmp/bin/bench" ./bench/temporal)

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
temporal server start-dev --ip 127.0.0.1 --port "$port" --headless --log-level error >"$tmp/server.log" 2>&1 &
server=$!
pids+=("$server")
export AGENTLOOP_TEMPORAL_ADDRESS="127.0.0.1:$port"
for _ in $(seq 100); do
  "$tmp/bin/agentloop" status --engine temporal >/dev/null 2>&1 && break
  sleep 0.2
done

mkdir -p "$tmp/work"
rss="server=$server"
for i in $(seq "$workers"); do
  (cd "$tmp/work" && exec "$tmp/bin/agentloop" worker --queue "bench-worker-$i" --allow-cmd true >"$tmp/worker-$i.log" 2>&1) &
  pids+=("$!")
  rss="$rss,worker-$i=$!"
done

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
"$tmp/bin/bench" -address "127.0.0.1:$port" -dir "$tmp/work" -agentloop "$tmp/bin/agentloop" \
  -n "$n" -iterations "$k" -parallel "$workers" -local-n "$local_n" -rss "$rss"
echo "load after:  $(cut -d' ' -f1-3 /proc/loadavg)"
