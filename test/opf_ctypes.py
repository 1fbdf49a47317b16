"""opf_ctypes.py - what the ml_dtypes checks (mx_ml_dtypes.py,
fnuz_ml_dtypes.py, nvfp4_ml_dtypes.py) share: numpy and ml_dtypes, and libopframe through
ctypes ($OPF_LIB, else the build's .libs), or exit 77 (skip) saying which
is missing."""
import ctypes
import os
import sys


def load(check):
    """(numpy, ml_dtypes, the library) for the check named `check`."""
    try:
        import numpy
        import ml_dtypes
    except ImportError:
        print("%s: SKIP (numpy / ml_dtypes not installed)" % check)
        sys.exit(77)
    here = os.path.dirname(os.path.abspath(__file__))
    lib = os.environ.get("OPF_LIB", os.path.join(here, "..", ".libs", "libopframe.so"))
    try:
        opf = ctypes.CDLL(lib)
    except OSError as e:
        print("%s: SKIP (%s)" % (check, e))
        sys.exit(77)
    opf.opf_type_name.restype = ctypes.c_char_p
    opf.opf_op_name.restype = ctypes.c_char_p
    return numpy, ml_dtypes, opf


def handle_by_name(describe, name, check):
    """The handle (a predefined id) whose name describe() gives as `name`:
    describe is opf_type_name or opf_op_name."""
    for i in range(1, 200):
        n = describe(ctypes.c_void_p(i))
        if n is not None and n.decode() == name:
            return i
    raise SystemExit("%s: no handle named %s" % (check, name))
