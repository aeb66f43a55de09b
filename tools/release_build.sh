#!/usr/bin/env bash
# The release build: `cargo build --release --locked --bins --examples`,
# optimised with the profile in deploy/pgo/ (profile-guided optimisation,
# docs/pgo.md). deploy/Dockerfile, .ci/run's end-to-end checks and the
# benchmark tools all build this way, so the binary measured and tested is
# the one deployed. It takes no arguments: it always builds the same
# targets, the server, the tournament and the examples (the load generator
# and the floor server), because the profile finds each function by its
# symbol, whose hash covers the features of every dependency, and building
# an example brings in the dev-dependencies, which turn on more features of
# some shared ones (futures-util, smallvec, zerocopy, ...). A server built
# without the examples has other hashes than the one tools/pgo.sh trained,
# and gets nothing from the profile.
#
# A rustc whose LLVM is older than the one that wrote the profile cannot read
# it: the build then goes ahead without it, and says so (the binary is the
# same program, only slower). NO_PGO=1 leaves the profile out on purpose, for
# a comparison. Either way the flags differ from a profiled build's, so cargo
# rebuilds everything; so does a plain `cargo build --release` after this.
set -euo pipefail
if [ $# -gt 0 ]; then
    echo "tools/release_build.sh takes no arguments: it always builds the same targets (see its header)" >&2
    exit 2
fi
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
# cargo's messages (all on stderr) also go to a file, where rustc's
# warnings about the profile are counted (below).
log=$(mktemp)
trap 'rm -f "$log"' EXIT
RUSTFLAGS="${flags# }" cargo build --release --locked --bins --examples 2>&1 | tee "$log" >&2
[[ $flags == *profile-use* ]] || exit 0

# Whether the server's symbols are the ones the profile names. A build whose
# dependencies' features or versions differ from the profile's has other
# hashes in every symbol and finds none of them; a build of the sources the
# profile was written from finds about 70 % (the rest are inlined wherever
# they are called, and have no symbol of their own). Of those found, a
# function whose code changed since the profile was written has lost its
# counts: rustc warns "function control flow change detected (hash
# mismatch)" for each, and cargo repeats the warnings of a crate it does
# not rebuild. PGO_REQUIRE_MATCH=1, as .ci/run sets it, makes a build fail
# that finds fewer than a third with their counts.
binary=${CARGO_TARGET_DIR:-$root/target}/release/kaarttafel
if ! command -v nm >/dev/null; then
    echo "no nm (binutils): the build's symbols are not compared with the profile's" >&2
    exit 0
fi
# A function of our crate, by its symbol (legacy mangling: path, then hash).
symbol='_ZN10kaarttafel[[:alnum:]_$.]*17h[0-9a-f]\{16\}E'
named=$(grep -ao "$symbol" "$profile" | sort -u)
have=$(comm -12 <(printf '%s\n' "$named") <(nm "$binary" | awk '{print $3}' | sort -u))
found=$(printf '%s\n' "$have" | grep -c . || true)
stale=$(grep -o "hash mismatch) $symbol" "$log" |
    sed 's/.* //' | sort -u | comm -12 - <(printf '%s\n' "$have") | grep -c . || true)
total=$(printf '%s\n' "$named" | grep -c . || true)
# Our code also lives in symbols that do not start with our crate's path:
# trait impls (`<kaarttafel::… as actix_web::…>`) and generic code
# instantiated with our types (`core::ptr::drop_in_place<kaarttafel::…>`).
# Not counted above, but a change there loses its counts as well.
elsewhere=$(grep -o 'hash mismatch) _ZN[[:alnum:]_$.]*kaarttafel[[:alnum:]_$.]*17h[0-9a-f]\{16\}E' "$log" |
    sed 's/.* //' | grep -v "^_ZN10kaarttafel" | sort -u | grep -c . || true)
echo "the profile names $total of the server's functions; this build has $found of them, $stale changed since the profile was written" >&2
if [ "$elsewhere" -gt 0 ]; then
    echo "and $elsewhere more symbols with our code in them (trait impls, generic code) changed since" >&2
fi
if [ $((stale + elsewhere)) -gt 0 ]; then
    echo "write the profile again with tools/pgo.sh before a release (docs/pgo.md)" >&2
fi
if [ $(((found - stale) * 3)) -lt "$total" ]; then
    echo "the profile does not match this build (other dependencies or features, or code changed since): write it again with tools/pgo.sh (docs/pgo.md)" >&2
    [ -z "${PGO_REQUIRE_MATCH:-}" ] || exit 1
fi
