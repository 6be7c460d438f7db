"""The host code that migrated kernels call at launch (not a rule: the registry lists only `ttdNNN_*` modules).

`descriptor_fits` decides a launch guard (TTD009); `stated_facts` hooks a kernel whose descriptors rely on
facts the user stated (TTD010). Both give the launching thread the allocator that device-side descriptors
need on NVIDIA sm_90+ (per thread from Triton 3.5; autograd runs backward on threads of its own), so the
migrated code needs nothing from its user.

Where it lives: a module inside a package imports it from `_triton_launch.py`, which `migrate --write`
writes once, next to the package's outermost `__init__.py` (`module_source`); a module outside any package
(a script, a member of a namespace package, a file a test loads by path: no import of a sibling is sure to
work there) gets the functions it calls pasted in, with private names (`pasted`). Every template fits 79
columns (PEP 8's, the narrowest any project asks for), so that it fits any project's line length.
"""

from __future__ import annotations

import re

MODULE = "_triton_launch"
ENVIRONMENT = "TRITON_MIGRATE_CHECK_FACTS"  # set (not "0"): stated facts are checked at every launch
MARK = "Written by triton-migrate"  # in every docstring: a later run recognises what an earlier one wrote
HEADER = '''"""Launch-time support for the tensor descriptors of this package's kernels.

Written by triton-migrate (`migrate --write`), once per package, with the
functions that its migrated modules import. Regenerate it rather than edit it.
"""
'''

# Each function's source; `{name}` is how the module names a function of this table, `{triton}` triton.
_SOURCES = {
    "descriptor_fits": '''
def {descriptor_fits}(tensor, width, *multiples, unit_stride=1):
    """Whether a tensor descriptor over `tensor` is legal at this launch.

    Written by triton-migrate (TTD009). Its data 16-byte aligned, `width`
    elements at least 16 bytes, each of `multiples` (strides and offsets, in
    elements) a multiple of 16 bytes, a unit last stride. If so, the
    launching thread also gets an allocator for descriptors.
    """
    size = tensor.element_size() if hasattr(tensor, "data_ptr") else 0
    aligned = tensor.data_ptr() % 16 == 0 if size else False
    fits = aligned and str(tensor.dtype) != "torch.bool" and width * size >= 16
    if not fits or unit_stride != 1 or any(m * size % 16 for m in multiples):
        return False
    {ensure_allocator}()
    return True
''',
    "stated_facts": '''
def {stated_facts}(*facts):
    """Hook a `@triton.jit` kernel whose descriptors rely on stated facts.

    Written by triton-migrate (TTD010). `facts`: `(argument, fact,
    *expressions)` each. Every launch gives its thread an allocator for
    descriptors; with {environment}=1 it first checks each
    fact, and raises ValueError (naming the kernel, argument and fact) where
    one is false.
    """

    def hooked(kernel):
        def before_launch(*args, **kwargs):
            from os import environ

            if environ.get("{environment}", "0") != "0":
                {check_facts}(kernel, facts, args, kwargs)
            {ensure_allocator}()

        if hasattr(kernel, "add_pre_run_hook"):  # interpreted: Triton 3.6+
            kernel.add_pre_run_hook(before_launch)
        return kernel

    return hooked
''',
    "check_facts": '''
def {check_facts}(kernel, facts, args, kwargs):
    """Raise ValueError for the first of `facts` that this launch breaks.

    Written by triton-migrate (TTD010). `expressions`: the kernel's own
    arithmetic on its arguments (strides, offsets, row widths, in elements).
    """
    import inspect

    function = getattr(kernel, "fn", kernel)
    signature = inspect.signature(function)
    named = {{k: v for k, v in kwargs.items() if k in signature.parameters}}
    launch = signature.bind_partial(*args, **named)
    launch.apply_defaults()
    values = dict(launch.arguments)
    for name, fact, *expressions in facts:
        tensor = values[name]
        if not hasattr(tensor, "data_ptr"):  # None, where the kernel takes one
            continue
        size = tensor.element_size()
        if str(tensor.dtype) == "torch.bool":
            raise ValueError(f"{{function.__name__}}: `{{name}}` holds bool data, "
                             "which no tensor descriptor takes")
        wrong = []
        if fact == "aligned" and tensor.data_ptr() % 16:
            wrong.append(f"its data starts at {{tensor.data_ptr():#x}}")
        for expression in expressions:
            value = eval(expression, {{}}, values)  # the kernel's arithmetic
            if fact == "contiguous" and value != 1:
                wrong.append(f"`{{expression}}` is {{value}}, not 1")
            elif fact != "contiguous" and value * size % 16:
                wrong.append(f"`{{expression}}` is {{value * size}} bytes")
        if wrong:
            raise ValueError(
                f"{{function.__name__}}: `{{name}}` is stated `{{fact}}` to "
                f"triton-migrate, but {{'; '.join(wrong)}}"
                + ("" if fact == "contiguous" else ", not a multiple of 16")
            )
''',
    "ensure_allocator": '''
def {ensure_allocator}():
    """Give this thread an allocator for device-side tensor descriptors.

    Written by triton-migrate. NVIDIA sm_90+ needs one in every launching
    thread (per thread from Triton 3.5; autograd runs backward on threads of
    its own); a thread that has one, a user's, keeps it.
    """
    from triton.runtime import _allocation

    current = _allocation._allocator
    held = current.get() if hasattr(current, "get") else current
    if isinstance(held, _allocation.NullAllocator):
        import torch

        def allocate(size, alignment, stream):
            return torch.empty(size, dtype=torch.int8, device="cuda")

        {triton}.set_allocator(allocate)
''',
}
FUNCTIONS = tuple(_SOURCES)
CALLED = ("descriptor_fits", "stated_facts")  # what migrated kernels call; the others serve them
ALLOCATOR = "ensure_allocator"  # the one that needs triton
_NEEDS = {"descriptor_fits": ("ensure_allocator",), "stated_facts": ("check_facts", "ensure_allocator")}


def module_source(called: list[str] = CALLED) -> str:
    """`_triton_launch.py` with the functions of `called` (of CALLED) and those they call, public but the
    check that only `stated_facts` calls: no more than the package's kernels use."""
    names = {name: name for name in _SOURCES} | {"check_facts": "_check_facts"}
    functions = "\n".join(_filled(_SOURCES[name], names, "triton") for name in needed(list(called)))
    return f"{HEADER}\nimport triton\n\n{functions}"


def defined(source: str) -> set[str]:
    """The functions of CALLED that a module an earlier run wrote (`source`) defines."""
    return set(re.findall(r"^def (\w+)\(", source, flags=re.M)) & set(CALLED)


def needed(called: list[str]) -> list[str]:
    """The functions that those `called` (of CALLED) are, or call."""
    return [name for name in _SOURCES if name in called or any(name in _NEEDS[c] for c in called)]


def pasted(functions: list[str], names: dict[str, str], triton: str, indent: str) -> list:
    """`functions` as module-level definitions (libcst statements), each calling the others by `names`
    (function -> the name the module binds it to), indented as the module is (`indent`: its default, four
    spaces or a tab)."""
    import libcst as cst  # here: the front end reads this module's other names without libcst

    source = "\n".join(_filled(_SOURCES[name], names, triton) for name in functions)
    source = re.sub(r"^(?:    )+", lambda m: indent * (len(m.group(0)) // 4), source, flags=re.M)
    module = cst.parse_module(source)
    blank = [cst.EmptyLine(), cst.EmptyLine()]
    return [module.body[0].with_changes(leading_lines=blank), *module.body[1:]]


def _filled(template: str, names: dict[str, str], triton: str) -> str:
    return template.format(**names, triton=triton, environment=ENVIRONMENT)


def is_ours(function) -> bool:
    """Whether a module-level function (a libcst FunctionDef) is one an earlier run pasted (its docstring
    says so)."""
    docstring = function.get_docstring()
    return docstring is not None and MARK in docstring
