#!/usr/bin/env python3
"""nvfp4_ml_dtypes.py - opframe's NVFP4 blocks against an implementation
nobody here wrote: ml_dtypes' float4_e2m1fn (the elements) and
float8_e4m3fn (the scale) casts (PyPI), through ctypes.

A block is 9 bytes: an E4M3 scale, then 16 E2M1 codes, two a byte, the
even element in the low nibble. Every input is decoded by ml_dtypes (each
element's value times the scale's), reduced exactly in Python fractions
(SUM, AVG: the sum over the k inputs, divided by k; MAX, MIN: the largest,
the smallest value of each element), and quantized once by opframe(7)'s
rule with ml_dtypes doing both roundings:

  scale     float8_e4m3fn(amax / 6) after clipping to 448; where amax > 0
            and that is 0, the smallest subnormal (code 0x01)
  elements  float4_e2m1fn(value / scale) after clipping to +-6; a zero is +0
  NaN       a NaN scale (0x7F, 0xFF) in any input: scale 0x7F, elements 0

Each cast is from a float64 of the exact fraction: the fraction is never
within 2^-29 (relative) of a rounding boundary of either format unless it
is on it, so the float64 rounds to the same side and the cast rounds once.

Checked: every scale code with every element code (256 blocks, SUM with a
zero block); 3,000 random pairs for each of SUM, AVG, MAX and MIN in the
3-buffer and the 2-buffer call; 1,500 random sets of k = 3..64 inputs for
each op through opf_reduce_local_n, in both rounding modes; all of it
again with the FPU rounding upward (fesetround: the rule is integer
arithmetic, so a kernel that rounds through the FPU's mode is wrong there,
as one did, 6,336 checks). Operands are
adversarial: subnormal and largest scales, scales of either sign, blocks
at the saturation edge, sums that cancel, ties of amax / 6 and of the
elements, the NaN scale.

Exit 77 (skip) without ml_dtypes or numpy, or without the library.
"""
import ctypes
import os
import platform
import random
import sys
from fractions import Fraction

from opf_ctypes import handle_by_name, load

np, ml_dtypes, opf = load("nvfp4_ml_dtypes")

BLOCK = 9
NAN_BLOCK = bytes([0x7F]) + bytes(8)


E2M1 = [Fraction(float(v)) for v in np.arange(16, dtype=np.uint8).view(ml_dtypes.float4_e2m1fn).astype(np.float64)]
E4M3 = [float(v) for v in np.arange(256, dtype=np.uint8).view(ml_dtypes.float8_e4m3fn).astype(np.float64)]


def scale_is_nan(s):
    return E4M3[s] != E4M3[s]


def cast_code(x, dt):
    return int(np.array([x], dtype=np.float64).astype(dt).view(np.uint8)[0])


def decode(block):
    s = block[0]
    if scale_is_nan(s):
        return None
    scale = Fraction(E4M3[s])
    return [E2M1[(block[1 + i // 2] >> (4 * (i % 2))) & 0xF] * scale for i in range(16)]


def quantize(values):
    amax = max(abs(v) for v in values)
    s = cast_code(float(min(amax / 6, Fraction(448))), ml_dtypes.float8_e4m3fn)
    if s == 0 and amax > 0:
        s = 1
    scale = Fraction(E4M3[s])
    codes = []
    for v in values:
        c = 0
        if scale != 0:
            t = max(Fraction(-6), min(Fraction(6), v / scale))
            c = cast_code(float(t), ml_dtypes.float4_e2m1fn)
            if E2M1[c] == 0:
                c = 0   # +0 (ml_dtypes keeps the sign of a -0.0)
        codes.append(c)
    return bytes([s] + [codes[2 * j] | codes[2 * j + 1] << 4 for j in range(8)])


def expected(op, blocks):
    decoded = [decode(b) for b in blocks]
    if any(d is None for d in decoded):
        return NAN_BLOCK
    if op in ("SUM", "AVG"):
        r = [sum(d[i] for d in decoded) for i in range(16)]
        if op == "AVG":
            r = [v / len(blocks) for v in r]
    else:
        pick = max if op == "MAX" else min
        r = [pick(d[i] for d in decoded) for i in range(16)]
    return quantize(r)


def pack(scale, codes):
    return bytes([scale] + [codes[2 * j] | codes[2 * j + 1] << 4 for j in range(8)])


def random_block(rng, scale=None):
    kind = rng.randrange(10)
    if scale is None:
        scale = rng.choice([
            rng.randrange(0x30, 0x41),   # near 1
            rng.randrange(0x00, 0x08),   # subnormal scales
            rng.randrange(0x76, 0x7F),   # the largest
            rng.randrange(0x00, 0x7F),   # any finite
        ])
        if rng.randrange(12) == 0:
            scale |= 0x80                # a negative scale: the values negated
    if kind == 0:
        codes = [0] * 16                                       # a zero block
    elif kind == 1:
        codes = [rng.choice([7, 15]) for _ in range(16)]       # the saturation edge: +-6
    elif kind == 2:
        codes = [rng.choice([7, 15]) if i == 3 else rng.randrange(3) for i in range(16)]   # one huge, the rest tiny
    else:
        codes = [rng.randrange(16) for _ in range(16)]
    return pack(scale, codes)


def operands(rng, k):
    first = random_block(rng)
    blocks = [first]
    for _ in range(k - 1):
        how = rng.randrange(8)
        if how == 0:
            blocks.append(first)                                             # x op x
        elif how == 1:                                                        # -x: SUM cancels
            blocks.append(bytes([first[0]] + [b ^ 0x88 for b in first[1:]]))
        elif how == 2:                                                        # a neighbouring scale: ties
            blocks.append(random_block(rng, (first[0] & 0x80) | max(0, min(0x7E, (first[0] & 0x7F) + rng.randrange(-2, 3)))))
        else:
            blocks.append(random_block(rng))
    if rng.randrange(40) == 0:
        j = rng.randrange(k)
        blocks[j] = bytes([rng.choice([0x7F, 0xFF])]) + blocks[j][1:]       # the NaN scale
    return blocks


# fesetround's FE_UPWARD where this test knows it
FE_UPWARD = {"x86_64": 0x800, "aarch64": 0x400000}.get(platform.machine())


def main():
    libm = ctypes.CDLL("libm.so.6")
    total_checks = total_failures = 0
    for upward in (False, True):
        if upward and FE_UPWARD is None:
            print("nvfp4_ml_dtypes: rounding upward not checked (FE_UPWARD unknown on %s)" % platform.machine())
            break
        libm.fesetround(FE_UPWARD if upward else 0)
        checks, failures = run(upward)
        libm.fesetround(0)
        total_checks += checks
        total_failures += failures
    print("nvfp4_ml_dtypes: %d checks, %d failed" % (total_checks, total_failures))
    return 1 if total_failures else 0


def run(upward):
    rng = random.Random(int(os.environ.get("NVFP4_SEED", "46")))
    mode_name = " (FPU rounding upward)" if upward else ""
    tid = handle_by_name(opf.opf_type_name, "NVFP4", "nvfp4_ml_dtypes")
    ops = {name: handle_by_name(opf.opf_op_name, name, "nvfp4_ml_dtypes") for name in ("SUM", "AVG", "MAX", "MIN")}
    vp, i64 = ctypes.c_void_p, ctypes.c_int64
    failures = checks = 0

    def compare(what, inputs, got, want):
        nonlocal failures, checks
        checks += 1
        if got != want:
            failures += 1
            if failures <= 10:
                print("FAIL %s%s: inputs %s: got %s, ml_dtypes' rule %s" % (
                    what, mode_name, " ".join(b.hex() for b in inputs), got.hex(), want.hex()))

    # 1. every scale code with every element code, SUM with a zero block
    all_codes = list(range(16))
    sets = [[pack(s, all_codes), pack(0, [0] * 16)] for s in range(256)]
    # 2. random pairs, 3. random k-input sets
    for op in ops:
        sets_op = sets if op == "SUM" else []
        pairs = sets_op + [operands(rng, 2) for _ in range(3000)]
        n = len(pairs)
        a = b"".join(p[0] for p in pairs)
        b = b"".join(p[1] for p in pairs)
        want = [expected(op, p) for p in pairs]
        out = ctypes.create_string_buffer(n * BLOCK)
        rc = opf.opf_reduce_local3(a, b, out, i64(n), vp(tid), vp(ops[op]))
        inout = ctypes.create_string_buffer(b, n * BLOCK)
        rc2 = opf.opf_reduce_local(a, inout, i64(n), vp(tid), vp(ops[op]))
        if rc or rc2:
            print("FAIL %s: opf_reduce_local3 %d, opf_reduce_local %d" % (op, rc, rc2))
            return checks, failures + 1
        for i in range(n):
            compare(op + " 3-buffer", pairs[i], out.raw[i * BLOCK:(i + 1) * BLOCK], want[i])
            compare(op + " 2-buffer", pairs[i], inout.raw[i * BLOCK:(i + 1) * BLOCK], want[i])
        # k inputs, one call per set of the same k: column j of every set is source j
        for k in (3, 4, 5, 8, 16, 64):
            groups = [operands(rng, k) for _ in range(250 if k < 64 else 60)]
            srcs = [b"".join(g[j] for g in groups) for j in range(k)]
            arr = (ctypes.c_char_p * k)(*srcs)
            want = [expected(op, g) for g in groups]
            for mode in (0, 1):
                dst = ctypes.create_string_buffer(len(groups) * BLOCK)
                rc = opf.opf_reduce_local_n_mode(arr, k, dst, i64(len(groups)), vp(tid), vp(ops[op]), mode)
                if rc:
                    print("FAIL %s k=%d: opf_reduce_local_n_mode %d" % (op, k, rc))
                    return checks, failures + 1
                for i, g in enumerate(groups):
                    compare("%s n-ary k=%d mode %d" % (op, k, mode), g, dst.raw[i * BLOCK:(i + 1) * BLOCK], want[i])
    return checks, failures


if __name__ == "__main__":
    sys.exit(main())
