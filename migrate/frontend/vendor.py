"""`migrate vendor-compat DEST.py`: the compat shim as one self-contained file for the user's package.

The file carries the shim's modules as source text and builds them as a private package when it is
imported, registering each source with `linecache` so that `@triton.jit` (which reads a kernel's source)
sees real files. It depends on triton only, so migrated code that imports it no longer depends on this
tool. Generated code: regenerate it rather than edit it.
"""

from __future__ import annotations

from pathlib import Path

from triton_migrate import __version__
from triton_migrate.frontend.cache import package_folders

# A checkout keeps compat/ apart, a wheel nests it.
COMPAT = Path(package_folders("triton_migrate.compat")[0])
# In dependency order: each module only imports those before it (and triton).
MODULES = ("_features", "allocator", "_jit", "_guard", "__init__")

LOADER = '''
def _build():
    import linecache
    import sys
    import types

    package_name = __name__ + "._shim"
    package = types.ModuleType(package_name)
    package.__path__ = []
    sys.modules[package_name] = package
    for name, source in _SOURCES:
        full = package_name if name == "__init__" else f"{package_name}.{name}"
        filename = f"<vendored triton_migrate.compat: {full}>"
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        module = package if name == "__init__" else types.ModuleType(full)
        module.__file__, module.__package__ = filename, package_name
        sys.modules[full] = module
        exec(compile(source, filename, "exec"), module.__dict__)
        if name != "__init__":
            setattr(package, name, module)
    return package


_shim = _build()
globals().update({name: getattr(_shim, name) for name in _shim.__all__})
__all__ = list(_shim.__all__)
'''


def vendored_source() -> str:
    sources = ",\n".join(f"    ({name!r}, {(COMPAT / f'{name}.py').read_text()!r})" for name in MODULES)
    header = (f'"""triton_migrate.compat {__version__}, vendored as one file by `migrate vendor-compat`.\n\n'
              'Depends on triton only. Generated: regenerate it rather than edit it."""\n\n')
    return f"{header}_SOURCES = [\n{sources},\n]\n{LOADER}"


def vendor(destination: Path) -> None:
    destination.write_text(vendored_source())
