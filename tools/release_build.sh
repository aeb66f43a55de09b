#!/usr/bin/env bash
# The release build: `cargo build --release --locked`, optimised with the
# profile in deploy/pgo/ (profile-guided optimisation, docs/pgo.md).
# deploy/Dockerfile, .ci/run's end-to-end checks and the benchmark tools all
# build this way, so the binary measured and tested is the one deployed.
# Arguments go to cargo:
#
#   tools/release_build.sh                                   # the server (and tools)
#   tools/release_build.sh --bin kaarttafel --example loadgen --example floor
#
# A rustc whose LLVM is older than the one that wrote the profile cannot read
# it: the build then goes ahead without it, and says so (the binary is the
# same program, only slower). NO_PGO=1 leaves the profile out on purpose, for
# a comparison. Either way the flags differ from a profiled build's, so cargo
# rebuilds everything; so does a plain `cargo build --release` after this.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
profile=$root/deploy/pgo/kaarttafel.profdata
written_by=$(cat "$root/deploy/pgo/llvm-major")
ours=$(rustc -vV | sed -n 's/^LLVM version: \([0-9]*\).*/\1/p')
flags=${RUSTFLAGS:-}
if [ -n "${NO_PGO:-}" ]; then
    echo "release build without the profile (NO_PGO is set)" >&2
elif [ -z "$ours" ] || [ "$ours" -lt "$written_by" ]; then
    echo "release build without the profile: rustc's LLVM (${ours:-unknown}) is older than the profile's ($written_by)" >&2
else
    flags="$flags -Cprofile-use=$profile"
fi
RUSTFLAGS="${flags# }" exec cargo build --release --locked "$@"
