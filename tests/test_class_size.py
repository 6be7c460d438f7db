"""No class of triton_migrate has more than 40 methods, its bases' counted (issue 37): a class that
holds the analysis, or any one job, in one namespace is one a newcomer cannot change safely. The
methods a base class of the project defines count for every class that inherits them; those of
libcst's or the standard library's bases do not (a visitor's dozens of `visit_` hooks are not ours)."""

import importlib
import pkgutil

import triton_migrate

LIMIT = 40
PACKAGE = triton_migrate.__name__


def _modules():
    for info in pkgutil.walk_packages(triton_migrate.__path__, PACKAGE + "."):
        if info.name.endswith(".__main__"):  # runs the command line when imported
            continue
        yield importlib.import_module(info.name)


def _is_method(member) -> bool:
    return callable(member) or isinstance(member, (staticmethod, classmethod, property))


def methods(cls: type) -> set[str]:
    """The names of the methods `cls` has from itself and from its project bases."""
    own = [base for base in cls.__mro__ if base.__module__.startswith(PACKAGE)]
    return {name for base in own for name, member in vars(base).items()
            if _is_method(member) and not isinstance(member, type)}


def classes() -> list[type]:
    found = {}
    for module in _modules():
        for member in vars(module).values():
            if isinstance(member, type) and member.__module__ == module.__name__:
                found[f"{member.__module__}.{member.__qualname__}"] = member
    return list(found.values())


def test_counts_inherited_methods():
    class Base:
        def a(self): ...

        @property
        def b(self): ...

    class Derived(Base):
        @staticmethod
        def c(): ...

    for cls in (Base, Derived):
        cls.__module__ = PACKAGE + ".example"
    assert methods(Derived) == {"a", "b", "c"}


def test_no_class_above_the_limit():
    sizes = {f"{cls.__module__}.{cls.__qualname__}": len(methods(cls)) for cls in classes()}
    assert len(sizes) > 50  # the walk found the package's classes
    large = {name: size for name, size in sizes.items() if size > LIMIT}
    assert not large, f"classes with more than {LIMIT} methods (bases counted): {large}"
