#!/usr/bin/env bash
# The mate suite (tests/data/mates.txt) on Pikafish, or any UCI engine that
# numbers ranks 0-9, reported as `chuhe bench --suite` reports Chuhe: one
# line per position and the same summary, so that the two can be compared
# in one run on one machine. Not part of `cargo test`; installs nothing.
#
#   PIKAFISH=/path/to/pikafish tests/peers/mates.sh [SUITE] [MOVETIME_MS]
#   target/release/chuhe bench --suite tests/data/mates.txt --movetime 1000
#
# Each position: `ucinewgame` (a fresh table), `position fen`, `isready`,
# `go movetime MS`, one thread, Hash 16 MB. NODES=N searches N nodes a
# position instead (`go nodes N`: the same tree however busy the machine
# is), and OPTIONS="Name=Value ..." sends those `setoption`s first (the
# search parameters of a `make tune` build of Chuhe, for example). Solved: the engine's last
# reported score is a mate in at most the suite's N moves and it names a
# best move. Time to the proof: the `time` field (the engine's own clock,
# as Chuhe's info lines give it) of the first info line with a mate score
# for the side to move, of any length. The summary gives per mate-length
# group the positions solved and the median (the lower middle value for an
# even count) and longest time to the proof over the solved ones.
set -euo pipefail

suite=${1:-tests/data/mates.txt}
ms=${2:-1000}
: "${PIKAFISH:?set PIKAFISH to the engine binary (e.g. Pikafish-HCE src/pikafish)}"
[[ -z ${NODES:-} || $NODES =~ ^[0-9]+$ ]] || { echo "bad NODES: $NODES" >&2; exit 1; }
[[ -r $suite ]] || { echo "$suite: cannot read" >&2; exit 1; }
[[ $ms =~ ^[0-9]+$ ]] || { echo "bad movetime: $ms" >&2; exit 1; }

trim() {
    local s=$1
    s=${s#"${s%%[![:space:]]*}"}
    printf '%s' "${s%"${s##*[![:space:]]}"}"
}

# Check the whole file before starting the engine: errors in it are errors.
cases=()
n=0
while IFS= read -r raw || [[ -n $raw ]]; do
    n=$((n + 1))
    line=${raw%$'\r'}
    [[ $line =~ ^[[:space:]]*(#|$) ]] && continue
    IFS=';' read -r fen mate source <<<"$line"
    fen=$(trim "$fen")
    source=$(trim "${source:-}")
    if [[ -z $fen || ! ${mate:-} =~ ^[[:space:]]*mate[[:space:]]+([0-9]+)[[:space:]]*$ ]] \
        || ((BASH_REMATCH[1] < 1)); then
        echo "$suite: line $n: expected \`FEN ; mate N ; source\`, found \`$line\`" >&2
        exit 1
    fi
    cases+=("${BASH_REMATCH[1]}"$'\t'"$fen"$'\t'"$source")
done <"$suite"
((${#cases[@]})) || { echo "$suite: no positions" >&2; exit 1; }

coproc ENG { exec "$PIKAFISH" 2>/dev/null; }
send() { printf '%s\n' "$*" >&"${ENG[1]}"; }
# Reads engine lines until one starting with $1; the last one read is in $reply.
await() {
    while IFS= read -r -t 600 -u "${ENG[0]}" reply; do
        [[ $reply == "$1"* ]] && return 0
    done
    echo "the engine stopped answering (waiting for $1)" >&2
    exit 1
}
send uci
await uciok
send "setoption name Threads value 1"
send "setoption name Hash value 16"
for opt in ${OPTIONS:-}; do
    send "setoption name ${opt%%=*} value ${opt#*=}"
done
send isready
await readyok

results=()
i=0
for c in "${cases[@]}"; do
    i=$((i + 1))
    IFS=$'\t' read -r mate fen source <<<"$c"
    send ucinewgame
    send "position fen $fen"
    send isready
    await readyok
    if [[ -n ${NODES:-} ]]; then
        send "go nodes $NODES"
    else
        send "go movetime $ms"
    fi
    first=- kind=cp val=0 depth=0 nodes=0
    while IFS= read -r -t 600 -u "${ENG[0]}" reply; do
        read -ra t <<<"$reply"
        [[ ${t[0]:-} == bestmove ]] && break
        [[ ${t[0]:-} == info && $reply == *" score "* ]] || continue
        time=
        for ((k = 1; k < ${#t[@]}; k++)); do
            case ${t[k]} in
                depth) depth=${t[k + 1]} ;;
                nodes) nodes=${t[k + 1]} ;;
                time) time=${t[k + 1]} ;;
                score) kind=${t[k + 1]} val=${t[k + 2]} ;;
                pv) break ;;
            esac
        done
        if [[ $first == - && $kind == mate ]] && ((val > 0)); then
            first=${time:--}
        fi
    done
    [[ ${t[0]:-} == bestmove ]] || { echo "no bestmove for position $i" >&2; exit 1; }
    best=${t[1]:-(none)}
    if [[ $kind == mate && $best != "(none)" ]] && ((val >= 1 && val <= mate)); then
        status=solved proof=$first
    else
        status=MISSED proof=-
    fi
    printf 'position %3d mate %d %s score %s %s proof %s best %s depth %s nodes %s ; %s\n' \
        "$i" "$mate" "$status" "$kind" "$val" "$([[ $proof == - ]] && echo - || echo "${proof}ms")" \
        "$best" "$depth" "$nodes" "$source"
    results+=("$mate $status $proof")
done
send quit
if [[ -n ${ENG_PID:-} ]]; then wait "$ENG_PID" 2>/dev/null || true; fi

printf '%s\n' "${results[@]}" | awk '
function summary(name, key,   m, j, k, tmp, x) {
    m = 0
    for (j = 1; j <= cnt[key]; j++) tmp[++m] = tm[key, j]
    for (j = 2; j <= m; j++) { x = tmp[j]; for (k = j - 1; k >= 1 && tmp[k] > x; k--) tmp[k + 1] = tmp[k]; tmp[k + 1] = x }
    if (m) printf "mates %s solved %d/%d median %dms max %dms\n", name, sol[key], tot[key], tmp[int((m + 1) / 2)], tmp[m]
    else printf "mates %s solved %d/%d median - max -\n", name, sol[key], tot[key]
}
{
    g = $1 <= 2 ? "1-2" : $1 <= 4 ? "3-4" : $1 <= 6 ? "5-6" : $1 <= 8 ? "7-8" : "9+"
    for (pass = 0; pass < 2; pass++) {
        key = pass ? "all" : g
        tot[key]++
        if ($2 == "solved") { sol[key]++; if ($3 != "-") tm[key, ++cnt[key]] = $3 + 0 }
    }
}
END {
    split("1-2 3-4 5-6 7-8 9+", order, " ")
    for (j = 1; j <= 5; j++) if (tot[order[j]]) summary(order[j], order[j])
    summary("all", "all")
}'
