#!/usr/bin/env bash
# The Temporal engine at scale: N task loops of K iterations in a git
# repository, with an agent that changes a file each iteration, on one Temporal
# dev server and W workers, each worker in its own clone of the repository and
# pushing every checkpoint to the bare remote the clones share
# (--checkpoint-remote origin, as in the fleet tests); against the same loops on
# the local engine (W runs at a time, each in a clone of its own) and git's
# floor (the same agent, commits and pushes by a shell loop,
# bench/temporal/gitfloor.sh), in the same run; see bench/temporal/main.go.
#
#   nice -n 10 bench/temporal.sh [N] [K] [W] [LOCAL_N]     (default 1000 3 2 N)
#
# LOCAL_N loops run on the local engine and in git's floor (fewer than N to save
# time; the figures compared are times per iteration). AGENT (environment)
# overrides the agent's command line.
#
# Needs git, and the temporal CLI on PATH (or in ~/.cache/agentloop-ci/bin,
# where .ci/run builds it).
set -euo pipefail
n=${1:-1000}
k=${2:-3}
workers=${3:-2}
local_n=${4:-$n}
agent=${AGENT:-'sh -c "date +%N >>work.txt"'}
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
# The local loops run twice: by the same build as the workers (against
# which Temporal's time is measured) and by agentloop as released (the
# flags of .goreleaser.yaml, no temporal tag: the Temporal SDK's package
# initialization is half of such a build's start), against git's floor.
(cd "$root" && go build -tags temporal -o "$tmp/bin/agentloop" ./cmd/agentloop &&
  go build -trimpath -ldflags='-s -w' -o "$tmp/bin/agentloop-release" ./cmd/agentloop &&
  go build -o "$tmp/bin/bench" ./bench/temporal)

# The repository: a bare remote with one commit, and the clones. No automatic
# gc: it would pack in the background during the measures.
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@localhost GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@localhost
export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=gc.auto GIT_CONFIG_VALUE_0=0
export HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/home/.config"
mkdir -p "$HOME"
repo() { # repo NAME: a bare repository NAME.git with one commit
  git init -q --bare "$tmp/$1.git"
  git clone -q "$tmp/$1.git" "$tmp/seed-$1" 2>/dev/null
  printf 'a project\n' >"$tmp/seed-$1/README.md"
  printf '.agentloop/\n' >"$tmp/seed-$1/.gitignore"
  git -C "$tmp/seed-$1" add -A && git -C "$tmp/seed-$1" commit -q -m start && git -C "$tmp/seed-$1" push -q origin HEAD
}
clone() { git clone -q "$tmp/$1.git" "$tmp/$2"; }
repo remote
repo floor # git's floor pushes to a remote of its own, so as not to add to the workers' refs
local_dirs="" floor_dirs=""
for i in $(seq "$workers"); do
  clone remote "worker-$i"
  clone remote "local-$i"
  clone floor "floor-$i"
  local_dirs="$local_dirs${local_dirs:+,}$tmp/local-$i"
  floor_dirs="$floor_dirs${floor_dirs:+,}$tmp/floor-$i"
done

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
temporal server start-dev --ip 127.0.0.1 --port "$port" --headless --log-level error >"$tmp/server.log" 2>&1 &
server=$!
pids+=("$server")
export AGENTLOOP_TEMPORAL_ADDRESS="127.0.0.1:$port"
for _ in $(seq 100); do
  "$tmp/bin/agentloop" status --engine temporal >/dev/null 2>&1 && break
  sleep 0.2
done

rss="server=$server"
for i in $(seq "$workers"); do
  (cd "$tmp/worker-$i" && exec "$tmp/bin/agentloop" worker --queue "bench-worker-$i" --work-tree "$tmp/worker-$i" \
    --checkpoint-remote origin --allow-cmd "$agent" >"$tmp/worker-$i.log" 2>&1) &
  pids+=("$!")
  rss="$rss,worker-$i=$!"
done

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
"$tmp/bin/bench" -address "127.0.0.1:$port" -dir "$tmp/worker-1" -remote "$tmp/remote.git" -agent "$agent" \
  -agentloop "$tmp/bin/agentloop" -agentloop-release "$tmp/bin/agentloop-release" -local "$local_dirs" -floor "$root/bench/temporal/gitfloor.sh" -floor-dirs "$floor_dirs" \
  -n "$n" -iterations "$k" -local-n "$local_n" -rss "$rss"
echo "load after:  $(cut -d' ' -f1-3 /proc/loadavg)"
