"""The rule registry: one rule a module, each with its code, name, summary and documentation.

Codes TTD0xx are rewrites; TTD1xx are reasons a site is left untouched inside one function; TTD2xx are
reasons that involve other functions. The engine refers to rules only through this registry.
"""

from __future__ import annotations

from types import ModuleType

from . import (
    ttd001_descriptor,
    ttd002_advance,
    ttd003_access,
    ttd004_dtype_query,
    ttd005_hoist,
    ttd006_masked_pointers,
    ttd007_compat,
    ttd008_helper_parts,
    ttd101_unchecked_dimension,
    ttd102_inner_offset_alignment,
    ttd103_no_unit_stride,
    ttd104_volatile,
    ttd105_rank,
    ttd106_int64_offsets,
    ttd107_narrow_block,
    ttd108_unsupported_use,
    ttd109_ambiguous_value,
    ttd110_negative_store_offset,
    ttd111_store_row_width,
    ttd112_runtime_alignment,
    ttd113_min_triton,
    ttd201_crosses_function,
)

RULES: dict[str, ModuleType] = {
    module.CODE: module
    for module in (
        ttd001_descriptor, ttd002_advance, ttd003_access, ttd004_dtype_query, ttd005_hoist, ttd006_masked_pointers,
        ttd007_compat, ttd008_helper_parts,
        ttd101_unchecked_dimension, ttd102_inner_offset_alignment, ttd103_no_unit_stride, ttd104_volatile,
        ttd105_rank, ttd106_int64_offsets, ttd107_narrow_block, ttd108_unsupported_use, ttd109_ambiguous_value,
        ttd110_negative_store_offset, ttd111_store_row_width, ttd112_runtime_alignment, ttd113_min_triton,
        ttd201_crosses_function,
    )
}


def explain(code: str) -> str:
    rule = RULES[code.upper()]
    return rule.__doc__.strip()
