#!/bin/sh
# Run a command as if on an AVX2-only x86 CPU (an older Intel or an AMD without AVX-512), on a machine that
# has AVX-512 or AMX: each library that does the lessons' maths is limited to its AVX2 kernels.
#   sh tools/as_avx2_cpu.sh make test        # do the stored outputs pass there?
#   sh tools/as_avx2_cpu.sh make refresh     # record outputs as that CPU would (then `make test` natively)
# PyTorch's own kernels (ATEN_CPU_CAPABILITY), oneDNN's (bf16/fp16 matmuls, autocast), MKL's (fp32 matmuls),
# NumPy's (X86_V4 is its AVX-512 group) and OpenBLAS's (NumPy's matmuls). A setting can only lower what the CPU
# has, never raise it. See CONTRIBUTING.md, "Floats in stored outputs".
export ATEN_CPU_CAPABILITY=avx2 ONEDNN_MAX_CPU_ISA=AVX2 MKL_ENABLE_INSTRUCTIONS=AVX2 OPENBLAS_CORETYPE=Haswell
export NPY_DISABLE_CPU_FEATURES="X86_V4 AVX512_ICL AVX512_SPR"
exec "$@"
