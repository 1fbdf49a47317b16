// avx2_stream_kernels.cpp — the avx2 component's streaming tier (stream.h):
// its plain kernels' rules on 256-bit registers, stored with vmovntdq.
// Built with the flags of avx2_kernels.cpp.
#include "components/simd/stream.h"
#include "components/simd/stream_offers.h"

#if !defined(__AVX2__) || defined(__FMA__)
#error "avx2_stream_kernels.cpp is built with the flags of avx2_kernels.cpp"
#endif

namespace opf::simd {
constinit const SlotTable avx2_stream_table = stream::table<32, avx2_table>();
} // namespace opf::simd
