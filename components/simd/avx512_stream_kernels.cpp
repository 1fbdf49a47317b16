// avx512_stream_kernels.cpp — the avx512 component's streaming tier
// (stream.h): its plain kernels' rules on 512-bit registers, stored with
// vmovntdq. Built with the flags of avx512_kernels.cpp.
#include "components/simd/stream.h"
#include "components/simd/stream_offers.h"

#if !defined(__AVX512F__) || defined(__FMA__)
#error "avx512_stream_kernels.cpp is built with the flags of avx512_kernels.cpp"
#endif

namespace opf::simd {
constinit const SlotTable avx512_stream_table = stream::table<64, avx512_table>();
} // namespace opf::simd
