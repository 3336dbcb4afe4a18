#!/bin/sh
# Re-records Puppet's answer for every hiera.yaml case under fixtures/hiera-config/ (or the case
# directories given as arguments). Needs Puppet 7.23 (Debian `puppet`); cargo test does not.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
if [ $# -eq 0 ]; then
  set -- $(find "$repo/fixtures/hiera-config" -mindepth 1 -maxdepth 1 -type d ! -name real ! -name corpus | sort)
fi
for d in "$@"; do
  ruby "$here/record-config-case.rb" "$d"
done
