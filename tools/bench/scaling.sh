#!/usr/bin/env bash
# How `hieralint check` grows with files and fact sets (issue #5): the synthetic corpus at
# 1.5k, 5k and 15k files, each checked against 0 (data-implied nodes), 10, 100 and 1,000 fact
# sets, plus load-and-parse alone (`--select duplicate-key`: the scanner and one rule that only
# walks the parsed tree). One run per cell with /usr/bin/time: wall, CPU (user+sys), peak RSS.
#
# usage: tools/bench/scaling.sh [--sizes "1500 5000 15000"] [--facts "0 10 100 1000"] [--runs N]
# Output: a Markdown table on stdout; raw lines in target/bench-scaling/results.tsv.
# The machine is shared: read CPU time next to wall time. See docs/benchmarks.md.
set -euo pipefail

sizes="1500 5000 15000" factsets="0 10 100 1000" runs=1
while [ $# -gt 0 ]; do
  case "$1" in
    --sizes) sizes=$2; shift 2 ;;
    --facts) factsets=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "scaling.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
target=${CARGO_TARGET_DIR:-$root/target}
[ -x /usr/bin/time ] || { echo "scaling.sh: /usr/bin/time is missing (apt-get install time)" >&2; exit 2; }
cargo build --release --quiet --bin hieralint --example gen_corpus
hl=$target/release/hieralint
out=$target/bench-scaling
mkdir -p "$out"
: > "$out/results.tsv"

# one measurement: label, then the command; appends "label wall cpu rss_kib" (best of $runs by wall)
measure() {
  local label=$1; shift
  local best=""
  for _ in $(seq "$runs"); do
    /usr/bin/time -f "%e %U %S %M" -o "$out/time.one" "$@" >/dev/null 2>&1 || true
    read -r wall user sys rss < <(tail -1 "$out/time.one")
    local line
    line=$(python3 -c "print(f'$wall {float($user)+float($sys):.2f} $rss')")
    if [ -z "$best" ] || python3 -c "import sys; sys.exit(0 if float('${line%% *}') < float('${best%% *}') else 1)"; then
      best=$line
    fi
  done
  printf '%s\t%s\n' "$label" "$best" | tee -a "$out/results.tsv" >&2
}

for n in $sizes; do
  corpus=$("$target/release/examples/gen_corpus" --files "$n" --facts 1000 --seed 1 \
    --cache-dir "$target/bench-corpus")
  measure "$n load+parse" "$hl" check "$corpus" -q --format concise --select duplicate-key
  for f in $factsets; do
    if [ "$f" = 0 ]; then
      measure "$n check 0" "$hl" check "$corpus" -q --format concise
    else
      sub=$out/facts-$n-$f
      if [ ! -d "$sub" ]; then
        mkdir -p "$sub"
        # the first $f of the corpus's 1,000 fact sets
        mapfile -t all < <(find "$corpus/facts" -type f | LC_ALL=C sort)
        for p in "${all[@]:0:$f}"; do
          ln -f "$p" "$sub/$(basename "$p")"
        done
      fi
      measure "$n check $f" "$hl" check "$corpus" -q --format concise --facts "$sub"
    fi
  done
done

python3 - "$out/results.tsv" <<'PY'
import sys, os
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if "\t" in l]
print(f"\n{os.cpu_count()} CPUs; load average {os.getloadavg()[0]:.1f} at the end\n")
print("| files | run | wall (s) | CPU user+sys (s) | peak RSS (MiB) |")
print("|---|---|---|---|---|")
for label, vals in rows:
    n, what = label.split(" ", 1)
    wall, cpu, rss = vals.split()
    what = what.replace("check 0", "check, no facts (data-implied nodes)").replace("check ", "check, fact sets: ")
    print(f"| {n} | {what} | {float(wall):.2f} | {float(cpu):.2f} | {int(rss)/1024:.0f} |")
PY
