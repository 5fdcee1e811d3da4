"""What a chat template reads from its messages, found in its syntax tree once at compile time.

Why: ``transformers`` hands every template the same message shapes, but vLLM (and so tito)
adapts them per template, and the choice must not cost a render: content as one string or
OpenAI's typed parts (:func:`detect_content_format`, vLLM's own test), ``content: null`` kept
for templates that test it, tool-call ``arguments`` kept as the client's JSON string for
templates that concatenate them, ``developer`` kept for templates that name it.
"""

from __future__ import annotations

from typing import Literal

from jinja2 import nodes

__all__ = [
    "ContentFormat",
    "detect_content_format",
    "supports_developer_role",
    "tests_content_none",
    "wants_string_arguments",
]

ContentFormat = Literal["string", "openai"]
"""How a template reads ``message.content``: one string, or the OpenAI list of typed parts."""


def _is_content_access(node: nodes.Node) -> bool:
    """``x.content`` or ``x['content']`` (possibly through filters such as ``| list``)."""
    while isinstance(node, nodes.Filter) and node.node is not None:
        node = node.node
    if isinstance(node, nodes.Getattr):
        return node.attr == "content"
    if isinstance(node, nodes.Getitem):
        return isinstance(node.arg, nodes.Const) and node.arg.value == "content"
    return False


def detect_content_format(ast: nodes.Template) -> ContentFormat:
    """``openai`` when the template loops over a message's content (directly or via a variable
    assigned from it), else ``string``: the same question vLLM asks to decide how to pass parts."""
    def loop_names(root: nodes.Node) -> set[str]:
        names: set[str] = set()
        for loop in root.find_all(nodes.For):
            it = loop.iter
            while isinstance(it, nodes.Filter) and it.node is not None:
                it = it.node
            if _is_content_access(it):
                names.add("\0content")
            elif isinstance(it, nodes.Name):
                names.add(it.name)
        return names

    content_vars: set[str] = set()
    for assign in ast.find_all(nodes.Assign):
        if isinstance(assign.target, nodes.Name) and _is_content_access(assign.node):
            content_vars.add(assign.target.name)
    looped = loop_names(ast)
    if "\0content" in looped or looped & content_vars:
        return "openai"
    # A macro that loops over one of its parameters, called with a message's content.
    for macro in ast.find_all(nodes.Macro):
        iterated = loop_names(macro)
        positions = [i for i, arg in enumerate(macro.args) if arg.name in iterated]
        if not positions:
            continue
        for call in ast.find_all(nodes.Call):
            if isinstance(call.node, nodes.Name) and call.node.name == macro.name:
                args = [call.args[i] for i in positions if i < len(call.args)]
                args += [kw.value for kw in call.kwargs if kw.key in iterated]
                if any(_is_content_access(a) or (isinstance(a, nodes.Name) and a.name in content_vars)
                       for a in args):
                    return "openai"
    return "string"


def _is_key_access(node: nodes.Node, key: str) -> bool:
    """``x.key`` or ``x['key']``."""
    if isinstance(node, nodes.Getattr):
        return node.attr == key
    if isinstance(node, nodes.Getitem):
        return isinstance(node.arg, nodes.Const) and node.arg.value == key
    return False


def _aliases(ast: nodes.Template, key: str) -> set[str]:
    """Names a template assigns from ``x.key`` (``{% set args = call.arguments %}``)."""
    return {
        assign.target.name
        for assign in ast.find_all(nodes.Assign)
        if isinstance(assign.target, nodes.Name) and _is_key_access(assign.node, key)
    }


def _refers_to(node: nodes.Node, key: str, aliases: set[str]) -> bool:
    return _is_key_access(node, key) or (isinstance(node, nodes.Name) and node.name in aliases)


def tests_content_none(ast: nodes.Template) -> bool:
    """Whether the template tells ``content: null`` apart (``message['content'] is none``), as
    DeepSeek-V3's does to write tool calls only for contentless turns: such a template must get
    the null that ``transformers`` would hand it, not vLLM's ``""``."""
    aliases = _aliases(ast, "content")
    return any(
        test.name == "none" and _refers_to(test.node, "content", aliases)
        for test in ast.find_all(nodes.Test)
    )


def wants_string_arguments(ast: nodes.Template) -> bool:
    """Whether tool-call ``arguments`` must stay the JSON string OpenAI clients send: the
    template concatenates them (``'```json\n' + tool['function']['arguments']``, DeepSeek-V3)
    and never asks which form it got (``is string`` / ``is mapping``, Qwen3). Other templates
    get an object, as vLLM passes it (most write ``arguments | tojson``)."""
    aliases = _aliases(ast, "arguments")
    for test in ast.find_all(nodes.Test):
        if test.name in ("string", "mapping") and _refers_to(test.node, "arguments", aliases):
            return False
    for op in (*ast.find_all(nodes.Add), *ast.find_all(nodes.Concat)):
        operands = op.nodes if isinstance(op, nodes.Concat) else (op.left, op.right)
        if any(_refers_to(o, "arguments", aliases) for o in operands):
            return True
    return False


def supports_developer_role(source: str) -> bool:
    """vLLM's test: the template names the role in quotes. Otherwise ``developer`` messages
    become ``system`` (see :func:`tito.core.render.normalize_messages`)."""
    return '"developer"' in source or "'developer'" in source
