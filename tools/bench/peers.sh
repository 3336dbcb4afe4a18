#!/usr/bin/env bash
# hieralint against the tools people use today, in ONE run on the same files (issue #5):
#   - hieralint check (release build), default threads and one thread, without and with facts
#   - puppet-syntax's Hiera check (PuppetSyntax::Hiera#check, tools/bench/puppet-syntax-hiera.rb)
#   - yamllint with only key-duplicates enabled
#   - lookups: `hieralint lookup --keys-file` vs Puppet's batch oracle (/work/shared/oracle),
#     `hieralint lookup KEY` vs `puppet lookup KEY`, and whether the answers agree
# Wall time (hyperfine: mean and standard deviation), CPU time (user+sys) and peak RSS
# (/usr/bin/time), and hieralint's speedup over each peer. See docs/benchmarks.md.
#
# usage: tools/bench/peers.sh [--files N] [--facts N] [--seed N] [--runs N] [--dir DIR]
#   --files N   corpus size (default 1500); the corpus is generated once into
#               target/bench-corpus/ (the same cache `cargo bench` uses)
#   --facts N   fact sets for the `--facts` runs (default 1000)
#   --runs N    hyperfine runs per command (default 5, after one warm-up run)
#   --dir DIR   check an existing tree instead (a control repo, or a hieradata directory such as
#               the one tools/bench/fetch-real.sh fetches); lookups are skipped
#   --no-lookup skip the Puppet lookup measurements
# Needs: hyperfine, /usr/bin/time (apt: time), ruby with ruby-puppet-syntax, yamllint, puppet.
# Results (hyperfine JSON, file lists, raw timings) are kept in target/bench-peers/<name>/.
set -euo pipefail

files=1500 facts=1000 seed=1 runs=5 dir="" lookups=1
while [ $# -gt 0 ]; do
  case "$1" in
    --files) files=$2; shift 2 ;;
    --facts) facts=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    --no-lookup) lookups=0; shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "peers.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
target=${CARGO_TARGET_DIR:-$root/target}
for tool in hyperfine ruby yamllint python3; do
  command -v "$tool" >/dev/null || { echo "peers.sh: $tool is not installed" >&2; exit 2; }
done
[ -x /usr/bin/time ] || { echo "peers.sh: /usr/bin/time is missing (apt-get install time)" >&2; exit 2; }

echo "== building (release)" >&2
cargo build --release --quiet --bin hieralint --example gen_corpus
hl=$target/release/hieralint

if [ -z "$dir" ]; then
  corpus=$("$target/release/examples/gen_corpus" --files "$files" --facts "$facts" --seed "$seed" \
    --cache-dir "$target/bench-corpus")
  name=$(basename "$corpus")
else
  corpus=$(cd "$dir" && pwd)
  name=dir-$(basename "$corpus")
  lookups=0
fi
out=$target/bench-peers/$name
mkdir -p "$out"

# The same YAML files for every tool: every .yaml/.yml/.eyaml hieralint loads from the tree
# (data, module data, hiera.yaml files), fact sets excluded. hieralint is given the directory
# and also reads the JSON data files, which the peers do not handle: that only costs hieralint.
(cd "$corpus" && find . -path ./facts -prune -o -type f \( -name '*.yaml' -o -name '*.yml' -o -name '*.eyaml' \) -print \
  | LC_ALL=C sort) > "$out/files.txt"
nfiles=$(wc -l < "$out/files.txt")
nbytes=$(cd "$corpus" && tr '\n' '\0' < "$out/files.txt" | xargs -0 cat | wc -c)
echo "== $corpus: $nfiles YAML files, $nbytes bytes" >&2

factsarg=()
if [ -d "$corpus/facts" ]; then
  factsarg=(--facts "$corpus/facts")
fi

# name|command (run from the corpus directory, so paths in the file list resolve)
cmds=(
  "hieralint|$hl check . -q --format concise"
  "hieralint (1 thread)|RAYON_NUM_THREADS=1 $hl check . -q --format concise"
)
if [ ${#factsarg[@]} -gt 0 ]; then
  nsets=$(find "$corpus/facts" -type f | wc -l)
  cmds+=("hieralint --facts ($nsets sets)|$hl check . -q --format concise --facts facts")
fi
cmds+=(
  "puppet-syntax hiera|ruby $root/tools/bench/puppet-syntax-hiera.rb $out/files.txt"
  "yamllint key-duplicates|yamllint -d '{rules: {key-duplicates: enable}}' -f parsable \$(cat $out/files.txt)"
)

args=()
for c in "${cmds[@]}"; do
  args+=(--command-name "${c%%|*}" "${c#*|}")
done
echo "== hyperfine ($runs runs each)" >&2
(cd "$corpus" && hyperfine --ignore-failure --warmup 1 --runs "$runs" --style basic \
  --export-json "$out/hyperfine.json" "${args[@]}" >&2)

echo "== peak RSS (/usr/bin/time)" >&2
: > "$out/rss.txt"
for c in "${cmds[@]}"; do
  (cd "$corpus" && /usr/bin/time -f "%M" -o "$out/rss.one" sh -c "${c#*|}" >/dev/null 2>&1 || true)
  printf '%s\t%s\n' "${c%%|*}" "$(tail -1 "$out/rss.one")" >> "$out/rss.txt"
done

: > "$out/lookups.txt"
# A run without lookups must not report an earlier run's (the report reads these files).
rm -f "$out/oracle-timing.jsonl" "$out/lookup.json"
if [ "$lookups" = 1 ] && command -v puppet >/dev/null && [ -f "$corpus/lookup-keys.txt" ]; then
  echo "== lookups: hieralint lookup vs Puppet (oracle batch, puppet lookup)" >&2
  codedir=$(mktemp -d)
  trap 'rm -rf "$codedir"' EXIT
  mkdir -p "$codedir/environments"
  ln -s "$corpus" "$codedir/environments/production"
  fset=$(find "$corpus/facts" -type f -name '*.json' | LC_ALL=C sort | sed -n 1p)
  keys=$corpus/lookup-keys.txt
  nkeys=$(grep -c . "$keys")
  key=$(sed -n 1p "$keys")
  # Puppet's in-process rate (startup excluded), best of 3 passes
  rm -f "$out/oracle-timing.jsonl"
  for _ in 1 2 3; do
    ORACLE_TIMING_FILE="$out/oracle-timing.jsonl" ORACLE_WARNINGS_FILE=/dev/null \
      ruby /work/shared/oracle/lookup-batch.rb "$codedir" production "$fset" "$keys" \
      > "$out/oracle-answers.jsonl" || true
  done
  "$hl" lookup --puppet 7 --codedir "$codedir" --facts "$fset" --keys-file "$keys" --format jsonl \
    > "$out/hieralint-answers.jsonl" || true
  hyperfine --ignore-failure --warmup 1 --runs 3 --style basic --export-json "$out/lookup.json" \
    --command-name "hieralint lookup ($nkeys keys, one process)" \
    "$hl lookup --puppet 7 --codedir $codedir --facts $fset --keys-file $keys --format jsonl" \
    --command-name "Puppet oracle batch ($nkeys keys, one process)" \
    "ORACLE_WARNINGS_FILE=/dev/null ruby /work/shared/oracle/lookup-batch.rb $codedir production $fset $keys" \
    --command-name "hieralint lookup (1 key)" \
    "$hl lookup --puppet 7 --codedir $codedir --facts $fset $key" \
    --command-name "puppet lookup (1 key)" \
    "puppet lookup --codedir $codedir --environment production --facts $fset $key" >&2
  printf 'keys\t%s\nfacts\t%s\n' "$nkeys" "$(basename "$fset")" >> "$out/lookups.txt"
fi

python3 - "$out" "$nfiles" "$nbytes" <<'PY'
import json, sys, os
out, nfiles, nbytes = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
res = json.load(open(os.path.join(out, "hyperfine.json")))["results"]
rss = dict(l.rstrip("\n").split("\t") for l in open(os.path.join(out, "rss.txt")) if "\t" in l)
base = next(r for r in res if r["command"] == "hieralint")
cpu = lambda r: r["user"] + r["system"]
print(f"\n{nfiles} YAML files, {nbytes/1e6:.2f} MB; {os.cpu_count()} CPUs; "
      f"load average {os.getloadavg()[0]:.1f} at the end\n")
# The median next to the mean: on this shared 2-CPU machine a run sometimes waits for a CPU
# (a two-thread hieralint run is then 10 ms slower), which moves a 40 ms mean but not the median.
print("| command | wall mean ± sd (s) | wall median (s) | CPU user+sys (s) | peak RSS (MiB) | hieralint faster, wall mean | hieralint faster, wall median | hieralint faster, CPU |")
print("|---|---|---|---|---|---|---|---|")
for r in res:
    m = int(rss.get(r["command"], "0") or 0) / 1024
    ratio_w = r["mean"] / base["mean"]
    ratio_m = r["median"] / base["median"]
    ratio_c = cpu(r) / cpu(base) if cpu(base) > 0 else float("nan")
    print(f"| {r['command']} | {r['mean']:.3f} ± {r['stddev'] or 0:.3f} | {r['median']:.3f} | {cpu(r):.3f} | {m:.0f} | "
          f"{ratio_w:.1f}x | {ratio_m:.1f}x | {ratio_c:.1f}x |")
timing = os.path.join(out, "oracle-timing.jsonl")
if os.path.exists(timing):
    t = [json.loads(l) for l in open(timing)]
    best = max(t, key=lambda x: x["lookups_per_s"])
    lk = {r["command"]: r for r in json.load(open(os.path.join(out, "lookup.json")))["results"]}
    nk = best["keys"]
    hb = next(r for c, r in lk.items() if c.startswith("hieralint lookup (") and "1 key" not in c)
    ob = next(r for c, r in lk.items() if c.startswith("Puppet oracle batch"))
    h1, p1 = lk["hieralint lookup (1 key)"], lk["puppet lookup (1 key)"]
    a = [json.loads(l) for l in open(os.path.join(out, "hieralint-answers.jsonl"))]
    b = [json.loads(l) for l in open(os.path.join(out, "oracle-answers.jsonl"))]
    agree = sum(1 for x, y in zip(a, b) if x == y)
    print(f"\nLookups, one node, {nk} keys (hieralint's answers equal Puppet's for {agree} of {len(b)}):\n")
    print("| command | wall mean ± sd (s) | CPU user+sys (s) | lookups/s, whole process | hieralint faster, wall |")
    print("|---|---|---|---|---|")
    for r, base_r, n in [(hb, hb, nk), (ob, hb, nk), (h1, h1, 1), (p1, h1, 1)]:
        print(f"| {r['command']} | {r['mean']:.3f} ± {r['stddev'] or 0:.3f} | {cpu(r):.3f} | "
              f"{n / r['mean']:.{0 if n / r['mean'] >= 100 else 2}f} | {r['mean'] / base_r['mean']:.1f}x |")
    print(f"\nPuppet in-process (startup excluded, best of {len(t)} passes): "
          f"{best['lookups_per_s']:.0f} lookups/s after {best['startup_s']:.2f} s startup; "
          "hieralint's in-process rate is the `lookup` group of `cargo bench --bench check`.")
PY
echo "(raw results in $out)" >&2
