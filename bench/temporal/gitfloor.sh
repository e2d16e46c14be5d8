#!/usr/bin/env bash
# Git's floor for the loops of bench/temporal.sh: LOOPS loops of K iterations
# in the clone CLONE, each iteration the agent (AGENT, a shell command line)
# and then a checkpoint of the whole work tree as agentloop takes one (a
# private index, `git add -A`, `git write-tree`, `git commit-tree`, a ref under
# refs/floor/) and, with PUSH=1, the push of the loop's refs to the clone's
# remote origin (one forced push of the loop's ref folder, as a worker does with
# --checkpoint-remote). bench/temporal runs it beside nothing else.
#
#   gitfloor.sh CLONE LOOPS K AGENT PUSH
set -euo pipefail
clone=$1 loops=$2 k=$3 agent=$4 push=$5
cd "$clone"
gitdir=$(git rev-parse --absolute-git-dir)
export GIT_INDEX_FILE="$gitdir/floor-index"
cp "$gitdir/index" "$GIT_INDEX_FILE"
tag=$(basename "$clone")
parent=$(git rev-parse HEAD)
for l in $(seq "$loops"); do
  prefix="refs/floor/$tag-p$push/$l"
  for i in $(seq "$k"); do
    sh -c "$agent" </dev/null >/dev/null
    git add -A -- ':/' ':(top,glob,exclude)**/.agentloop'
    tree=$(git write-tree)
    parent=$(echo "iteration $i" | git commit-tree --no-gpg-sign "$tree" -p "$parent")
    git update-ref "$prefix/iter-$i" "$parent"
    if [ "$push" = 1 ]; then
      git push --quiet origin "+$prefix/*:$prefix/*"
    fi
  done
done
