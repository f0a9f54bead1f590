#!/usr/bin/env python3
"""How each engine of a `chuhe match` PGN spent its clock: the search time
it reported in its move comments ("... 1.234s ..."), per engine, over
all of its games. Moves are counted from its first search: the opening's
book moves and random plies are played before the clocks start. Not part
of `cargo test`; docs/RESULTS.md, "Chuhe leaves its clock unspent", has a
run.

    tests/peers/clockuse.py [--moves N] A.pgn [B.pgn ...]

For each engine it prints:
  - the mean and the longest search time of a move;
  - by its Nth search (40 unless given), over the games that had as many:
    the median of the time it spent, against what the clock gave it up to
    then (base time plus N increments);
  - the median clock it had left when the game ended (base plus an
    increment a move, less what it spent; the runner's own overhead is
    not counted, so this is a little more than the clock showed).
The control is the game's `TimeControl` tag ("60+1"), or the side's own
`RedTimeControl` / `BlackTimeControl` in a match with time odds.
"""
import re
import signal
import statistics
import sys

TAG = re.compile(r'^\[(\w+) "(.*)"\]\s*$')
COMMENT = re.compile(r"\{([^}]*)\}")
SECONDS = re.compile(r"(?:^|\s)(\d+(?:\.\d+)?)s(?:\s|$)")


def games(path):
    """Yields (tags, comments) for each game: the move comments in order."""
    tags, body = {}, []
    for line in open(path, encoding="utf-8"):
        m = TAG.match(line)
        if m:
            if body:
                yield tags, COMMENT.findall(" ".join(body))
                tags, body = {}, []
            tags[m.group(1)] = m.group(2)
        elif line.strip():
            body.append(line.strip())
    if body or tags:
        yield tags, COMMENT.findall(" ".join(body))


def control(text):
    """"60+1" -> (60.0, 1.0); None for anything else (a node count)."""
    m = re.fullmatch(r"(\d+(?:\.\d+)?)\+(\d+(?:\.\d+)?)", text or "")
    return (float(m.group(1)), float(m.group(2))) if m else None


def main(argv):
    moves = 40
    if argv and argv[0] == "--moves":
        if len(argv) < 2 or not argv[1].isdigit() or int(argv[1]) < 1:
            sys.exit("--moves N: N a number of moves, 1 or more")
        moves = int(argv[1])
        argv = argv[2:]
    if not argv:
        sys.exit(__doc__)
    per = {}  # engine -> dict of lists
    for path in argv:
        try:
            read = list(games(path))
        except (OSError, UnicodeDecodeError) as e:
            sys.exit(f"{path}: {e}")
        for tags, comments in read:
            if not tags:
                continue  # text outside any game: not a PGN
            for side, colour in ((0, "Red"), (1, "Black")):
                name = tags.get(colour, colour)
                tc = control(tags.get(colour + "TimeControl", tags.get("TimeControl")))
                # Book moves and the runner's random plies are played
                # before the clocks start.
                times = []
                for c in comments[side::2]:
                    s = SECONDS.search(c)
                    if s:
                        times.append(float(s.group(1)))
                e = per.setdefault(name, {"times": [], "by": [], "given": [], "left": []})
                e["times"] += times
                if tc is None:
                    continue
                base, inc = tc
                if len(times) >= moves:
                    e["by"].append(sum(times[:moves]))
                    e["given"].append(base + inc * moves)
                e["left"].append(base + inc * len(times) - sum(times))
    if not per:
        sys.exit("no games")
    print(f"{'engine':<20} {'moves':>6} {'mean s':>7} {'max s':>7} "
          f"{'games':>6} {'spent by ' + str(moves):>11} {'of':>6} {'left at end':>12}")
    for name, e in sorted(per.items()):
        t = e["times"]
        mean = sum(t) / len(t) if t else 0.0
        by = f"{statistics.median(e['by']):.1f}" if e["by"] else "-"
        given = f"{statistics.median(e['given']):.1f}" if e["given"] else "-"
        left = f"{statistics.median(e['left']):.1f}" if e["left"] else "-"
        print(f"{name:<20} {len(t):>6} {mean:>7.2f} {max(t, default=0):>7.1f} "
              f"{len(e['by']):>6} {by:>11} {given:>6} {left:>12}")


if __name__ == "__main__":
    # Piped into `head`, end quietly like the shell tools rather than with
    # a BrokenPipeError traceback.
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    main(sys.argv[1:])
