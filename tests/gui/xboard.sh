#!/usr/bin/env bash
# Chuhe in the real XBoard: matches and analysis under a virtual display.
#
#   FAIRY=/path/to/Fairy-Stockfish/src/stockfish tests/gui/xboard.sh
#
# Plays, in XBoard 4.9.1 (Debian's xboard package) with -variant xiangqi,
# two games of Chuhe against Fairy-Stockfish (CECP) and two of Chuhe against
# itself (pondering on), then runs XBoard's analysis mode with Chuhe on a
# position given as a FEN with XBoard's H/E letters. It fails if a game ends
# by an illegal move, a time forfeit, a false claim, a crash or broken pipe,
# or if XBoard's debug log (-engineDebugOutput 3) marks any line of Chuhe's
# as not CECP; and if the analysis shows no thinking output.
#
# Writes to $OUT (default target/xboard): fairy.pgn, self.pgn, *.debug
# (XBoard's debug logs: every line both ways), *.stdout, board.png (the
# board during the first game) and analysis.png. Installs nothing; builds
# nothing (run `cargo build --release` first). Not part of `cargo test`.
# Needs xboard, Xvfb, xwd and convert; uses xwininfo (x11-utils) and xdotool
# if they are there, to crop the screenshots and move a window.
#
# Environment: FAIRY (required), CHUHE (default target/release/chuhe),
# XBOARD (default xboard on PATH, else /usr/games/xboard), OUT, TC (XBoard's
# -tc, minutes or min:sec, default 1), INC (seconds, default 1), GAMES (per
# match, default 2), SHOT_AFTER (seconds into the first game, default 40),
# ANALYSIS_SECONDS (default 20), MATCH_TIMEOUT (seconds per match, 3600),
# CHUHE_OPTIONS (XBoard's -firstOptions for Chuhe, default "Move
# Overhead=100": in self-play with pondering on a loaded two-core machine,
# XBoard charged a quarter of the moves up to 0.6 s more than the engine's
# own time limit; this also sends XBoard's `option` command).

set -u

here=$(cd "$(dirname "$0")/../.." && pwd)
CHUHE=${CHUHE:-$here/target/release/chuhe}
OUT=${OUT:-$here/target/xboard}
TC=${TC:-1}
INC=${INC:-1}
GAMES=${GAMES:-2}
SHOT_AFTER=${SHOT_AFTER:-40}
ANALYSIS_SECONDS=${ANALYSIS_SECONDS:-20}
MATCH_TIMEOUT=${MATCH_TIMEOUT:-3600}
CHUHE_OPTIONS=${CHUHE_OPTIONS-Move Overhead=100}

die() { echo "xboard.sh: $*" >&2; exit 2; }

# ---- what must be there ----------------------------------------------------
XBOARD=${XBOARD:-$(command -v xboard || echo /usr/games/xboard)}
missing=()
[ -x "$XBOARD" ] || missing+=("xboard (apt-get install xboard; the binary is /usr/games/xboard)")
command -v Xvfb >/dev/null || missing+=("Xvfb (apt-get install xvfb)")
command -v xwd >/dev/null || missing+=("xwd (apt-get install x11-apps)")
command -v convert >/dev/null || missing+=("convert (apt-get install imagemagick)")
if [ ${#missing[@]} -gt 0 ]; then
    printf 'xboard.sh: missing: %s\n' "${missing[@]}" >&2
    exit 2
fi
[ -x "$CHUHE" ] || die "no engine at $CHUHE: run cargo build --release (or set CHUHE)"
[ -n "${FAIRY:-}" ] || die "set FAIRY to Fairy-Stockfish's binary (built with largeboards=yes for xiangqi)"
[ -x "$FAIRY" ] || die "FAIRY=$FAIRY is not an executable"
CHUHE=$(cd "$(dirname "$CHUHE")" && pwd)/$(basename "$CHUHE")
FAIRY=$(cd "$(dirname "$FAIRY")" && pwd)/$(basename "$FAIRY")
version=$("$XBOARD" --version 2>/dev/null | head -1)
case "$version" in
*4.9.1*) ;;
*) echo "xboard.sh: note: written against XBoard 4.9.1, found: ${version:-unknown}" >&2 ;;
esac
mkdir -p "$OUT" || die "cannot create $OUT"

# ---- a display of our own -------------------------------------------------
display=
for n in $(seq 90 120); do
    [ -e "/tmp/.X$n-lock" ] || [ -e "/tmp/.X11-unix/X$n" ] || { display=:$n; break; }
done
[ -n "$display" ] || die "no free X display number between :90 and :120"
Xvfb "$display" -screen 0 1280x1024x24 -nolisten tcp >"$OUT/xvfb.log" 2>&1 &
xvfb=$!
cleanup() { kill "$xvfb" 2>/dev/null; wait "$xvfb" 2>/dev/null; }
trap cleanup EXIT
for _ in $(seq 50); do
    [ -e "/tmp/.X11-unix/X${display#:}" ] && break
    sleep 0.1
done
export DISPLAY=$display

# Debian's /etc/xboard/xboard.conf is always read: it plays sounds, pops up
# a startup tip over the board and saves settings on exit. Off, all three.
quiet=(-saveSettingsOnExit false -soundMove "" -startupMessage "" -xexit)

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# The root-window screenshot, cropped to XBoard's main window (there is no
# window manager, so it sits at the top left; xwininfo, if there, gives its
# size; `xwd -id` on it fails with BadMatch). PNG8 keeps it small.
shot() { # FILE
    local geometry=424x540+0+0 size
    size=$(xwininfo -root -children 2>/dev/null | grep -m1 '("xboard" "Xboard")  [0-9]*x[0-9]*+0+0' |
        grep -o '[0-9]*x[0-9]*+0+0' | head -1)
    [ -n "$size" ] && geometry=$size
    [ "${2:-}" = whole ] && geometry=1000x600+0+0
    xwd -root -silent | convert xwd:- -crop "$geometry" +repage -strip -colors 96 "PNG8:$1"
}

# The Engine Output window opens over the board (no window manager to place
# it); xdotool, if there, moves it beside.
move_engine_output() {
    command -v xdotool >/dev/null || return 0
    local w
    for w in $(xdotool search --name '^Engine output$' 2>/dev/null); do
        xdotool windowmove "$w" 440 0
    done
}

# ---- checks on a debug log ------------------------------------------------
# Lines are "<ms> >first : cmd" (to an engine) and "<ms> <first : line" (from
# it). "New game (N): WHITE-BLACK (c)" starts a game, c the first engine's
# colour; "GameEnds(result, reason, who)" ends one (26 Red wins, 27 Black
# wins, 28 draw; who 4 XBoard, 5 the first engine, 6 the second, 2 the GUI
# itself, which repeats the last end as a match closes) and "GE(...)" says
# what XBoard made of an engine's claim.

# Lines of Chuhe's that are not CECP, or errors it answered.
check_lines() { # LOG WHO... (first/second: the engines that are Chuhe)
    local log=$1 who bad
    shift
    for who in "$@"; do
        # 4.9.1 flags stat01 (which it asks for with '.') as not compliant:
        # its list of commands (backend.c, HandleMachineMove) lacks it.
        bad=$(grep -aE "<$who *: ### NON-COMPLIANT" "$log" | grep -v "NON-COMPLIANT! ### stat01: ")
        [ -z "$bad" ] || fail "$log: $who: $(echo "$bad" | head -3)"
        bad=$(grep -aE "<$who *: (Error|Illegal move)" "$log")
        [ -z "$bad" ] || fail "$log: $who: $(echo "$bad" | head -3)"
    done
    return 0
}

# How each game ended. A forfeit (illegal move, time, crash or broken pipe)
# or a false claim fails the run when it is Chuhe's; the opponent's is
# reported only.
check_ends() { # LOG GAMES WHO...
    local log=$1 games=$2 report
    shift 2
    report=$(awk -v chuhe=" $* " '
        /^New game \(/ { game++; first = substr($0, length($0) - 1, 1) }
        /^(GameEnds|GE)\((26|27|28), / {
            if (!match($0, /, [0-9]+\)( |$)/)) next
            who = substr($0, RSTART + 2, RLENGTH - 2); sub(/\).*/, "", who)
            res = substr($0, index($0, "(") + 1, 2)
            text = $0; sub(/^(GameEnds|GE)\([0-9]+, /, "", text)
            text = substr(text, 1, length(text) - (length($0) - RSTART) - 1)
            if (seen[game, res, text]++ || who == 2 && ended[game]) next
            ended[game] = 1
            culprit = ""
            if (text ~ /^False (win|draw|illegal-move) claim/)
                culprit = who == 5 ? "first" : who == 6 ? "second" : "?"
            else if (text ~ /Forfeit due to|wins on time|Error writing to|exited unexpectedly|Error reading from/)
                culprit = ((res == 26) ? "b" : "w") == first ? "first" : "second"
            mark = culprit == "" ? "" : index(chuhe, " " culprit " ") ? "[Chuhe: FAILED] " : "[the opponent] "
            printf "game %d: %s%s %s%s\n", game, $0 ~ /^GE/ ? "XBoard ruled " : "",
                res == 26 ? "1-0" : res == 27 ? "0-1" : "1/2-1/2", mark, text
        }' "$log")
    echo "$report" | sed 's/^/    /'
    [ "$(echo "$report" | grep -c '^game')" -ge "$games" ] || fail "$log: fewer game ends than $games games"
    if echo "$report" | grep -q FAILED; then
        fail "$log: $(echo "$report" | grep FAILED | head -3)"
    fi
    return 0
}

# ---- matches ----------------------------------------------------------------
match() { # TAG SECOND_CMD PONDER(-ponder|-xponder) WHO...
    local tag=$1 second=$2 ponder=$3 options=(-firstOptions "$CHUHE_OPTIONS")
    shift 3
    [ "$*" = "first second" ] && options+=(-secondOptions "$CHUHE_OPTIONS")
    rm -f "$OUT/$tag.pgn" "$OUT/$tag.debug"
    echo "== $tag: $GAMES games, ${TC} min + ${INC} s, $ponder"
    local start=$SECONDS shooter=
    if [ "$tag" = fairy ]; then
        (sleep "$SHOT_AFTER"; shot "$OUT/board.png") &
        shooter=$!
    fi
    timeout "$MATCH_TIMEOUT" "$XBOARD" -variant xiangqi \
        -fcp "$CHUHE" -fd "$(dirname "$CHUHE")" -scp "$second" -sd "$(dirname "${second%% *}")" \
        -mm -mg "$GAMES" -tc "$TC" -inc "$INC" "$ponder" -autoCallFlag true "${options[@]}" \
        -sgf "$OUT/$tag.pgn" -debug -nameOfDebugFile "$OUT/$tag.debug" -engineDebugOutput 3 \
        "${quiet[@]}" >"$OUT/$tag.stdout" 2>&1
    local rc=$?
    [ -z "$shooter" ] || wait "$shooter"
    echo "   xboard exit $rc after $((SECONDS - start)) s: $(grep -h "final score" "$OUT/$tag.stdout")"
    [ $rc -eq 0 ] || fail "$tag: xboard exit status $rc (see $OUT/$tag.stdout)"
    local games
    games=$(grep -c '^\[Result ' "$OUT/$tag.pgn" 2>/dev/null)
    [ "${games:-0}" -eq "$GAMES" ] || fail "$tag: ${games:-0} games in $OUT/$tag.pgn, $GAMES expected"
    grep -h -E '^\[(White|Black|Result) ' "$OUT/$tag.pgn" | paste - - - | sed 's/^/    /'
    check_ends "$OUT/$tag.debug" "$GAMES" "$@"
    if [ -n "$CHUHE_OPTIONS" ] && ! grep -qa ">first : option " "$OUT/$tag.debug"; then
        fail "$tag: XBoard sent no option command for CHUHE_OPTIONS=$CHUHE_OPTIONS"
    fi
    check_lines "$OUT/$tag.debug" "$@"
}

match fairy "$FAIRY" -xponder first
match self "$CHUHE" -ponder first second

# ---- analysis -----------------------------------------------------------------
# A middle-game position, Black to move, written with XBoard's H and E.
echo "r1eakaehr/9/1ch4c1/p1p1p1p1p/9/2P6/P3P1P1P/1C2C1H2/9/RHEAKAE1R b - - 0 4" >"$OUT/analysis.fen"
echo "== analysis: ${ANALYSIS_SECONDS} s on $(cat "$OUT/analysis.fen")"
rm -f "$OUT/analysis.debug"
(sleep 4; move_engine_output; sleep $((ANALYSIS_SECONDS - 8)); shot "$OUT/analysis.png" whole) &
shooter=$!
timeout "$ANALYSIS_SECONDS" "$XBOARD" -variant xiangqi -fcp "$CHUHE" -fd "$(dirname "$CHUHE")" \
    -firstOptions "$CHUHE_OPTIONS" \
    -mode Analysis -lpf "$OUT/analysis.fen" -debug -nameOfDebugFile "$OUT/analysis.debug" \
    -engineDebugOutput 3 "${quiet[@]}" >"$OUT/analysis.stdout" 2>&1
rc=$?
wait "$shooter"
# timeout stops XBoard with SIGTERM (124); XBoard then sends exit and quit.
[ $rc -eq 124 ] || fail "analysis: xboard exit status $rc, 124 (stopped by timeout) expected"
grep -q "Bad FEN" "$OUT/analysis.stdout" && fail "analysis: XBoard refused the FEN"
grep -qE ">first : setboard r1eakaehr/" "$OUT/analysis.debug" || fail "analysis: no setboard with H/E letters sent"
thinking=$(grep -cE "<first : [0-9]+ -?[0-9]+ [0-9]+ [0-9]+ .*	" "$OUT/analysis.debug")
stats=$(grep -c "<first : .*stat01: " "$OUT/analysis.debug")
echo "    $thinking thinking lines, $stats stat01 lines; the last:"
grep -E "<first : [0-9]+ -?[0-9]+ [0-9]+ [0-9]+ .*	" "$OUT/analysis.debug" | tail -1 | cut -c1-150 | sed 's/^/    /'
[ "$thinking" -ge 3 ] || fail "analysis: $thinking thinking lines in $OUT/analysis.debug"
check_lines "$OUT/analysis.debug" first

if [ $failures -gt 0 ]; then
    echo "xboard.sh: $failures failures; logs in $OUT"
    exit 1
fi
echo "xboard.sh: all passed; games, logs and screenshots in $OUT"
