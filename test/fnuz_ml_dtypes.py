#!/usr/bin/env python3
"""fnuz_ml_dtypes.py - opframe's FNUZ 8-bit floats (FLOAT8_E4M3FNUZ,
FLOAT8_E5M2FNUZ) against an implementation nobody here wrote: ml_dtypes'
float8_e4m3fnuz and float8_e5m2fnuz (PyPI), through ctypes.

For every pair of codes (256 x 256) and each op the type takes (SUM, PROD,
MAX, MIN, AVG; REPLACE copies), in the 2-buffer and the 3-buffer call, the
result must be the code ml_dtypes gives:

  SUM, PROD   (float32(a) op float32(b)) cast by ml_dtypes (PyTorch's
              (a.float() op b.float()).to(fp8): rounded once; overflow NaN)
  AVG         opframe(7)'s mean of k narrow values at k = 2: each widened,
              scaled by 2^-6, summed in float32, halved, scaled back, cast
  MAX, MIN    the larger / smaller value's code; NaN if either is NaN

The decoding of every code is ml_dtypes' too (the float32 values above).
There is one NaN code (0x80), so codes compare exactly.

Exit 77 (skip) without ml_dtypes or numpy, or without the library.
"""
import ctypes
import sys

from opf_ctypes import handle_by_name, load

np, ml_dtypes, opf = load("fnuz_ml_dtypes")

TYPES = [("FLOAT8_E4M3FNUZ", ml_dtypes.float8_e4m3fnuz), ("FLOAT8_E5M2FNUZ", ml_dtypes.float8_e5m2fnuz)]


def expected(op, a, b, dt):
    fa, fb = a.view(dt).astype(np.float32), b.view(dt).astype(np.float32)
    with np.errstate(all="ignore"):
        if op == "SUM":
            r = fa + fb
        elif op == "PROD":
            r = fa * fb
        elif op == "AVG":
            r = (fa * np.float32(2.0**-6) + fb * np.float32(2.0**-6)) / np.float32(2) * np.float32(2.0**6)
        elif op == "REPLACE":
            return a.copy()
        else:
            nan = np.isnan(fa) | np.isnan(fb)
            pick_a = fa > fb if op == "MAX" else fa < fb
            out = np.where(pick_a, a, b)
            return np.where(nan, np.uint8(0x80), out).astype(np.uint8)
    return r.astype(dt).view(np.uint8)


def main():
    codes = np.arange(256, dtype=np.uint8)
    a = np.repeat(codes, 256)   # every pair (a, b)
    b = np.tile(codes, 256)
    n = a.size
    checks = failures = 0
    for name, dt in TYPES:
        tid = handle_by_name(opf.opf_type_name, name, "fnuz_ml_dtypes")
        for op in ("SUM", "PROD", "MAX", "MIN", "AVG", "REPLACE"):
            oid = handle_by_name(opf.opf_op_name, op, "fnuz_ml_dtypes")
            want = expected(op, a, b, dt)
            out = np.zeros(n, dtype=np.uint8)
            rc3 = opf.opf_reduce_local3(a.ctypes.data_as(ctypes.c_void_p), b.ctypes.data_as(ctypes.c_void_p),
                                        out.ctypes.data_as(ctypes.c_void_p), ctypes.c_int64(n),
                                        ctypes.c_void_p(tid), ctypes.c_void_p(oid))
            inout = b.copy()
            rc2 = opf.opf_reduce_local(a.ctypes.data_as(ctypes.c_void_p), inout.ctypes.data_as(ctypes.c_void_p),
                                       ctypes.c_int64(n), ctypes.c_void_p(tid), ctypes.c_void_p(oid))
            for form, rc, got in (("3-buffer", rc3, out), ("2-buffer", rc2, inout)):
                checks += 1
                bad = np.nonzero(got != want)[0]
                if rc != 0 or bad.size:
                    failures += 1
                    print("FAIL %s %s %s: rc %d, %d of %d pairs differ" % (name, op, form, rc, bad.size, n))
                    for i in bad[:5]:
                        print("  a=0x%02x (%r) b=0x%02x (%r): opframe 0x%02x, ml_dtypes 0x%02x" % (
                            a[i], float(a[i:i + 1].view(dt)[0]), b[i], float(b[i:i + 1].view(dt)[0]), got[i], want[i]))
            print("%s %s: every pair, 2- and 3-buffer: %s" % (name, op, "ok" if rc3 == rc2 == 0 and
                  not np.any(out != want) and not np.any(inout != want) else "FAILED"))
    print("fnuz_ml_dtypes: %d checks (%d operand pairs each), %d failed" % (checks, n, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
