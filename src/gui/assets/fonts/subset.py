#!/usr/bin/env python3
"""Cuts chuhe-cjk.woff, the font `chuhe gui` draws Chinese with, from Noto
Serif CJK SC Bold: only the characters of the pieces, the river and Chinese
move notation, so the board looks right on a machine with no CJK fonts and
the binary grows by a few tens of KB. Run once; the output is committed.

    apt-get install fonts-noto-cjk && pip install fonttools
    python3 src/gui/assets/fonts/subset.py
"""
import os
import sys

from fontTools import subset
from fontTools.ttLib import TTCollection

SOURCE = "/usr/share/fonts/opentype/noto/NotoSerifCJK-Bold.ttc"
# Pieces (traditional forms for the board, simplified for notation), the
# river, numerals and the words of Chinese notation.
TEXT = (
    "帥仕相傌俥炮兵將士象馬車砲卒"
    "帅将马车包"
    "楚河汉界漢"
    "一二三四五六七八九１２３４５６７８９"
    "进退平前中后進後"
    "红黑先胜负和"
)

here = os.path.dirname(os.path.abspath(__file__))
collection = TTCollection(SOURCE)
# The collection holds one face per region; the simplified Chinese one.
font = next(f for f in collection.fonts if "SC" in f["name"].getDebugName(1))
options = subset.Options()
options.flavor = "woff"
options.hinting = False
options.desubroutinize = True
options.layout_features = []
options.name_IDs = [0, 1, 2, 3, 4, 5, 6, 13, 14]  # keep the copyright and licence
subsetter = subset.Subsetter(options)
subsetter.populate(text=TEXT)
subsetter.subset(font)
out = os.path.join(here, "chuhe-cjk.woff")
font.flavor = "woff"
font.save(out)
print(f"{out}: {os.path.getsize(out)} bytes, {len(set(TEXT))} characters", file=sys.stderr)
