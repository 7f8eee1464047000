"""Package names loaded from their modules on first use (PEP 562), so importing one module of a
package does not load all of it (a warm ``holokb query`` needs a few of ``holokb.core``'s modules
and none of the Ledger class's)."""
from __future__ import annotations

import sys
from importlib import import_module
from typing import Any, Callable


def lazy_names(package: str, where: dict[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``: each name in ``where`` (name → submodule) is
    imported from that submodule when first asked for, then kept in the package's namespace."""
    namespace = sys.modules[package].__dict__

    def __getattr__(name: str) -> Any:
        mod = where.get(name)
        if mod is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = namespace[name] = getattr(import_module(f"{package}.{mod}"), name)
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(where))

    return __getattr__, __dir__
