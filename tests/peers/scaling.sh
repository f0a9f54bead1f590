#!/usr/bin/env bash
# Issue 52's scaling table: Chuhe against Pikafish-HCE at three time
# controls, and each engine's gain from a doubling of its time (the same
# binary at twice the time against itself, by the runner's time odds).
# Every match appends to its own PGN under OUT and is resumed from it
# (`--resume`), so the script can be stopped and run again, and a run may
# take one stage at a time. Not part of `cargo test`; installs nothing.
#
#   PIKAFISH=../peers/Pikafish-HCE/src/pikafish tests/peers/scaling.sh OUT [STAGE...]
#
# Stages (all of them when none is named), with the games each plays:
#   pika10   Chuhe vs Pikafish-HCE at 10 s + 0.1 s    (GAMES10, 200)
#   pika30   ... at 30 s + 0.3 s                       (GAMES30, 60)
#   pika60   ... at 1 min + 1 s                        (GAMES60, 40)
#   double   Chuhe at 20 s + 0.2 s against itself at 10 s + 0.1 s (GAMES2X, 100)
#   pdouble  the same for Pikafish-HCE                 (GAMES2X)
# CHUHE (default target/release/chuhe) is the build measured. The openings
# are the shared suite, shuffled with one seed, each pair's opening played
# with colours swapped; Hash 64 MB for each engine (128 at 1 min + 1 s), two
# games at a time (CONCURRENCY: on a machine of N cores, N - 1 leaves one
# for the runner and the system; a game has one engine thinking at a time).
# The machine should run nothing else meanwhile.
# `chuhe match` prints each stage's Elo, the game pairs, how the games
# ended (the repetition rules apart) and each engine's time, depth and
# speed per move: the columns of docs/RESULTS.md's table.
set -euo pipefail

out=${1:?usage: tests/peers/scaling.sh OUT [STAGE...]}
shift
stages=("$@")
[[ ${#stages[@]} -gt 0 ]] || stages=(pika10 pika30 pika60 double pdouble)
chuhe=${CHUHE:-target/release/chuhe}
: "${PIKAFISH:?set PIKAFISH to the Pikafish-HCE binary}"
for bin in "$chuhe" "$PIKAFISH"; do
    [[ -x $bin ]] || { echo "$bin: not an executable" >&2; exit 1; }
done
mkdir -p "$out"

# One match, resumed from its PGN when that exists.
match() {
    local name=$1 games=$2 tc=$3
    shift 3
    local pgn=$out/$name.pgn resume=()
    [[ -s $pgn ]] && resume=(--resume)
    echo "== $name: $games games, --tc $tc ($(date -u +%FT%TZ))"
    "$chuhe" match "$@" --tc "$tc" --openings tests/data/openings.txt --shuffle \
        --seed 52 --random-plies 2 --games "$games" --concurrency "${CONCURRENCY:-2}" \
        --pgn "$pgn" "${resume[@]}" | tee "$out/$name.txt"
}

pika() {
    local name=$1 games=$2 tc=$3 hash=$4
    match "$name" "$games" "$tc" \
        --engine "cmd=$chuhe,name=Chuhe,option.Hash=$hash" \
        --engine "cmd=$PIKAFISH,name=Pikafish-HCE,option.Hash=$hash"
}

for stage in "${stages[@]}"; do
    case $stage in
        pika10) pika pika10 "${GAMES10:-200}" 10+0.1 64 ;;
        pika30) pika pika30 "${GAMES30:-60}" 30+0.3 64 ;;
        pika60) pika pika60 "${GAMES60:-40}" 60+1 128 ;;
        double)
            match double "${GAMES2X:-100}" 10+0.1 \
                --engine "cmd=$chuhe,name=Chuhe-2x,tc=20+0.2,option.Hash=64" \
                --engine "cmd=$chuhe,name=Chuhe-1x,option.Hash=64" ;;
        pdouble)
            match pdouble "${GAMES2X:-100}" 10+0.1 \
                --engine "cmd=$PIKAFISH,name=Pikafish-2x,tc=20+0.2,option.Hash=64" \
                --engine "cmd=$PIKAFISH,name=Pikafish-1x,option.Hash=64" ;;
        *) echo "unknown stage $stage (pika10 pika30 pika60 double pdouble)" >&2; exit 1 ;;
    esac
done
