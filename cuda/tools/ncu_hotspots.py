#!/usr/bin/env python3
"""ncu_hotspots.py -- the hot spots of an Nsight Compute source-page export.

    ncu -i r.ncu-rep --page source --csv --print-source sass > r_sass.csv
    python3 ncu_hotspots.py r_sass.csv [top]

Prints the rows (SASS instructions or CUDA lines) with the most warp-stall
samples, with every non-zero stall column, so that a run's answer to "which
instruction does the kernel wait on" fits in a short text file. Generic over
the column names, which change between ncu versions.
"""
import csv
import sys


def num(s):
    try:
        return float(str(s).replace(",", "").replace("%", ""))
    except ValueError:
        return None


def main():
    path = sys.argv[1]
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 40
    lines = open(path, errors="replace").read().splitlines()
    start = next((i for i, l in enumerate(lines) if '"Source"' in l or '"Address"' in l or
                  l.startswith("# Address") or '"# Address"' in l), None)
    if start is None:
        print("no header in", path)
        print("\n".join(lines[:20]))
        return
    rows = list(csv.reader(lines[start:]))
    head, body = rows[0], [r for r in rows[1:] if len(r) == len(rows[0])]
    key = next((i for i, h in enumerate(head) if "Sampling (All" in h), None)
    if key is None:
        key = next((i for i, h in enumerate(head) if "Sampling" in h or "stall" in h.lower()), None)
    print("file:", path, "rows:", len(body))
    print("columns:", " | ".join(head))
    if key is None:
        return
    total = sum(num(r[key]) or 0 for r in body)
    print("sort by:", head[key], "total", total)
    src = next((i for i, h in enumerate(head) if h == "Source"), 1)
    adr = next((i for i, h in enumerate(head) if "Address" in h or h == "#" or h == "Line"), 0)
    numeric = [i for i in range(len(head)) if i not in (src, adr)]
    body.sort(key=lambda r: -(num(r[key]) or 0))
    for r in body[:top]:
        v = num(r[key]) or 0
        if v <= 0:
            break
        extra = []
        for i in numeric:
            if i == key:
                continue
            x = num(r[i])
            if x:
                extra.append("%s=%g" % (head[i][:32], x))
        print("%6.2f%% %s  %s" % (100 * v / total if total else 0, r[adr], r[src].strip()[:110]))
        print("        " + "; ".join(extra)[:600])


if __name__ == "__main__":
    main()
