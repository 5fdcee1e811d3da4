"""A ``sam build`` output read for a local run: one function's folders, handler and environment.

Why apart from the run (:mod:`tito.adapters.built`): resolving the built template (parameter
defaults, conditions, ``Ref``/``Fn::If``/``Fn::Equals``/``Fn::Not``, ``AWS::NoValue``, layers)
is pure data work; running the artifact is processes and sockets.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["BuildError", "BuiltFunction"]


class BuildError(Exception):
    """The build folder, its template or the runtime cannot be used (a usage error, exit 2)."""


# -- the built template -------------------------------------------------------------------------


def _evaluate(node: Any, params: Mapping[str, str], conditions: Mapping[str, Any]) -> Any:
    """The few intrinsics a function's properties use: Ref, Fn::If, Fn::Equals, Fn::Not, Fn::Sub
    of plain parameters. ``None`` stands for ``AWS::NoValue``."""
    if isinstance(node, list):
        items = [_evaluate(n, params, conditions) for n in node]
        return [i for i in items if i is not None]
    if not isinstance(node, dict):
        return node
    if len(node) == 1:
        ((key, value),) = node.items()
        key = key.removeprefix("!")
        if key in ("Ref",):
            if value == "AWS::NoValue":
                return None
            if value in params:
                return params[value]
            return {"AWS::Region": "us-east-1", "AWS::StackName": "tito-local",
                    "AWS::Partition": "aws", "AWS::URLSuffix": "amazonaws.com"}.get(value, value)
        if key in ("Fn::If", "If"):
            name, then, other = value
            return _evaluate(then if _condition(name, params, conditions) else other, params,
                             conditions)
        if key in ("Fn::Equals", "Equals"):
            left, right = (_evaluate(v, params, conditions) for v in value)
            return str(left) == str(right)
        if key in ("Fn::Not", "Not"):
            return not _evaluate(value[0], params, conditions)
        if key in ("Condition",):
            return _condition(value, params, conditions)
    return {k: _evaluate(v, params, conditions) for k, v in node.items()}


def _condition(name: str, params: Mapping[str, str], conditions: Mapping[str, Any]) -> bool:
    if name not in conditions:
        raise BuildError(f"unknown condition {name!r} in the built template")
    return bool(_evaluate(conditions[name], params, conditions))


@dataclasses.dataclass(frozen=True)
class BuiltFunction:
    """One function of a ``sam build`` output folder, resolved for a local run."""

    name: str
    handler: str
    runtime: str
    architecture: str
    task_root: Path
    layers: tuple[Path, ...]
    environment: dict[str, str]
    timeout_s: float
    memory_mb: int

    @classmethod
    def from_build(
        cls, build_dir: Path, name: str, parameters: Mapping[str, str] | None = None
    ) -> BuiltFunction:
        """Read ``build_dir/template.yaml`` (as ``sam build`` writes it) for function ``name``."""
        from tito.adapters.sam_template import load_template  # the SAM-tag-aware YAML reader

        path = build_dir / "template.yaml"
        if not path.is_file():
            raise BuildError(f"{path} not found: run `sam build` first (or pass --build-dir)")
        data = load_template(path)
        resources = data.get("Resources") or {}
        functions = sorted(k for k, v in resources.items()
                           if isinstance(v, dict) and v.get("Type") == "AWS::Serverless::Function")
        if name not in functions:
            raise BuildError(f"{name!r} is not a function of {path}; functions: {', '.join(functions)}")
        params = {k: str(v.get("Default", "")) for k, v in (data.get("Parameters") or {}).items()}
        params.update(parameters or {})
        conditions = data.get("Conditions") or {}
        glob = (data.get("Globals") or {}).get("Function") or {}
        props = {**glob, **(resources[name].get("Properties") or {})}
        env = dict((glob.get("Environment") or {}).get("Variables") or {})
        env.update(((resources[name].get("Properties") or {}).get("Environment") or {})
                   .get("Variables") or {})
        props = _evaluate(props, params, conditions)
        env = {k: str(v) for k, v in _evaluate(env, params, conditions).items() if v is not None}

        def folder(uri: Any, what: str) -> Path:
            if not isinstance(uri, str):
                raise BuildError(f"{what} has no local folder in {path}")
            out = (build_dir / uri).resolve()
            if not out.is_dir():
                raise BuildError(f"{what}: {out} is missing from the build")
            return out

        layers = []
        for ref in props.get("Layers") or []:
            layer_id = ref if isinstance(ref, str) else None
            layer = resources.get(layer_id or "") if layer_id else None
            if not isinstance(layer, dict):
                raise BuildError(f"{name}: layer {ref!r} is not a layer of this build")
            layers.append(folder((layer.get("Properties") or {}).get("ContentUri"),
                                 f"layer {layer_id}"))
        arches = props.get("Architectures") or ["x86_64"]
        return cls(
            name=name,
            handler=str(props.get("Handler", "")),
            runtime=str(props.get("Runtime", "")),
            architecture=str(arches[0]),
            task_root=folder(props.get("CodeUri"), f"function {name}"),
            layers=tuple(layers),
            environment=env,
            timeout_s=float(props.get("Timeout", 3)),
            memory_mb=int(props.get("MemorySize", 128)),
        )
