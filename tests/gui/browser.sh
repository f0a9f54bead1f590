#!/usr/bin/env bash
# chuhe gui in real headless Chromium, driven over WebDriver as a person
# would use it:
#
#   tests/gui/browser.sh
#
# Starts `chuhe gui --no-browser` and Chromium under chromedriver, then: the
# board draws its 32 pieces with the embedded font (not a system one);
# plays a game against the engine from a mate-in-one position, the mate
# dragged with the pointer, and checks the rules' verdict on the page;
# loads an XQF file (made here with `chuhe convert` from a short PGN) through
# the page's file input, goes through it by its move list, runs the
# analysis (three lines, an arrow, the win/draw/loss bar) and counts the
# page's requests (at most 10 a second); plays a move by two clicks during
# the analysis; runs the whole-game analysis and checks its graph; sends a
# bad file and checks the error shown and that the page still works.
# Screenshots: game.png (the mate), analysis.png (the committed
# tests/gui/chuhe-gui.png is this one, made smaller with pngquant).
#
# Writes to $OUT (default target/browser). Needs chromium and
# chromium-driver (Debian: apt-get install chromium chromium-driver) and
# python3 (standard library only: WebDriver is plain HTTP); uses pngquant
# (apt-get install pngquant) if there to write chuhe-gui.png, a small copy
# of analysis.png. Builds
# nothing (run `cargo build --release` first). Not part of `cargo test`.
#
# Environment: CHUHE (default target/release/chuhe), OUT, CHROMIUM (default
# chromium on PATH), CHROMEDRIVER (default chromedriver on PATH).

set -u

here=$(cd "$(dirname "$0")/../.." && pwd)
CHUHE=${CHUHE:-$here/target/release/chuhe}
OUT=${OUT:-$here/target/browser}
CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || echo chromium)}
CHROMEDRIVER=${CHROMEDRIVER:-$(command -v chromedriver || echo chromedriver)}

die() { echo "browser.sh: $*" >&2; exit 2; }

missing=()
[ -x "$CHROMIUM" ] || missing+=("chromium (apt-get install chromium)")
[ -x "$CHROMEDRIVER" ] || missing+=("chromedriver (apt-get install chromium-driver)")
command -v python3 >/dev/null || missing+=("python3")
if [ ${#missing[@]} -gt 0 ]; then
    printf 'browser.sh: missing: %s\n' "${missing[@]}" >&2
    exit 2
fi
[ -x "$CHUHE" ] || die "no engine at $CHUHE: run cargo build --release (or set CHUHE)"
mkdir -p "$OUT" || die "cannot create $OUT"
rm -f "$OUT"/*.png "$OUT"/game.* "$OUT"/bad.xqf

# A short game as PGN, made an XQF file by chuhe convert.
cat >"$OUT/game.pgn" <<'PGN'
[Event "browser.sh"]
[Red "Red"]
[Black "Black"]
[Result "*"]

1. h2e2 {central cannon} h9g7 2. h0g2 i9h9 3. i0h0 b9c7 4. h0h6 (4. g3g4) c6c5
5. h6g6 h7i7 6. b0c2 a9b9 7. a0b0 b7b3 8. g3g4 h9h4 *
PGN
"$CHUHE" convert "$OUT/game.pgn" "$OUT/game.xqf" >"$OUT/convert.log" 2>&1 ||
    die "chuhe convert failed: $(cat "$OUT/convert.log")"
head -c 400 /dev/urandom | { printf 'XQ'; cat; } >"$OUT/bad.xqf"

# ---- the server and the browser ----------------------------------------------
pids=()
cleanup() {
    local p
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
}
trap cleanup EXIT

"$CHUHE" gui --no-browser --port 0 >"$OUT/gui.stdout" 2>"$OUT/gui.stderr" &
pids+=($!)
url=
for _ in $(seq 100); do
    url=$(head -n 1 "$OUT/gui.stdout" 2>/dev/null)
    [ -n "$url" ] && break
    sleep 0.1
done
[ -n "$url" ] || die "chuhe gui printed no URL (see $OUT/gui.stderr)"
echo "== chuhe gui at $url"

driver_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$CHROMEDRIVER" --port="$driver_port" >"$OUT/chromedriver.log" 2>&1 &
pids+=($!)

OUT=$OUT URL=$url DRIVER="http://127.0.0.1:$driver_port" CHROMIUM=$CHROMIUM python3 - <<'PY'
import base64, json, os, sys, time, urllib.request, urllib.error

OUT, URL, DRIVER = os.environ["OUT"], os.environ["URL"], os.environ["DRIVER"]
failures = []

def fail(msg):
    print("FAIL:", msg)
    failures.append(msg)

def wd(method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(DRIVER + path, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return json.load(r)["value"]
    except urllib.error.HTTPError as e:
        raise RuntimeError(f"{method} {path}: {e.read().decode()[:400]}")

for _ in range(100):
    try:
        wd("GET", "/status")
        break
    except Exception:
        time.sleep(0.1)

session = wd("POST", "/session", {"capabilities": {"alwaysMatch": {
    "browserName": "chrome",
    "goog:chromeOptions": {
        "binary": os.environ["CHROMIUM"],
        "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,1150",
                 "--disable-dev-shm-usage"],
    }}}})["sessionId"]
S = f"/session/{session}"

def js(script, *args):
    return wd("POST", S + "/execute/sync", {"script": script, "args": list(args)})

def wait(what, script, secs=30, *args):
    end = time.time() + secs
    while time.time() < end:
        v = js(script, *args)
        if v:
            return v
        time.sleep(0.1)
    fail(f"timed out: {what}")
    return None

def find(css):
    return wd("POST", S + "/element", {"using": "css selector", "value": css})

def click(css):
    wd("POST", S + f"/element/{list(find(css).values())[0]}/click", {})

def set_value(css, value):
    js("const e = document.querySelector(arguments[0]); e.value = arguments[1];"
       " e.dispatchEvent(new Event('change'));", css, value)

def shot(name):
    png = base64.b64decode(wd("GET", S + "/screenshot"))
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(png)

# The centre of a square in the viewport, from the board's own geometry.
SQUARE_XY = """
const svg = document.getElementById('board');
const [x, y] = sqToXY(arguments[0]);
const p = svg.createSVGPoint(); p.x = x; p.y = y;
const q = p.matrixTransform(svg.getScreenCTM());
return [Math.round(q.x), Math.round(q.y)];
"""

def pointer(steps):
    wd("POST", S + "/actions", {"actions": [{"type": "pointer", "id": "mouse",
        "parameters": {"pointerType": "mouse"}, "actions": steps}]})
    wd("DELETE", S + "/actions")

def move_by_clicks(frm, to):
    for sq in (frm, to):
        x, y = js(SQUARE_XY, sq)
        pointer([{"type": "pointerMove", "x": x, "y": y, "duration": 0},
                 {"type": "pointerDown", "button": 0}, {"type": "pointerUp", "button": 0}])
        time.sleep(0.2)

def move_by_drag(frm, to):
    (x1, y1), (x2, y2) = js(SQUARE_XY, frm), js(SQUARE_XY, to)
    pointer([{"type": "pointerMove", "x": x1, "y": y1, "duration": 0},
             {"type": "pointerDown", "button": 0},
             {"type": "pointerMove", "x": (x1 + x2) // 2, "y": (y1 + y2) // 2, "duration": 150},
             {"type": "pointerMove", "x": x2, "y": y2, "duration": 150},
             {"type": "pointerUp", "button": 0}])

try:
    wd("POST", S + "/url", {"url": URL})
    # ---- the board ------------------------------------------------------
    n = wait("32 pieces", "return document.querySelectorAll('#pieces .piece').length == 32 && 32")
    print(f"== board: {n} pieces")
    font = wait("the embedded font", """
        return document.fonts.ready.then ? [...document.fonts].filter(f => f.family.includes('ChuheCJK'))
            .map(f => f.status).join(',') === 'loaded' && 'loaded' : false""")
    glyphs = js("return [...document.querySelectorAll('#pieces text')].map(t => t.textContent).join('')")
    print(f"== font {font}; pieces {glyphs}")
    if sorted(glyphs) != sorted("車馬象士將士象馬車砲砲卒卒卒卒卒兵兵兵兵兵炮炮俥傌相仕帥仕相傌俥"):
        fail(f"the pieces read {glyphs}")
    lines = js("return document.querySelectorAll('#board .grid line').length")
    if lines < 20:
        fail(f"{lines} board lines")

    # ---- a game against the engine to the end -----------------------------
    click("#position-box summary")  # open the panel, as a person would
    set_value("#fen", "4k4/R8/1R7/9/9/9/9/9/9/3K5 w - - 0 1")
    click("#set-fen")
    wait("the FEN set", "return document.querySelectorAll('#pieces .piece').length == 4")
    js("document.getElementById('from-board').checked = true")
    set_value("#side", "red")
    set_value("#movetime", "0.3")
    click("#new-game")
    wait("the game on", "return document.getElementById('status').textContent.includes('Your move')")
    move_by_drag("b7", "b9")
    summary = wait("the mate on the page", """
        const r = document.getElementById('result');
        return !r.hidden && document.getElementById('result-summary').textContent""")
    print(f"== game: {summary}")
    if not summary or "1-0" not in summary or "checkmated" not in summary:
        fail(f"the game's end reads {summary!r}")
    shot("game.png")

    # ---- a record, the analysis, a move during it ---------------------------
    wd("POST", S + f"/element/{list(find('#file').values())[0]}/value",
       {"text": os.path.join(OUT, "game.xqf")})
    count = wait("the XQF game's moves", "return document.querySelectorAll('#moves li.mv').length == 16 &&"
                 " document.querySelectorAll('#moves li.mv').length")
    print(f"== XQF loaded: {count} plies")
    comment_shown = False
    click("#next")
    comment_shown = wait("the first move's comment",
                         "return document.getElementById('comment').textContent.includes('central cannon')", 5)
    js("document.querySelectorAll('#moves li.mv')[9].click()")
    wait("ply 10", "return document.querySelector('#moves li.mv.current') === document.querySelectorAll('#moves li.mv')[9]")
    click("#analyse")
    n_lines = wait("three analysis lines", "return document.querySelectorAll('#lines li').length >= 3 &&"
                   " document.querySelectorAll('#lines li').length")
    first = js("return document.querySelector('#lines li').textContent")
    arrow = js("return document.querySelectorAll('#arrows line').length")
    wdl = js("return document.getElementById('wdl-w').style.width")
    print(f"== analysis: {n_lines} lines, first: {first[:60]}; arrows {arrow}; red win bar {wdl}")
    if not arrow:
        fail("no arrow for the best move")
    if not any('\u4e00' <= c <= '\u9fff' for c in first):
        fail("the lines are not in Chinese notation")
    # The page's requests while the analysis runs: at most 10 a second.
    js("window.__calls = 0; const f = window.fetch; window.fetch = (...a) => { window.__calls++; return f(...a); };")
    time.sleep(3)
    calls = js("return window.__calls")
    print(f"== {calls} requests in 3 s of analysis")
    if calls > 30:
        fail(f"{calls} requests in 3 s")
    # A move by two clicks at ply 10 (the first legal one): it replaces the
    # rest of the line.
    legal = js("return state.legal")
    frm = sorted(legal)[0]
    to = legal[frm][0]
    move_by_clicks(frm, to)
    after = wait("the clicked move", "return document.querySelectorAll('#moves li.mv').length == 11 &&"
                 " state.last_move", 10)
    print(f"== clicked {frm}{to}: last move {after}")
    if after != frm + to:
        fail(f"clicking {frm} then {to} played {after}")
    wait("analysis of the new position", "return document.querySelectorAll('#lines li').length >= 3", 20)

    # ---- the whole game ------------------------------------------------------
    set_value("#review-time", "0.05")
    click("#review")
    status = wait("the whole-game analysis", "const t = document.getElementById('review-status').textContent;"
                  " return t.startsWith('Done') && t", 120)
    graph = js("return document.querySelectorAll('#graph path').length")
    print(f"== review: {status}; graph paths {graph}")
    if not graph:
        fail("no score graph")
    js("document.querySelectorAll('#moves li.mv')[6].click()")
    wait("analysis after the review", "return document.querySelectorAll('#lines li').length >= 3", 20)
    time.sleep(1.5)
    shot("analysis.png")

    # ---- a bad file ----------------------------------------------------------
    wd("POST", S + f"/element/{list(find('#file').values())[0]}/value",
       {"text": os.path.join(OUT, "bad.xqf")})
    err = wait("the error for a bad XQF", "const e = document.getElementById('error');"
               " return !e.hidden && e.textContent")
    print(f"== bad XQF: {err}")
    if not err or "cannot read" not in err:
        fail(f"a bad XQF shows {err!r}")
    click("#next")
    if not wait("the page still answers", "return state.cursor == 8", 5):
        fail("the page stopped answering after a bad file")
finally:
    try:
        wd("DELETE", S)
    except Exception:
        pass

if failures:
    print(f"browser.sh: {len(failures)} failures")
    sys.exit(1)
PY
rc=$?
if [ $rc -eq 0 ] && command -v pngquant >/dev/null && [ -f "$OUT/analysis.png" ]; then
    pngquant --force --strip --quality 60-85 --output "$OUT/chuhe-gui.png" "$OUT/analysis.png"
fi
kill -0 "${pids[0]}" 2>/dev/null || { echo "FAIL: chuhe gui is no longer running"; rc=1; }
[ $rc -eq 0 ] && echo "browser.sh: all passed; screenshots in $OUT"
exit $rc
