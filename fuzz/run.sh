#!/bin/sh
# Runs one fuzz target for a while, one process (the machine is shared), with a scratch corpus
# outside the repository seeded from fuzz/corpus/<target>/. Usage:
#   fuzz/run.sh <target> [seconds=1800] [extra libFuzzer flags...]
# Crashes land in fuzz/artifacts/<target>/; the last line of the log has the execution count.
set -eu
target=$1
secs=${2:-1800}
shift; [ $# -gt 0 ] && shift
here=$(cd "$(dirname "$0")" && pwd)
work=${FUZZ_WORK:-/tmp/hieralint-fuzz}/$target
mkdir -p "$work" "$here/artifacts/$target"
cd "$here"
cargo +nightly fuzz build -O -a -s none "$target"
bin="$here/target/x86_64-unknown-linux-gnu/release/$target"
# The fast YAML reader is also seeded with the YAML loader's corpus.
extra=""
[ "$target" = yaml_fast ] && extra="$here/corpus/yaml_loader"
exec "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$here/artifacts/$target/" "$@" "$work" "$here/corpus/$target" $extra
