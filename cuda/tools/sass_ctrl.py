#!/usr/bin/env python3
"""sass_ctrl.py -- scoreboard use of a kernel, beside ncu's stall samples.

    python3 sass_ctrl.py kernels.cubin NAME_PART r_sass.csv > r_ctrl.txt

kernels.cubin: the same nvcc build as the profiled one (nvcc -cubin with
the build's flags; the instruction count must match the ncu listing).
NAME_PART: a unique part of the kernel's mangled name. r_sass.csv: ncu
--page source --csv --print-source sass. Prints per instruction: stall
samples, executions, the variable-latency scoreboard it sets (W), the one
its operands are read under (R), the scoreboards it waits for, its stall
count, and the SASS. This is how v5 (PERF_NOTES.md) saw that every global
load of a loop shared one scoreboard. Control bits of sm_70+ (128-bit
instructions): stall 105-108, yield 109, write 110-112, read 113-115, wait
mask 116-121.
"""
import csv
import struct
import sys


def sections(path):
    d = open(path, 'rb').read()
    shoff = struct.unpack_from('<Q', d, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', d, 0x3a)
    hdr = [struct.unpack_from('<IIQQQQIIQQ', d, shoff + i * shentsize) for i in range(shnum)]
    so = hdr[shstrndx][4]
    out = {}
    for h in hdr:
        n = d[so + h[0]:d.index(b'\0', so + h[0])].decode()
        out[n] = d[h[4]:h[4] + h[5]]
    return out


def ctrl(code):
    res = []
    for i in range(0, len(code), 16):
        hi = int.from_bytes(code[i + 8:i + 16], 'little')
        res.append(dict(stall=(hi >> 41) & 15, wb=(hi >> 46) & 7, rb=(hi >> 49) & 7, wait=(hi >> 52) & 63))
    return res


def fmt(c):
    w = ''.join(str(b) for b in range(6) if c['wait'] >> b & 1)
    return 'W%s R%s wait[%-6s] s%-2d' % (c['wb'] if c['wb'] != 7 else '-', c['rb'] if c['rb'] != 7 else '-',
                                        w, c['stall'])


def main():
    cub, part, csvf = sys.argv[1:4]
    secs = sections(cub)
    keys = [k for k in secs if k.startswith('.text.') and part in k]
    if len(keys) != 1:
        sys.exit('%d kernels match %s' % (len(keys), part))
    cc = ctrl(secs[keys[0]])
    lines = open(csvf, errors='replace').read().splitlines()
    st = next(i for i, l in enumerate(lines) if l.startswith('"Address"'))
    rows = list(csv.reader(lines[st:]))
    head, body = rows[0], rows[1:]
    if len(body) != len(cc):
        sys.exit('ncu lists %d instructions, the cubin has %d: not the same build' % (len(body), len(cc)))
    si = head.index('Warp Stall Sampling (All Samples)')
    ie = head.index('Instructions Executed')
    for i, r in enumerate(body):
        print('%5d %6s %8s %s %s' % (i, r[si], r[ie], fmt(cc[i]), r[1][:90]))


if __name__ == '__main__':
    main()
