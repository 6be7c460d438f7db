#!/usr/bin/env bash
# The GPU checks of a release, on a machine with one NVIDIA GPU, Triton and torch but no network (the
# `device` machine): what benchmarks/RESULTS.md reports. Two phases, each within a 10-minute call.
#
#   bash benchmarks/gpu_checks.sh tests OUT   # six of flash-linear-attention's own tests on the original, default
#                                             # and compat trees; every fixture's original and migrated form
#   bash benchmarks/gpu_checks.sh speed OUT   # hand-migration bundles, the realistic cases, the kernel suite
#   bash benchmarks/gpu_checks.sh varlen OUT  # fla's variable-length tests on the original, default and compat
#                                             # trees; exit 1 if any test's outcome differs from the original's
#
# Needs, as ignored paths carried along: .whl/ (wheels of libcst, click, einops, ...), .real/trees/original
# (flash-linear-attention at 7e46dffc, from benchmarks/real_library/make_trees.py), .real/kernels_prev/ (the
# previous release's benchmarks/kernels/migrated*.py, renamed *_prev.py) and the .hm-bundle-* folders of
# benchmarks/hand_migrations/compare.py --bundle.
set -uo pipefail
cd "$(dirname "$0")/.."
phase=$1 out=$2
mkdir -p "$out"
python3 -m pip install -q --no-deps .whl/*.whl 2>&1 | grep -v "as the .root. user" | tail -1
python3 -m pip install -q --no-deps --no-build-isolation -e . 2>&1 | grep -v "as the .root. user" | tail -1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -c "import triton, torch; print('triton', triton.__version__, 'torch', torch.__version__)"
if [ "$phase" = tests ]; then
  # Six of fla's tests that cover what the migration changes (run_tests.py's default selection does not
  # finish within one call for three trees): 6 tests x 3 trees take 270-310 s on the H100 beside the fixtures,
  # 400 s for the whole phase.
  python3 benchmarks/real_library/run_tests.py .real/trees/original "$out/fla" --work /tmp/fla-trees \
    --trees original,default,compat -n 4 --timeout 420 -- \
    "tests/ops/test_based.py::test_based[B3-T111-H2-D64-torch.float16]" \
    "tests/modules/test_conv.py::test_conv[B2_T64_D128_W3_activationswish_has_biasTrue_has_residualTrue_torch.float32_triton]" \
    "tests/modules/test_conv.py::test_conv_varlen[N4_T1024_D200_W4_activationswish_has_biasFalse_has_residualTrue_torch.float32_triton]" \
    "tests/ops/test_oja.py::test_chunk_varlen[H4-D60-mask_p0-cu_seqlens[0, 96, 177]-torch.float16]" \
    "tests/ops/test_solve_tril.py::test_solve_tril_varlen[H4-D100-chunk_size64-cu_seqlens[0, 15, 100, 300, 1200, 2000]]" \
    "tests/ops/test_delta.py::test_chunk[B2-T100-H4-D60-scale0.1-False]" > "$out/fla.txt" 2>&1 &
  fla=$!
  python3 tests/gpu_fixtures.py -j 4 > "$out/gpu-fixtures.jsonl" 2> "$out/gpu-fixtures.err"
  tail -3 "$out/gpu-fixtures.jsonl"; tail -3 "$out/gpu-fixtures.err"
  wait "$fla"; tail -20 "$out/fla.txt"
elif [ "$phase" = varlen ]; then
  # Variable-length batches reach what the interpreter cannot show: negative chunk offsets from
  # chunk_indices, the unsigned bounds, odd head dims (60, 100, 256), compat's emulated block pointers.
  # path attention, KDA, gated delta rule, DPLR, solve_tril and the gate cumsum: 23 tests x 3 trees.
  # VARLEN_TREES, VARLEN_TIMEOUT and VARLEN_WORKERS (per tree) fit a run to what a device session can hold.
  python3 benchmarks/real_library/run_tests.py .real/trees/original "$out/fla-varlen" --work /tmp/fla-trees \
    --trees "${VARLEN_TREES:-original,default,compat}" -n "${VARLEN_WORKERS:-5}" --timeout "${VARLEN_TIMEOUT:-480}" -- \
    tests/ops/test_path_attn.py::test_parallel_varlen tests/ops/test_kda.py::test_chunk_varlen \
    "tests/ops/test_gdn.py::test_chunk_varlen[H4-HV4-D60-mask_p0-cu_seqlens[0, 15]-torch.float16]" \
    "tests/ops/test_gdn.py::test_chunk_varlen[H4-HV4-D100-mask_p0-cu_seqlens[0, 15, 100, 300, 1200, 2000]-torch.float16]" \
    "tests/ops/test_dplr_delta.py::test_chunk_varlen[H4-D64-mask_p0-gate_logit_normalizer1-safe_gateTrue-cu_seqlens[0, 256, 500, 1000]-chunk_size16-torch.float16]" \
    "tests/ops/test_dplr_delta.py::test_chunk_varlen[H4-D100-mask_p0-gate_logit_normalizer0.1-safe_gateFalse-cu_seqlens[0, 15, 100, 300, 1111, 1599, 2000]-chunk_size64-torch.float16]" \
    tests/ops/test_solve_tril.py::test_solve_tril_varlen tests/ops/test_gdn_kernels.py::test_gdn_gate_chunk_cumsum
elif [ "$phase" = speed ]; then
  for bundle in .hm-bundle-*; do
    extra=""; [ "$bundle" = .hm-bundle-facts ] && extra=--aligned-cases-only
    python3 benchmarks/hand_migrations/compare.py --verify-bundle "$bundle" --device cuda $extra 2>&1 | tail -20
  done
  python3 tests/realistic/run.py --device cuda --forms auto,strict,compat --allocator none -j 8 \
    --json "$out/realistic.json" 2>&1 | tail -4
  cp .real/kernels_prev/*.py benchmarks/kernels/
  python3 benchmarks/kernel_bench.py --migrated migrated migrated_prev migrated_pointer migrated_pointer_prev \
    --rounds 3 --json "$out/kernel-bench.json" > "$out/kernel-bench.txt" 2>&1
  tail -45 "$out/kernel-bench.txt"
fi
