#!/usr/bin/env bash
# Writes deploy/pgo/kaarttafel.profdata, the profile tools/release_build.sh
# optimises the release binary with (docs/pgo.md). Builds the server with LLVM's
# counters (in target/pgo, apart from the release build), plays it with the
# load generator on Postgres and then on SQLite (Klaverjassen moves over
# 16-deal matches, reads, Potverteren), and merges what the server counted.
# Run it after changing code on a request's path, and before a release.
#
#   tools/pgo.sh
#
# Needs llvm-profdata of the LLVM rustc is built with (`rustc -vV`: LLVM 22
# for rustc 1.95; Debian's llvm-22 package, or rustup's llvm-tools), and a
# Postgres server in TEST_DATABASE_URL (default the local one; the tool
# creates and drops a database of its own). TRAIN_SECONDS (default 20) is
# how long each backend plays moves. Takes about 8 minutes on 2 cores.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
seconds=${TRAIN_SECONDS:-20}

major=$(rustc -vV | sed -n 's/^LLVM version: \([0-9]*\).*/\1/p')
host=$(rustc -vV | sed -n 's/^host: //p')
profdata=""
for candidate in "$(rustc --print sysroot)/lib/rustlib/$host/bin/llvm-profdata" \
    "llvm-profdata-$major" "/usr/lib/llvm-$major/bin/llvm-profdata" llvm-profdata; do
    if command -v "$candidate" >/dev/null 2>&1 &&
        "$candidate" --version 2>/dev/null | grep -q "LLVM version $major\."; then
        profdata=$candidate
        break
    fi
done
if [ -z "$profdata" ]; then
    echo "no llvm-profdata of LLVM $major (rustc's): apt-get install llvm-$major, or rustup component add llvm-tools" >&2
    exit 1
fi

work=$(mktemp -d)
# The server logs at info, as an instance does by default: every request
# writes its line, and that code is trained with the rest (the benchmarks
# measure at warn; docs/pgo.md).
SERVER_RUST_LOG=info
. "$root/tools/fresh_server.sh"
trap 'stop_server; rm -rf "$work"' EXIT

# Build scripts run while cargo builds and count too: their files go to
# -Cprofile-generate's folder (one that stays put, so that the flags, and
# with them the build, stay the same from one run to the next). The
# server's go where LLVM_PROFILE_FILE says.
# The same targets as tools/release_build.sh builds: the symbols, and so
# the profile's names for functions, depend on them (see its header).
RUSTFLAGS="-Cprofile-generate=$root/target/pgo/build-scripts" \
    cargo build --release --locked --target-dir target/pgo --bins --examples
bin=target/pgo/release/kaarttafel
loadgen=target/pgo/release/examples/loadgen

# One backend's training (tools/fresh_server.sh's server: a fresh Postgres
# database, or SERVER_DATABASE_URL): three kinds of play, then the server
# stopped with SIGTERM, as an instance is (the counters are written when it
# exits).
train() {
    start_server "$bin" env LLVM_PROFILE_FILE="$work/server-%m.profraw"
    local url=http://127.0.0.1:$port
    LLVM_PROFILE_FILE=$work/loadgen-%p.profraw "$loadgen" --url "$url" --tables 16 --seconds "$seconds" --deals 16 >/dev/null
    LLVM_PROFILE_FILE=$work/loadgen-%p.profraw "$loadgen" --url "$url" --tables 16 --seconds 5 --deals 16 --reads >/dev/null
    LLVM_PROFILE_FILE=$work/loadgen-%p.profraw "$loadgen" --url "$url" --tables 8 --seconds 10 --game potverteren >/dev/null
    stop_server
}

train
mkdir "$work/sqlite"
SERVER_DATABASE_URL="sqlite:$work/sqlite/pgo.db" train

# Sparse: a function the training never ran keeps no entry, so it is
# optimised as without a profile rather than as cold code.
"$profdata" merge --sparse -o deploy/pgo/kaarttafel.profdata "$work"/server-*.profraw
echo "$major" >deploy/pgo/llvm-major
made_from=$(git rev-parse --short HEAD)
git diff --quiet HEAD -- src Cargo.toml Cargo.lock || made_from="$made_from with changes"
echo "deploy/pgo/kaarttafel.profdata: $(wc -c <deploy/pgo/kaarttafel.profdata) bytes, LLVM $major, from $made_from"
