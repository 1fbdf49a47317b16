// conformance.h — the conformance run's entry point (test/conformance.cpp):
// main of test/conformance (conformance_main.cpp) and the run behind the
// installed tool opframe_check's own options (tools/opframe_check.cpp).
#pragma once

// Runs the conformance run on argv (conformance --help); returns the exit
// status: 0 passed, 1 failed, 2 a bad option, 77 skipped.
int opf_conformance_main(int argc, char** argv);
