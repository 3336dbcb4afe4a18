#!/bin/sh
# Lookups per second on the real-repo pairs (fixtures/real), hieralint's engine against Puppet's own
# in-process rate, in one run:
# - Puppet 7.23: /work/shared/oracle/lookup-batch.rb (ORACLE= to override), one process per
#   (repository, fact set) as it is meant to be used; its ORACLE_TIMING_FILE gives the in-process
#   lookup time (startup excluded); rate = all keys / sum of lookup_s.
# - Puppet 7.23 again, files cached: tools/realrepos/puppet-rate.rb looks the same keys up four
#   times in one compile; the fastest later pass is Puppet with its data already read (as a
#   server that has compiled the environment before), the like-for-like partner of "evaluated".
# - hieralint: examples/lookup_rate.rs (cold: a fresh engine per repository and fact set, files read
#   inside the timed loop; shared: one engine per repository as `check` runs; warm: the same
#   lookups again on loaded engines, answered from the outcomes the engine shares between
#   sessions; evaluated: every lookup evaluated anew, no answer cache, in sessions set up by a
#   first pass), median of RUNS passes.
# Prints both rates and the ratios. usage: [SETS=N] tools/realrepos/rate.sh   (SETS: the first N of
# the 35 fact sets, for a quicker run; both sides use the same pairs)
# Puppet's answers in this run are compared with the recorded ones (fixtures/real/*/expected,
# rate_check.py): a lookup that fails now but was answered when recorded means the oracle is not
# set up as it was (without hiera-eyaml and ruby-hocon every eyaml-backed lookup fails, slowly),
# and its rate would be wrong; rate_verdict.py stops the run then, unless FORCE=1.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
oracle=${ORACLE:-/work/shared/oracle/lookup-batch.rb}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root"
cargo build -q --release --example lookup_rate
ours=$(SETS=${SETS:-35} target/release/examples/lookup_rate fixtures/real)
for repo in fixtures/real/*/; do
  [ -d "$repo/expected" ] || continue
  name=$(basename "$repo")
  mkdir -p "$tmp/$name/code/environments"
  cp -r "$repo/env" "$tmp/$name/code/environments/production"
  python3 -c 'import json,sys
for l in open(sys.argv[1]):
    j = json.loads(l)
    if "merge" not in j: print(j["key"])' "$repo/lookups.jsonl" > "$tmp/$name/keys"
  for f in $(ls fixtures/facts/facterdb-4.5/*.json | LC_ALL=C sort | head -n "${SETS:-35}"); do
    set=$(basename "$f" .json)
    python3 -c 'import json,sys
def m(a, b):
    for k, v in b.items():
        a[k] = m(a[k], v) if isinstance(v, dict) and isinstance(a.get(k), dict) else v
    return a
o = json.load(open(sys.argv[2])).get(sys.argv[3], {})
json.dump(m(json.load(open(sys.argv[1])), o), sys.stdout)' "$f" "$repo/overlay.json" "$set" > "$tmp/facts.json"
    ORACLE_TIMING_FILE="$tmp/timing.jsonl" ruby "$oracle" "$tmp/$name/code" production "$tmp/facts.json" \
      "$tmp/$name/keys" > "$tmp/answers.jsonl" 2>/dev/null || true
    python3 "$root/tools/realrepos/rate_check.py" "$repo/lookups.jsonl" "$repo/expected/$set.jsonl" \
      "$tmp/answers.jsonl" "$name" "$set" >> "$tmp/check.jsonl"
    ruby "$root/tools/realrepos/puppet-rate.rb" "$tmp/$name/code" production "$tmp/facts.json" \
      "$tmp/$name/keys" 4 >> "$tmp/again.jsonl" 2> /dev/null || true
  done
done
python3 "$root/tools/realrepos/rate_verdict.py" "$tmp/check.jsonl"
python3 - "$tmp/timing.jsonl" "$ours" "$tmp/again.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
keys = sum(r['keys'] for r in rows)
lookup_s = sum(r['lookup_s'] for r in rows)
startup_s = sum(r['startup_s'] for r in rows)
ours = json.loads(sys.argv[2])
puppet = keys / lookup_s
print(f"pairs: puppet {keys} in {len(rows)} processes, hieralint {ours['pairs']}")
print(f"puppet (lookup-batch.rb, in-process): {puppet:,.0f} lookups/s ({lookup_s:.2f} s of lookups, {startup_s:.1f} s of startup not counted)")
print(f"hieralint cold (fresh engine per fact set): {ours['cold_lookups_per_s']:,.0f} lookups/s = {ours['cold_lookups_per_s'] / puppet:,.0f}x")
print(f"hieralint shared (engine per repository, as check runs): {ours['shared_lookups_per_s']:,.0f} lookups/s = {ours['shared_lookups_per_s'] / puppet:,.0f}x")
print(f"hieralint warm (answers shared between sessions): {ours['warm_lookups_per_s']:,.0f} lookups/s = {ours['warm_lookups_per_s'] / puppet:,.0f}x")
print(f"hieralint evaluated (no answer cache, files loaded): {ours['evaluated_lookups_per_s']:,.0f} lookups/s = {ours['evaluated_lookups_per_s'] / puppet:,.0f}x")
again = [json.loads(l) for l in open(sys.argv[3])]
again_keys = sum(r['keys'] for r in again)
first = again_keys / sum(r['first_s'] for r in again)
warm = again_keys / sum(min(r['again_s']) for r in again)
print(f"puppet first pass (puppet-rate.rb, {len(again)} processes): {first:,.0f} lookups/s")
print(f"puppet files cached (fastest of passes 2-4): {warm:,.0f} lookups/s; hieralint evaluated = {ours['evaluated_lookups_per_s'] / warm:,.0f}x of it (like for like), warm = {ours['warm_lookups_per_s'] / warm:,.0f}x")
PY
