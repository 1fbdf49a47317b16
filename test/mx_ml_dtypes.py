#!/usr/bin/env python3
"""mx_ml_dtypes.py - issue 35: opframe's MX block formats against an
independent implementation, ml_dtypes (PyPI), through ctypes.

ml_dtypes supplies the element formats (float8_e4m3fn, float8_e5m2,
float6_e3m2fn, float6_e2m3fn, float4_e2m1fn) and the E8M0 scale
(float8_e8m0fnu). This test checks, for each MX type:

  1. every element code decodes (block scale 1, beside the largest
     element, which keeps the scale; SUM with the all-zero block at the
     same scale, read back through ml_dtypes) to ml_dtypes' value of that
     code;
  2. random blocks at scales up to 6 binades apart (the exact sum of two
     elements is a float64; its cast to float32 before ml_dtypes' element
     cast rounds twice, which for a sum of two p-bit numbers and 24 >=
     2p + 1 bits is rounding once, Figueroa 1995): SUM and MAX quantized
     with the OCP MX v1.0 rule where ml_dtypes does the scale (E8M0 of
     2^shared_exp) and the element rounding (its cast, nearest even),
     values beyond the largest element clipped first.

Differences of rule, and why opframe's is the documented one:
  * ml_dtypes' casts to float8_e4m3fn / float8_e5m2 do not saturate (a value
    beyond the largest gives NaN / inf); OCP MX v1.0 section 6.3 saturates
    the elements of a quantized block, and so does opframe: the test clips
    to the largest finite value before casting.
  * ml_dtypes has no rule for the block's scale; torchao's MX reference
    offers several (floor, as OCP, and rounded-up variants that avoid
    saturating the largest element). opframe follows the OCP text: floor.
  * MXINT8's code -128 reads as -2 but opframe never writes it: results
    saturate at +-127/64, symmetric as the float formats' (the rule in
    opframe(7)); the test clips there too.
  * A zero result is +0 in opframe (the exact value has no sign);
    ml_dtypes keeps the sign of -0.0 inputs: the test compares values.

Exit 77 (skip) without ml_dtypes or numpy, or without the library.
"""
import ctypes
import os
import random
import sys

from opf_ctypes import handle_by_name, load

np, ml_dtypes, opf = load("mx_ml_dtypes")

# type and op ids (opframe.h: OPF_TYPEID_MXFP8_E4M3 follows OPF_TYPEID_FLOAT8_E5M2)
OPF_SUM, OPF_MAX = 3, 1
FORMATS = [  # name, type id offset, element bits, ml_dtypes type or None (int8), emax
    ("MXFP8_E4M3", 0, 8, ml_dtypes.float8_e4m3fn, 8),
    ("MXFP8_E5M2", 1, 8, ml_dtypes.float8_e5m2, 15),
    ("MXFP6_E3M2", 2, 6, getattr(ml_dtypes, "float6_e3m2fn", None), 4),
    ("MXFP6_E2M3", 3, 6, getattr(ml_dtypes, "float6_e2m3fn", None), 2),
    ("MXFP4_E2M1", 4, 4, getattr(ml_dtypes, "float4_e2m1fn", None), 2),
    ("MXINT8", 5, 8, "int8", 0),
]


def element_value(code, bits, dt):
    if dt == "int8":
        return float(np.int8(np.uint8(code))) / 64.0
    return float(np.array([code], dtype=np.uint8).view(dt)[0]) if bits == 8 else float(
        np.array([code], dtype=np.uint8).astype(np.uint8).view(dt)[0])


def encode(v, bits, dt, largest):
    v = max(-largest, min(largest, v))
    if dt == "int8":
        q = v * 64.0
        r = round(q)  # Python's round: nearest even on ties
        return int(np.uint8(np.int8(r)))
    return int(np.array([v], dtype=np.float32).astype(dt).view(np.uint8)[0])


def pack(scale, codes, bits):
    out = bytearray([scale])
    acc, nacc = 0, 0
    for c in codes:
        acc |= c << nacc
        nacc += bits
        while nacc >= 8:
            out.append(acc & 0xFF)
            acc >>= 8
            nacc -= 8
    return bytes(out)


def unpack(block, bits):
    acc = int.from_bytes(block[1:], "little")
    return block[0], [(acc >> (bits * i)) & ((1 << bits) - 1) for i in range(32)]


def reduce3(a, b, tid, op):
    n = len(a)
    out = ctypes.create_string_buffer(n)
    rc = opf.opf_reduce_local3(a, b, out, ctypes.c_int64(1), ctypes.c_void_p(tid), ctypes.c_void_p(op))
    assert rc == 0, rc
    return out.raw


def main():
    rng = random.Random(int(os.environ.get("MX_SEED", "35")))
    failures = checks = 0
    for name, _, bits, dt, emax in FORMATS:
        if dt is None:
            print("mx_ml_dtypes: %s: ml_dtypes lacks its element type, not checked" % name)
            continue
        tid = handle_by_name(opf.opf_type_name, name, "mx_ml_dtypes")
        ncodes = 1 << bits
        finite = [c for c in range(ncodes) if dt == "int8" or np.isfinite(element_value(c, bits, dt))]
        largest = max(element_value(c, bits, dt) for c in finite)  # MXINT8: 127/64, not 2
        # 1. decode: each code in a block with the format's largest positive element
        # (so that the OCP rule keeps the block's scale: alone, a code whose
        # value is above the largest element's mantissa in its binade, as
        # E4M3's 1.875 x 2^e, requantizes to a smaller scale and saturates),
        # summed with zeros
        top = max(finite, key=lambda c: element_value(c, bits, dt))
        for c in finite:
            blk = pack(127, [c, top] + [0] * 30, bits)
            out = reduce3(blk, pack(127, [0] * 32, bits), tid, OPF_SUM)
            s, codes = unpack(out, bits)
            got = element_value(codes[0], bits, dt) * 2.0 ** (s - 127)
            want = element_value(c, bits, dt)
            checks += 1
            if got != want:
                failures += 1
                print("FAIL %s decode code %#x: %r, ml_dtypes %r" % (name, c, got, want))
        # 2. random blocks at equal scales: SUM and MAX through the OCP rule with ml_dtypes' rounding
        for _ in range(300):
            s = rng.randrange(100, 150)
            d = rng.choice([0, 0, 0, rng.randrange(-6, 7)])   # b's scale against a's
            ca = [rng.choice(finite) for _ in range(32)]
            cb = [rng.choice(finite) for _ in range(32)]
            for op in (OPF_SUM, OPF_MAX):
                va = [element_value(c, bits, dt) for c in ca]
                vb = [element_value(c, bits, dt) * 2.0 ** d for c in cb]
                ex = [x + y if op == OPF_SUM else max(x, y) for x, y in zip(va, vb)]  # exact in float64
                amax = max(abs(v) for v in ex)
                if amax == 0:
                    x = -127 - (s - 127)
                else:
                    x = int(np.floor(np.log2(np.float64(amax)))) - emax
                shared = max(-127, min(127, x + s - 127))
                e8m0 = np.array([2.0 ** shared], dtype=np.float32).astype(ml_dtypes.float8_e8m0fnu)
                scale_byte = int(e8m0.view(np.uint8)[0])
                rel = shared - (s - 127)  # the element scale relative to the inputs'
                want_codes = [encode(v / 2.0 ** rel, bits, dt, largest) for v in ex]
                want_vals = [element_value(c, bits, dt) for c in want_codes]
                got_s, got_codes = unpack(reduce3(pack(s, ca, bits), pack(s + d, cb, bits), tid, op), bits)
                got_vals = [element_value(c, bits, dt) for c in got_codes]
                checks += 1
                if got_s != scale_byte or got_vals != want_vals:
                    failures += 1
                    if failures < 10:
                        print("FAIL %s op %d scales %d, %d: got scale %d %r, want %d %r" % (
                            name, op, s, s + d, got_s, got_vals, scale_byte, want_vals))
    print("mx_ml_dtypes: %d checks, %d failed" % (checks, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
