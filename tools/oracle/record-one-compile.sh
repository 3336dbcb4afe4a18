#!/bin/sh
# Records what Puppet 7.23 logs over several lookups in ONE compile (the batch oracle,
# /work/shared/oracle/lookup-batch.rb), for every case under fixtures/one-compile (or those
# given): <case>/env is the environment, <case>/keys the keys in order; writes
# <case>/expected-7.jsonl, the warnings the oracle logged (a JSON line each, with the key being
# looked up), with the environment path written <ENV>. tests/engine_shared.rs
# (one_compile_warnings_are_puppets) replays them.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
oracle=${ORACLE:-/work/shared/oracle/lookup-batch.rb}
if [ $# -eq 0 ]; then set -- "$root"/fixtures/one-compile/*/; fi
for d in "$@"; do
  d=$(cd "$d" && pwd)
  tmp=$(mktemp -d)
  mkdir -p "$tmp/code/environments"
  cp -r "$d/env" "$tmp/code/environments/production"
  echo '{}' > "$tmp/facts.json"
  ORACLE_WARNINGS_FILE="$tmp/w.jsonl" ruby "$oracle" "$tmp/code" production "$tmp/facts.json" "$d/keys" >/dev/null 2>&1
  sed "s#$tmp/code/environments/production#<ENV>#g" "$tmp/w.jsonl" > "$d/expected-7.jsonl"
  rm -rf "$tmp"
done
