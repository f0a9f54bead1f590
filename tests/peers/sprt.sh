#!/usr/bin/env bash
# An SPRT of a search change against the build it changes, at issue 52's
# control (20 s + 0.2 s), that can span sessions and machines: both
# engines are built from committed revisions, so a new machine builds the
# same two engines again, and the games are kept where a commit keeps them
# (DEVELOPMENT.md "SPRT"). Not part of `cargo test`.
#
#   tests/peers/sprt.sh NAME BASE [CANDIDATE] [PARAM=VALUE...]
#   tests/peers/sprt.sh --save NAME
#
# BASE and CANDIDATE are git revisions (CANDIDATE defaults to BASE); each
# PARAM=VALUE sets a default in the candidate's core/src/search/params.rs,
# so a parameter's new value is tested without a commit of its own:
#
#   tests/peers/sprt.sh tmsoft90 1145cd1 TmSoft=90
#
# The match writes its games to BUILDS/NAME/NAME.pgn with the runner's
# full move comments (35 KB a game) and resumes from it (`--resume`);
# `--save` writes them without the principal variations and node counts
# (tests/peers/pgnslim.py, 7 KB a game) to docs/sprt/NAME.pgn, to be
# committed at the end of each session that played some. On a machine
# without the local file the match starts from the committed one.
#
# Environment: TC (20+0.2), SEED (the shuffle and random plies; 52),
# GAMES (the most the SPRT may take; 2000), CONCURRENCY (2: on N cores,
# N games at a time, one engine of each thinking), HASH (64),
# BUILDS (where the engines are built; ~/chuhe-sprt).
# Stop it by signalling the runner alone:
# `pkill -f 'chuhe-sprt/NAME/base match'` (an engine killed under the runner is
# scored as a crash, a lost game the resumed run would keep).
set -euo pipefail

usage="usage: tests/peers/sprt.sh NAME BASE [CANDIDATE] [PARAM=VALUE...] | --save NAME"
if [[ ${1:-} == --save ]]; then
    name=${2:?$usage}
    local_pgn=${BUILDS:-$HOME/chuhe-sprt}/$name/$name.pgn
    [[ -s $local_pgn ]] || { echo "$local_pgn: no games to save" >&2; exit 1; }
    mkdir -p docs/sprt
    "$(dirname "$0")/pgnslim.py" "$local_pgn" > "docs/sprt/$name.pgn"
    echo "docs/sprt/$name.pgn: $(grep -c '^\[Event ' "docs/sprt/$name.pgn") games"
    exit
fi
name=${1:?$usage}
base_rev=$(git rev-parse --verify "${2:?$usage}^{commit}")
shift 2
cand_rev=$base_rev
if [[ $# -gt 0 && $1 != *=* ]]; then
    cand_rev=$(git rev-parse --verify "$1^{commit}")
    shift
fi
params=("$@")
builds=${BUILDS:-$HOME/chuhe-sprt}/$name
pgn=$builds/$name.pgn
mkdir -p "$builds"
if [[ ! -s $pgn && -s docs/sprt/$name.pgn ]]; then
    cp "docs/sprt/$name.pgn" "$pgn"
fi

# Builds revision REV with the given parameter defaults as BIN (once: an
# existing BIN is kept, so a resumed run plays the same engines).
build() {
    local bin=$1 rev=$2
    shift 2
    [[ -x $bin ]] && return
    local src=$builds/src-$(basename "$bin")
    rm -rf "$src"
    mkdir -p "$src"
    git archive "$rev" | tar -x -C "$src"
    local p key value file=$src/core/src/search/params.rs
    for p in "$@"; do
        key=${p%%=*} value=${p#*=}
        [[ $value =~ ^-?[0-9]+$ ]] || { echo "$p: not PARAM=INTEGER" >&2; exit 1; }
        grep -q "\"$key\" = " "$file" || { echo "$key: no such parameter in $rev" >&2; exit 1; }
        sed -E -i "s/(\"$key\" = )-?[0-9]+,/\\1$value,/" "$file"
        grep -q "\"$key\" = $value," "$file" || { echo "$key: could not set $value" >&2; exit 1; }
    done
    echo "== building $(basename "$bin"): $rev $*"
    cargo build --release --quiet --manifest-path "$src/Cargo.toml" \
        --target-dir "$builds/target"
    cp "$builds/target/release/chuhe" "$bin"
}

build "$builds/base" "$base_rev"
build "$builds/$name" "$cand_rev" "${params[@]}"
for bin in base "$name"; do
    echo "$bin: $("$builds/$bin" bench 2>&1 | tail -1)"
done

resume=()
[[ -s $pgn ]] && resume=(--resume)
echo "== $name: ${params[*]:-} at $cand_rev against $base_rev, --tc ${TC:-20+0.2} ($(date -u +%FT%TZ))"
exec "$builds/base" match \
    --engine "cmd=$builds/$name,name=$name,option.Hash=${HASH:-64}" \
    --engine "cmd=$builds/base,name=base,option.Hash=${HASH:-64}" \
    --tc "${TC:-20+0.2}" --openings tests/data/openings.txt --shuffle \
    --seed "${SEED:-52}" --random-plies 2 --games "${GAMES:-2000}" \
    --concurrency "${CONCURRENCY:-2}" --sprt 0,10,0.05,0.05 \
    --draw-score 8 --draw-moves 12 --draw-from-move 50 \
    --resign-score 800 --resign-moves 4 \
    --event "SPRT $name: ${params[*]:-$cand_rev} against $base_rev" \
    --pgn "$pgn" "${resume[@]}"
