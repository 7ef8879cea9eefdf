#!/usr/bin/env python3
"""pin.py — an independent implementation of the generator RNG scheme in docs/generators.md.
Prints the C tables pinned in test_gen.c (group `pinned`); rerun only when the scheme changes on
purpose, and say so in docs/generators.md."""
M = (1 << 64) - 1

def mix(z):
    z = (z + 0x9E3779B97F4A7C15) & M
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
    return z ^ (z >> 31)

def key(seed, stream): return mix(mix(seed) ^ stream)
def draw(k, a, b): return mix(mix(k ^ (a & M)) ^ (b & M))
def bounded(h, n): return (h * n) >> 64

def floyd(skey, row, lo, n, k):
    out = []
    for j in range(n - k, n):
        t = bounded(draw(skey, row, j), j + 1)
        out.append(lo + (j if lo + t in out else t))
    return sorted(out)

def value(vkey, mode, i, j, sym, distinct=16):
    if sym and i > j: i, j = j, i
    h = draw(vkey, i, j)
    if mode == "set":
        idx = bounded(h, distinct)
        v = ((idx >> 1) + 1) / 8
        return -v if idx & 1 else v
    return ((h >> 11) | 1) * 2.0 ** -52 - 1  # f64 random

def emit(name, entries):
    print(f"  /* {name} */")
    print("  {" + ", ".join(f"{{{i}, {j}, {v!r}}}" for i, j, v in entries) + "},")

# erdos_renyi:rows=3,cols=50,per_row=4,seed=9 (f64 random values)
s, v = key(9, 1), key(9, 2)
emit("erdos_renyi:rows=3,cols=50,per_row=4,seed=9",
     [(i, c, value(v, "random", i, c, False)) for i in range(3) for c in floyd(s, i, 0, 50, 4)])
# banded:rows=4,width=6,per_row=2,values=set,distinct=7 (seed 1)
s, v = key(1, 1), key(1, 2)
ent = []
for i in range(4):
    lo, hi = max(0, i - 3), min(3, i + 3)
    for c in floyd(s, i, lo, hi - lo + 1, min(2, hi - lo + 1)):
        ent.append((i, c, value(v, "set", i, c, False, 7)))
emit("banded:rows=4,width=6,per_row=2,values=set,distinct=7", ent)
# rmat:scale=3,per_row=1,seed=5 (f64 random values), duplicates merged
s, v = key(5, 1), key(5, 2)
T = [round(65536 * 0.57), round(65536 * (0.57 + 0.19)), round(65536 * (0.57 + 0.19 + 0.19))]
edges = set()
for e in range(8):
    r = c = 0
    for l in range(3):
        h = draw(s, e, l // 4)
        u = (h >> (48 - 16 * (l % 4))) & 0xFFFF
        q = sum(u >= t for t in T)
        r, c = r * 2 + (q >> 1), c * 2 + (q & 1)
    edges.add((r, c))
emit("rmat:scale=3,per_row=1,seed=5", [(i, j, value(v, "random", i, j, False)) for i, j in sorted(edges)])
# stencil2d:n=2,values=random,seed=4 (symmetric values)
v = key(4, 2)
ent = [(i, j, value(v, "random", i, j, True)) for i in range(4) for j in range(4)
       if abs(i % 2 - j % 2) + abs(i // 2 - j // 2) <= 1]
emit("stencil2d:n=2,values=random,seed=4", ent)
