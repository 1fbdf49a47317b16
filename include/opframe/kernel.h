/*
 * kernel.h — the vocabulary that tools and components share: kernel types,
 * kernel signatures, the memory kind of host memory, the probed hardware and
 * the types of parameters. introspect.h and device.h need these words;
 * component.h adds what only a component needs (modules, offers, the
 * component descriptor), so an application never sees that ABI.
 */
#ifndef OPFRAME_KERNEL_H
#define OPFRAME_KERNEL_H

#include <stddef.h>
#include <opframe/opframe.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Kernel types: a storage layout plus arithmetic (OPF_INT and OPF_INT32_T
 * share OPF_KT_INT32). Values are part of the ABI: new types are appended,
 * and OPF_KT_COUNT is only the number this header knows. */
enum {
    OPF_KT_INT8, OPF_KT_UINT8, OPF_KT_INT16, OPF_KT_UINT16,
    OPF_KT_INT32, OPF_KT_UINT32, OPF_KT_INT64, OPF_KT_UINT64,
    OPF_KT_INT128,
    OPF_KT_FLOAT16, OPF_KT_BFLOAT16, OPF_KT_FLOAT, OPF_KT_DOUBLE,
    OPF_KT_LONG_DOUBLE, OPF_KT_FLOAT128,
    OPF_KT_C_FLOAT_COMPLEX, OPF_KT_C_DOUBLE_COMPLEX, OPF_KT_C_LONG_DOUBLE_COMPLEX,
    /* value-index pairs, laid out as the C struct {value; index;} */
    OPF_KT_FLOAT_INT, OPF_KT_DOUBLE_INT, OPF_KT_LONG_INT, OPF_KT_2INT,
    OPF_KT_SHORT_INT, OPF_KT_LONG_DOUBLE_INT, OPF_KT_2FLOAT, OPF_KT_2DOUBLE,
    /* OCP 8-bit floats (appended): E4M3 as PyTorch's float8_e4m3fn (no
     * infinities, one NaN per sign), E5M2 as float8_e5m2 (IEEE-like) */
    OPF_KT_FLOAT8_E4M3, OPF_KT_FLOAT8_E5M2,
    /* OCP MX v1.0 block formats (appended): one element is one block of 32
     * values sharing an E8M0 scale (opframe.h, "block-scaled formats") */
    OPF_KT_MXFP8_E4M3, OPF_KT_MXFP8_E5M2, OPF_KT_MXFP6_E3M2, OPF_KT_MXFP6_E2M3,
    OPF_KT_MXFP4_E2M1, OPF_KT_MXINT8,
    /* AMD's FNUZ 8-bit floats (appended): float8_e4m3fnuz, float8_e5m2fnuz
     * (bias 8 / 16, no infinities, no -0, 0x80 the one NaN) */
    OPF_KT_FLOAT8_E4M3FNUZ, OPF_KT_FLOAT8_E5M2FNUZ,
    /* NVIDIA's NVFP4 (appended): one element is one block of 16 E2M1 values
     * sharing an E4M3 scale (opframe.h, "block-scaled formats") */
    OPF_KT_NVFP4,
    OPF_KT_COUNT
};

/* Memory kinds: host memory is 0; device components register theirs at run
 * time under a name (opf_memory_kind_lookup in device.h finds it). */
#define OPF_MEM_HOST 0

/* Host kernels: inout[i] = in[i] op inout[i] / out[i] = in1[i] op in2[i],
 * i < n. They cannot fail.
 * One buffer may be two operands: in may be inout (inout[i] = inout[i] op
 * inout[i]); in1 may be in2, and out may be in1, in2 or both, each the very
 * same address. Buffers never overlap otherwise: opframe hands a kernel the
 * caller's pointers as they are, and a partial overlap is the caller's error
 * (opf_reduce_local(3)).
 * Reentrant: several threads run one kernel at once. op_base_threads cuts
 * one call into adjacent ranges of its buffers (each range starts where the
 * one before ends, a multiple of 64 elements from the call's start) and
 * runs them at the same time, and a program's threads call the same slot.
 * So a kernel keeps no mutable state outside its buffers (no scratch
 * buffer in static storage; a counter is updated atomically), and reads
 * and writes the n elements of its call and no byte beside them.
 * opframe_component(3) has the whole contract; opframe_check(1) --deep
 * checks it. */
typedef void opf_kernel2_fn(const void *in, void *inout, opf_count_t n);
typedef void opf_kernel3_fn(const void *in1, const void *in2, void *out, opf_count_t n);
/* n-ary host kernel: out[i] = in[0][i] op in[1][i] op ... op in[k-1][i]
 * (1 <= k <= OPF_REDUCE_N_MAX), with the op's n-ary definition (opframe.h,
 * opf_reduce_local_n); out may equal any in[j], and inputs may be one
 * buffer (PreMulSum's 2-buffer call with inbuf == inoutbuf gives the same
 * address as in[0], in[1] and out). `scalar` points to the PreMulSum scalar
 * (one element of the kernel type) for the premul forms, and is NULL
 * otherwise. Reentrant as the kernels above. They cannot fail. */
typedef void opf_kernel_n_fn(const void *const in[], int k, void *out, opf_count_t n, const void *scalar);
/* Device kernels, synchronous: done when they return. They return an OPF_*
 * code; on failure they say why with opf_component_set_error (component.h). */
typedef int opf_device_kernel2_fn(const void *in, void *inout, opf_count_t n);
typedef int opf_device_kernel3_fn(const void *in1, const void *in2, void *out, opf_count_t n);
/* Device kernels enqueued on a stream / queue of the component's API
 * (cudaStream_t, cl_command_queue, ...); they return an OPF_* code. */
typedef int opf_stream_kernel2_fn(const void *in, void *inout, opf_count_t n, void *stream);
typedef int opf_stream_kernel3_fn(const void *in1, const void *in2, void *out, opf_count_t n, void *stream);
/* n-ary device kernels (opf_kernel_n_fn's result, on device memory): `in`
 * is a host array of k device-side addresses; out may equal any in[j].
 * Synchronous, or enqueued on `stream`; they return an OPF_* code. */
typedef int opf_device_kernel_n_fn(const void *const in[], int k, void *out, opf_count_t n, const void *scalar);
typedef int opf_stream_kernel_n_fn(const void *const in[], int k, void *out, opf_count_t n, const void *scalar,
                                   void *stream);

/* ---- the hardware, probed once at init and handed to every component ---- */
enum {
    OPF_X86_SSE2 = 1u << 0, OPF_X86_SSE4_1 = 1u << 1, OPF_X86_AVX = 1u << 2,
    OPF_X86_AVX2 = 1u << 3, OPF_X86_FMA = 1u << 4, OPF_X86_F16C = 1u << 5,
    OPF_X86_AVX512F = 1u << 6, OPF_X86_AVX512BW = 1u << 7, OPF_X86_AVX512VL = 1u << 8,
    OPF_X86_AVX512DQ = 1u << 9, OPF_X86_AVX512_FP16 = 1u << 10, OPF_X86_AVX512_BF16 = 1u << 11
};
/* Arm (aarch64), as Linux reports them in getauxval(AT_HWCAP / AT_HWCAP2) */
enum {
    OPF_ARM_ASIMD = 1u << 0,     /* Advanced SIMD (NEON) */
    OPF_ARM_FPHP = 1u << 1,      /* scalar half-precision arithmetic (FEAT_FP16) */
    OPF_ARM_ASIMDHP = 1u << 2,   /* Advanced SIMD half-precision arithmetic (FEAT_FP16) */
    OPF_ARM_SVE = 1u << 3, OPF_ARM_SVE2 = 1u << 4,
    OPF_ARM_BF16 = 1u << 5,      /* BFloat16 conversions in Advanced SIMD (FEAT_BF16) */
    OPF_ARM_SVEBF16 = 1u << 6    /* ... and in SVE */
};
/* RISC-V (riscv64), as Linux reports them: V in getauxval(AT_HWCAP), the
 * Z* extensions by the riscv_hwprobe system call */
enum {
    OPF_RISCV_V = 1u << 0,         /* the vector extension, RVV 1.0 */
    OPF_RISCV_ZVFHMIN = 1u << 1,   /* vector float16 conversions */
    OPF_RISCV_ZVFH = 1u << 2,      /* vector float16 arithmetic */
    OPF_RISCV_ZVFBFMIN = 1u << 3,  /* vector bfloat16 conversions */
    OPF_RISCV_ZVFBFWMA = 1u << 4   /* vector bfloat16 widening multiply-add */
};

#define OPF_HW_MAX_DEVICES 16
typedef struct opf_hw_device {
    char name[64];      /* hwloc OS device name, e.g. "cuda0", "opencl0d0" */
    char kind[16];      /* "gpu", "opencl", "cuda", "coproc" */
    char model[96];
} opf_hw_device_t;

typedef struct opf_hw_info {
    size_t struct_size;          /* sizeof(opf_hw_info_t) of the framework */
    char cpu_model[96];
    /* ISA usable here: the CPU reports it (CPUID) AND the OS saves its
     * register state (XGETBV) */
    unsigned int x86_features;
    unsigned int x86_cpu_only;   /* reported by CPUID but not enabled by the OS */
    int cores, pus, numa_nodes;
    int64_t l1d_bytes, l2_bytes, l3_bytes;   /* per cache instance; 0 if unknown */
    int hwloc;                   /* 1 if the topology came from hwloc */
    int n_devices;
    opf_hw_device_t devices[OPF_HW_MAX_DEVICES];
    /* Appended (check struct_size before reading): the Arm ISA, 0 elsewhere */
    unsigned int arm_features;         /* OPF_ARM_* */
    unsigned int arm_sve_vector_bits;  /* this thread's SVE vector length (prctl); 0 without SVE */
    /* Appended (check struct_size before reading): the RISC-V ISA, 0 elsewhere */
    unsigned int riscv_features;       /* OPF_RISCV_* */
    unsigned int riscv_vlen_bits;      /* VLEN, the vector register width (CSR vlenb * 8); 0 without V */
    /* Appended (check struct_size before reading): how wide the core
     * executes a 512-bit operation: 512, or 256 where it runs it as two
     * 256-bit halves (AMD family 19h, Zen 4); 0 without AVX-512 */
    unsigned int x86_avx512_datapath_bits;
} opf_hw_info_t;

/* ---- parameter types (component.h declares, introspect.h describes) ------ */
enum {
    OPF_PARAM_BOOL, OPF_PARAM_INT, OPF_PARAM_SIZE, OPF_PARAM_DOUBLE,
    OPF_PARAM_STRING, OPF_PARAM_ENUM, OPF_PARAM_FLAGS
};
/* A component's parameter is read by its hooks at opf_init: a value set
 * later applies at the next opf_init, and reads back saying so. One its
 * kernels read at every call is declared OPF_PARAM_LIVE: a set applies at
 * once. (An application's own parameters are always live.) */
enum {
    OPF_PARAM_SETTABLE = 0, OPF_PARAM_READ_ONLY = 1, OPF_PARAM_LIVE = 2
};

#ifdef __cplusplus
}
#endif
#endif /* OPFRAME_KERNEL_H */
