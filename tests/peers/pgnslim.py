#!/usr/bin/env python3
"""Write a match PGN without what a resumed match and the reports can do
without, so that a long match's games can be committed (docs/sprt/).

The runner's move comments carry the Chinese notation, the score and
depth, the time, nodes, speed and the principal variation: about 150
bytes a move, 35 KB a game. `chuhe match --resume`, its report (result,
endings, score, depth and time per move) and tests/peers/clockuse.py need
only the score/depth and the time, so this keeps `book`, `+12/19 0.898s`,
`offers a draw` and the termination comment, and drops the rest (the
nodes and speed columns of a resumed report then cover only the games
played since). Tags and moves are kept as they are.

    tests/peers/pgnslim.py FULL.pgn > SLIM.pgn
"""

import re
import signal
import sys

signal.signal(signal.SIGPIPE, signal.SIG_DFL)

COMMENT = re.compile(r"\{([^}]*)\}")
SCORE = re.compile(r"^(?:[+-]\d+|M-?\d+)(?:/\d+)?$")
TIME = re.compile(r"^\d+(?:\.\d+)?s$")


def slim(comment: str) -> str:
    """The words of a move comment that resume and the reports read, in
    order; a comment that is not a move's (a termination) comes back as
    it was."""
    words = comment.split()
    kept = []
    i = 0
    while i < len(words):
        w = words[i]
        if w == "book" or SCORE.match(w) or TIME.match(w):
            kept.append(w)
        elif w in ("nodes", "nps") and i + 1 < len(words) and words[i + 1].isdigit():
            i += 1
        elif w == "offers" and words[i + 1 : i + 3] == ["a", "draw"]:
            kept.extend(words[i : i + 3])
            i += 2
        elif w == "pv":
            break
        elif i == 0 and not w.isascii():
            pass  # the move in Chinese notation
        else:
            return comment
        i += 1
    return " ".join(kept)


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit("usage: pgnslim.py FULL.pgn > SLIM.pgn")
    with open(sys.argv[1], encoding="utf-8") as f:
        text = f.read()
    sys.stdout.write(COMMENT.sub(lambda m: "{" + slim(m.group(1)) + "}", text))


if __name__ == "__main__":
    main()
