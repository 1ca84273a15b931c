#!/usr/bin/env python3
"""Draws a labelled horizontal bar chart as a PNG, with Pillow's ImageDraw only.

    python3 Benchmarks/plot_bars.py DATA.json OUT.png

DATA.json, written by scripts/bench-pipeline and scripts/bench-filter --plot:

    {"title": "...", "subtitle": "...", "unit": "images/s", "note": "higher is better",
     "groups": [{"label": "100 entries",
                 "bars": [{"label": "Darkroom end to end", "value": 15.2, "text": "15.2 (6.6 s)"}, ...]}]}

One block of bars per group, on one scale starting at 0 (or one scale per group with
"scale": "group", e.g. for groups of different sizes); a bar's "text" (default: its value)
is printed after it. Bars with the same label have the same colour in every group;
labels starting with "Darkroom" are drawn in the dark sepia tone, the others in greys and blues.
"""

import json
import os
import sys

from PIL import Image, ImageDraw, ImageFont

PALETTE = ["#5b7fa6", "#8c8c8c", "#a6c0d9", "#c4a484", "#6b8e6b", "#b5b5b5"]
DARKROOM = "#7a4a1e"
W, MARGIN, BAR_H, GAP, GROUP_GAP = 1000, 28, 26, 8, 22


def font(size, bold=False):
    for path in (f"/usr/share/fonts/truetype/dejavu/DejaVuSans{'-Bold' if bold else ''}.ttf",
                 "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf"):
        if os.path.exists(path):
            return ImageFont.truetype(path, size)
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1
        return ImageFont.load_default()


def text_w(draw, text, f):
    left, _, right, _ = draw.textbbox((0, 0), text, font=f)
    return right - left


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.split("\n\n")[1])
    data = json.load(open(sys.argv[1]))
    groups = [g for g in data["groups"] if g.get("bars")]
    if not groups:
        sys.exit("plot_bars: no bars to draw")
    f_title, f_sub, f_label, f_group = font(22, True), font(14), font(15), font(16, True)

    probe = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    width = max(W, text_w(probe, data.get("title", ""), f_title) + 2 * MARGIN,
                text_w(probe, data.get("subtitle", ""), f_sub) + 2 * MARGIN)
    label_w = max(text_w(probe, b["label"], f_label) for g in groups for b in g["bars"]) + 14
    value_w = max(text_w(probe, b.get("text", f"{b['value']:g}"), f_label) for g in groups for b in g["bars"]) + 14
    top = MARGIN + 34 + (22 if data.get("subtitle") else 0) + 10
    height = top + sum(28 + len(g["bars"]) * (BAR_H + GAP) + GROUP_GAP for g in groups) + 40
    img = Image.new("RGB", (width, height), "white")
    d = ImageDraw.Draw(img)

    d.text((MARGIN, MARGIN), data.get("title", ""), fill="black", font=f_title)
    if data.get("subtitle"):
        d.text((MARGIN, MARGIN + 34), data["subtitle"], fill="#444444", font=f_sub)

    x0 = MARGIN + label_w
    span = width - MARGIN - value_w - x0
    vmax_all = max(b["value"] for g in groups for b in g["bars"]) or 1.0
    colours, y = {}, top
    for g in groups:
        vmax = (max(b["value"] for b in g["bars"]) or 1.0) if data.get("scale") == "group" else vmax_all
        d.text((MARGIN, y), g["label"], fill="black", font=f_group)
        y += 28
        for b in g["bars"]:
            label = b["label"]
            if label not in colours:
                colours[label] = DARKROOM if label.startswith("Darkroom") else PALETTE[len([c for c in colours.values() if c != DARKROOM]) % len(PALETTE)]
            length = max(1, round(span * b["value"] / vmax))
            d.text((x0 - 8 - text_w(d, label, f_label), y + 4), label, fill="black", font=f_label)
            d.rectangle([x0, y, x0 + length, y + BAR_H], fill=colours[label])
            d.text((x0 + length + 6, y + 4), b.get("text", f"{b['value']:g}"), fill="black", font=f_label)
            y += BAR_H + GAP
        y += GROUP_GAP
    d.line([x0, top + 24, x0, y - GROUP_GAP], fill="#333333", width=1)
    foot = f"{data.get('unit', '')}" + (f", {data['note']}" if data.get("note") else "") + \
        (" (each group on its own scale)" if data.get("scale") == "group" else "")
    d.text((x0, y), foot, fill="#444444", font=f_sub)
    img.save(sys.argv[2], optimize=True)


if __name__ == "__main__":
    main()
