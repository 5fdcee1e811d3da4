"""``template.yaml`` read for ``tito invoke``: a logical id (or a handler path) to its handler.

Why a module of its own: finding and parsing the SAM template (short-form tags kept, PyYAML
optional) and resolving a function's ``Handler``, ``CodeUri`` and ``Timeout`` is what both
``tito invoke`` and the built-artifact run (:mod:`tito.adapters.built_template`) read.
"""

from __future__ import annotations

import dataclasses
import importlib
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["ResolvedHandler", "UsageError", "find_template", "load_template", "resolve"]

TEMPLATE_NAME = "template.yaml"
DEFAULT_TIMEOUT_S = 29
_FUNCTION_TYPES = ("AWS::Serverless::Function", "AWS::Lambda::Function")


class UsageError(Exception):
    """Bad arguments: an unknown logical id, a missing template or event file (exit 2)."""


@dataclasses.dataclass(frozen=True)
class ResolvedHandler:
    """Where a handler lives: ``module.attr``, the code root to import from, its timeout."""

    name: str
    module: str
    attr: str
    code_root: Path | None = None
    timeout_s: float = DEFAULT_TIMEOUT_S

    def load(self) -> Callable[[Any, Any], Any]:
        """Import the module (the Lambda init phase) and return the handler."""
        if self.code_root is not None and str(self.code_root) not in sys.path:
            sys.path.insert(0, str(self.code_root))
        module = importlib.import_module(self.module)
        try:
            func = getattr(module, self.attr)
        except AttributeError:
            raise UsageError(f"module {self.module} has no attribute {self.attr!r}") from None
        if not callable(func):
            raise UsageError(f"{self.module}.{self.attr} is not callable")
        return func  # type: ignore[no-any-return]


# -- template.yaml --------------------------------------------------------------------------------


def find_template(start: Path | None = None) -> Path:
    """``template.yaml`` in ``start`` (default: cwd) or a parent, else in this source checkout."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        candidate = folder / TEMPLATE_NAME
        if candidate.is_file():
            return candidate
    checkout = Path(__file__).resolve().parents[3] / TEMPLATE_NAME
    if checkout.is_file():
        return checkout
    raise UsageError(f"no {TEMPLATE_NAME} in {here} or its parents; pass --template")


def load_template(path: Path) -> dict[str, Any]:
    """Parse a SAM/CloudFormation template, keeping short-form tags (``!Ref``) as opaque values.

    Uses PyYAML when installed (it is in the dev extras); otherwise :func:`_scan_template` reads
    the few keys ``invoke`` needs from the block layout.
    """
    text = path.read_text(encoding="utf-8")
    try:
        import yaml
    except ImportError:
        return _scan_template(text)

    def _tagged(loader: Any, suffix: str, node: Any) -> dict[str, Any]:
        value: Any
        if isinstance(node, yaml.ScalarNode):
            value = loader.construct_scalar(node)
        elif isinstance(node, yaml.SequenceNode):
            value = loader.construct_sequence(node, deep=True)
        else:
            value = loader.construct_mapping(node, deep=True)
        return {"!" + suffix: value}

    # A SafeLoader subclass that turns any ``!Tag value`` into ``{"!Tag": value}``.
    loader: Any = type("_TemplateLoader", (yaml.SafeLoader,), {})
    loader.add_multi_constructor("!", _tagged)
    data = yaml.load(text, Loader=loader)  # noqa: S506 - a SafeLoader subclass
    if not isinstance(data, dict):
        raise UsageError(f"{path} is not a template (top level is not a mapping)")
    return data


_KEY = re.compile(r"^(?P<indent> *)(?P<key>[A-Za-z0-9_]+):\s*(?P<value>.*?)\s*(#.*)?$")


def _scan_template(text: str) -> dict[str, Any]:
    """Without PyYAML: ``Globals.Function`` and each resource's ``Type`` and plain scalar
    ``Properties`` (``Handler``, ``CodeUri``, ``Timeout``), from a block-style template."""
    out: dict[str, Any] = {"Resources": {}, "Globals": {"Function": {}}}
    path: list[tuple[int, str]] = []
    for line in text.splitlines():
        match = _KEY.match(line)
        if not match or not line.strip():
            continue
        indent, key, value = len(match["indent"]), match["key"], match["value"]
        while path and path[-1][0] >= indent:
            path.pop()
        keys = [k for _, k in path]
        value = value.strip("'\"")
        if keys == ["Resources"]:
            out["Resources"].setdefault(key, {"Properties": {}})
        elif len(keys) == 2 and keys[0] == "Resources" and key == "Type" and value:
            out["Resources"][keys[1]]["Type"] = value
        elif len(keys) == 3 and keys[0] == "Resources" and keys[2] == "Properties" and value:
            out["Resources"][keys[1]]["Properties"][key] = value
        elif keys == ["Globals", "Function"] and value:
            out["Globals"]["Function"][key] = value
        path.append((indent, key))
    return out


def resolve(target: str, template: Path | None = None) -> ResolvedHandler:
    """A logical id of the template, or a dotted handler path, to a :class:`ResolvedHandler`."""
    if "." in target or ":" in target:
        module, sep, attr = target.replace(":", ".").rpartition(".")
        if not sep or not module or not attr:
            raise UsageError(f"not a handler path: {target!r} (expected package.module.function)")
        return ResolvedHandler(name=module.rpartition(".")[2] or module, module=module, attr=attr)

    path = template or find_template()
    data = load_template(path)
    resources = data.get("Resources") or {}
    functions = sorted(
        name for name, res in resources.items()
        if isinstance(res, dict) and res.get("Type") in _FUNCTION_TYPES
    )
    if target not in functions:
        raise UsageError(
            f"{target!r} is not a function of {path}; functions: {', '.join(functions) or 'none'}"
        )
    props = resources[target].get("Properties") or {}
    glob = (data.get("Globals") or {}).get("Function") or {}
    handler = props.get("Handler", glob.get("Handler"))
    if not isinstance(handler, str) or "." not in handler:
        raise UsageError(f"{target} has no plain Handler string in {path}")
    code_uri = props.get("CodeUri", glob.get("CodeUri"))
    code_root = None
    if isinstance(code_uri, str) and not code_uri.startswith("s3://"):
        candidate = (path.parent / code_uri).resolve()
        if candidate.is_dir():
            code_root = candidate
    timeout = props.get("Timeout", glob.get("Timeout", DEFAULT_TIMEOUT_S))
    try:
        timeout_s = float(timeout)
    except (TypeError, ValueError):
        timeout_s = DEFAULT_TIMEOUT_S
    module, _, attr = handler.rpartition(".")
    return ResolvedHandler(
        name=target, module=module, attr=attr, code_root=code_root, timeout_s=timeout_s
    )
