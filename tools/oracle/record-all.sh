#!/bin/sh
# Regenerates expected-7.jsonl (Puppet 7.23 default strict=warning) and expected-strict.jsonl (ORACLE_STRICT=error,
# our model of Puppet 8) for every case under fixtures/conformance (or for the case dirs given as arguments).
# Runs two Puppet processes in parallel. Output is deterministic: running it twice gives byte-identical files.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
if [ $# -gt 0 ]; then
  for d in "$@"; do (cd "$d" && pwd); done
else
  find "$root/fixtures/conformance" -name lookups.jsonl -exec dirname {} \; | LC_ALL=C sort
fi | while read -r d; do
  printf '%s expected-7.jsonl default\n' "$d"
  printf '%s expected-strict.jsonl error\n' "$d"
done | xargs -P 2 -n 3 sh -c '
  d=$1; out=$2; strict=$3; [ "$strict" = default ] && strict=
  if ORACLE_STRICT="$strict" ruby "$0" "$d" "$d/$out" 2>"$d/.record-$out.stderr"; then
    rm -f "$d/.record-$out.stderr"
  else
    echo "FAILED: $d $out" >&2; cat "$d/.record-$out.stderr" >&2; exit 255
  fi
' "$here/record.rb"
