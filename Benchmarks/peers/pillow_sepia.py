#!/usr/bin/env python3
"""Pillow peer for scripts/bench-filter.

    pillow_sepia.py [--intensity A] [--quality Q] OUTDIR FILE...

For each FILE, in this one process: Image.open, convert('RGB', matrix) with the
W3C Filter Effects sepia(A) matrix (12-tuple, offsets 0), save as JPEG at
quality Q (default 90, Pillow's default 4:2:0, no optimize) into
OUTDIR/<name>.jpg.  bench-filter runs one such process per worker, each on its
round-robin share of the files.  Exit status 1 if any file failed.
"""
import os
import sys

from PIL import Image


def sepia_matrix(a):
    k = 1.0 - a
    return (
        0.393 + 0.607 * k, 0.769 - 0.769 * k, 0.189 - 0.189 * k, 0.0,
        0.349 - 0.349 * k, 0.686 + 0.314 * k, 0.168 - 0.168 * k, 0.0,
        0.272 - 0.272 * k, 0.534 - 0.534 * k, 0.131 + 0.869 * k, 0.0,
    )


def main(argv):
    intensity, quality = 0.8, 90
    args = list(argv)
    while args and args[0].startswith("--"):
        opt = args.pop(0)
        if opt == "--intensity" and args:
            intensity = float(args.pop(0))
        elif opt == "--quality" and args:
            quality = int(args.pop(0))
        else:
            args = []
            break
    if len(args) < 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    outdir, files = args[0], args[1:]
    os.makedirs(outdir, exist_ok=True)
    matrix = sepia_matrix(intensity)
    failed = 0
    for path in files:
        stem = os.path.splitext(os.path.basename(path))[0]
        try:
            with Image.open(path) as im:
                # Matrix conversion is defined from RGB (or L); a CMYK/grey JPEG is made RGB first.
                if im.mode != "RGB":
                    im = im.convert("RGB")
                im.convert("RGB", matrix).save(os.path.join(outdir, stem + ".jpg"), "JPEG", quality=quality)
        except Exception as error:  # report and go on, like the other tools
            print(f"pillow_sepia: {path}: {error}", file=sys.stderr)
            failed = 1
    return failed


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
