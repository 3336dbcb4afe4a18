#!/usr/bin/env bash
# Fetches a large real Hiera tree for the peer comparison: the hieradata of
# wikimedia/operations-puppet (the GitHub mirror of gerrit.wikimedia.org/r/operations/puppet;
# several thousand YAML files), plus the module data and hiera.yaml files next to it.
#
# It needs network access, which the benchmark machine of issue #5 does not have: it was NOT run
# there. Run it on a machine with network and copy DEST over, then:
#
#   tools/bench/peers.sh --dir DEST/hieradata          # hieralint vs puppet-syntax vs yamllint
#   cargo run --release -- check DEST/hieradata         # hieralint alone
#
# (`--dir` skips the lookup measurements: wikimedia's hierarchy uses its own lookup_key backends,
# which neither hieralint nor a bare `puppet lookup` can load.)
#
# usage: tools/bench/fetch-real.sh [DEST (target/real/operations-puppet)] [REF (production)]
set -euo pipefail

dest=${1:-target/real/operations-puppet}
ref=${2:-production}
url=https://github.com/wikimedia/operations-puppet.git

if [ -e "$dest" ]; then
  echo "fetch-real.sh: $dest exists; remove it first" >&2
  exit 2
fi
mkdir -p "$(dirname "$dest")"
# A shallow, blobless, sparse clone: only the commit's tree, and blobs for the paths checked out.
git clone --depth 1 --branch "$ref" --filter=blob:none --sparse "$url" "$dest"
cd "$dest"
git sparse-checkout set --no-cone \
  '/hieradata/' \
  '/modules/*/data/' \
  '/modules/*/hiera.yaml' \
  '/modules/puppetmaster/files/*hiera*.yaml'
git rev-parse HEAD > FETCHED_COMMIT

files=$(find hieradata -type f \( -name '*.yaml' -o -name '*.yml' -o -name '*.eyaml' \) | wc -l)
bytes=$(find hieradata -type f \( -name '*.yaml' -o -name '*.yml' -o -name '*.eyaml' \) -print0 \
  | xargs -0 cat | wc -c)
echo "fetched $url@$(cat FETCHED_COMMIT) into $dest: hieradata holds $files YAML files, $bytes bytes"
echo "next: tools/bench/peers.sh --dir $dest/hieradata"
