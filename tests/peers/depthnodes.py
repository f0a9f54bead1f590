#!/usr/bin/env python3
"""Nodes a UCI engine needs to finish each depth, on the positions of
`chuhe bench` (src/bench.rs): one thread, 16 MB hash, a fresh table for each
position (`ucinewgame`), `go depth D`; a depth's count is the `nodes` of its
last `info depth ... pv` line (not a bound). Node counts do not depend on
the machine's load. Not part of `cargo test`; docs/RESULTS.md, "The tree
at long time controls", has a run.

    tests/peers/depthnodes.py run ENGINE DEPTH OUT.json [NAME=VALUE ...]
    # from the repo root; NAME=VALUE pairs become `setoption`s (for example
    # the search parameters of a `make tune` build)
    tests/peers/depthnodes.py table A.json [B.json ...]   # geometric means
"""
import json
import math
import re
import subprocess
import sys


def run(engine, depth, out, options=()):
    src = open("src/bench.rs").read()
    fens = re.findall(r'^\s+"([^"]+ [wb] [^"]*)",', src, re.M)
    p = subprocess.Popen([engine], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         text=True, bufsize=1)

    def send(s):
        p.stdin.write(s + "\n")
        p.stdin.flush()

    def until(tok):
        lines = []
        while True:
            line = p.stdout.readline()
            if not line:
                sys.exit("the engine died")
            lines.append(line.strip())
            if line.startswith(tok):
                return lines

    send("uci")
    until("uciok")
    send("setoption name Threads value 1")
    send("setoption name Hash value 16")
    for opt in options:
        name, value = opt.split("=", 1)
        send(f"setoption name {name} value {value}")
    res = []
    for i, fen in enumerate(fens):
        send("ucinewgame")
        send("position fen " + fen)
        send("isready")
        until("readyok")
        send(f"go depth {depth}")
        per = {}
        for line in until("bestmove"):
            m = re.match(r"info depth (\d+) .*?nodes (\d+)", line)
            if m and " pv " in line and "bound" not in line:
                per[int(m.group(1))] = int(m.group(2))
        res.append({"fen": fen, "nodes": per})
        print(i + 1, per.get(depth), file=sys.stderr, flush=True)
    send("quit")
    json.dump(res, open(out, "w"))


def table(files):
    data = [json.load(open(f)) for f in files]

    def gm(d, dep):
        v = [x["nodes"].get(str(dep)) for x in d]
        if not all(v):
            return None
        return math.exp(sum(map(math.log, v)) / len(v))

    print("| depth | " + " | ".join(f"{f} nodes | growth" for f in files) + " |")
    top = max(int(k) for d in data for x in d for k in x["nodes"])
    for dep in range(2, top + 1):
        cells = []
        for d in data:
            a, b = gm(d, dep), gm(d, dep - 1)
            cells.append(f"{a:,.0f}" if a else "-")
            cells.append(f"{a / b:.2f}" if a and b else "-")
        print(f"| {dep} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    if len(sys.argv) >= 5 and sys.argv[1] == "run":
        run(sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5:])
    elif len(sys.argv) >= 3 and sys.argv[1] == "table":
        table(sys.argv[2:])
    else:
        sys.exit(__doc__)
