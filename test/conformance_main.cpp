// conformance_main.cpp — test/conformance's main: the run of conformance.cpp
// (compiled once, into test/engine/libconformance.a, and linked by the test
// and by the installed tool opframe_check).
#include "test/conformance.h"

int main(int argc, char** argv)
{
    return opf_conformance_main(argc, argv);
}
