#!/bin/sh
# A release binary built with profile-guided optimisation (PGO): an instrumented build runs
# hieralint's own fixtures (the bundled example control repo, with and without its fact sets;
# the real repositories' environments of fixtures/real, with and without the recorded fact
# sets; the rule fixtures; a batch of lookups), then the release build uses that profile.
# It never trains on the benchmark corpus (target/bench-corpus), so the benchmark measures code
# the profile did not see. Optional: `cargo build --release` stays the supported build, and
# every figure in docs/benchmarks.md is of that build unless it says PGO.
# Needs llvm-profdata from the toolchain: `rustup component add llvm-tools`.
# usage: tools/pgo-build.sh   (prints the path of the binary; ~6 min on 2 cores)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
profdata=$(find "$(rustc --print sysroot)" -name llvm-profdata -type f | head -n 1)
if [ -z "$profdata" ]; then
  echo "pgo-build: llvm-profdata not found; run: rustup component add llvm-tools" >&2
  exit 2
fi
dir=$root/target/pgo
rm -rf "$dir/raw" "$dir/merged.profdata"
RUSTFLAGS="-Cprofile-generate=$dir/raw" cargo build -q --release --bin hieralint --target-dir "$dir/gen"
gen=$dir/gen/release/hieralint
# The instrumented binary writes its profile from an exit handler, which the normal fast exit
# skips (src/main.rs `exit_now`).
export HIERALINT_EXIT_HANDLERS=1
ex=fixtures/example-control-repo
"$gen" check "$ex" -q > /dev/null || true
"$gen" check "$ex" --facts "$ex/facts" -q > /dev/null || true
for env in fixtures/real/*/env; do
  "$gen" check "$env" -q > /dev/null || true
  "$gen" check "$env" --facts fixtures/facts/facterdb-4.5 -q > /dev/null || true
done
"$gen" check fixtures/rules -q > /dev/null || true
for repo in fixtures/real/*/; do
  [ -f "$repo/lookups.jsonl" ] || continue
  python3 -c 'import json,sys
for l in open(sys.argv[1]):
    print(json.loads(l)["key"])' "$repo/lookups.jsonl" > "$dir/keys"
  for f in $(ls fixtures/facts/facterdb-4.5/*.json | LC_ALL=C sort | head -n 3); do
    "$gen" lookup --codedir "$repo/env" --facts "$f" --keys-file "$dir/keys" --format jsonl \
      > /dev/null 2>&1 || true
  done
done
"$profdata" merge -o "$dir/merged.profdata" "$dir/raw"
RUSTFLAGS="-Cprofile-use=$dir/merged.profdata" cargo build -q --release --bin hieralint \
  --target-dir "$dir/use"
echo "$dir/use/release/hieralint"
