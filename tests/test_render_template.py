"""The chat-template environment: Hugging Face compatibility, generation spans and containment."""

from __future__ import annotations

import pytest

from tito.core.template import (
    TemplateLimits,
    TemplateRenderError,
    compile_template,
)

SMALL = TemplateLimits(max_output_chars=100_000, max_steps=50_000, max_seconds=5.0)


def render(source: str, limits: TemplateLimits = SMALL, **variables):
    return compile_template(source).render(variables, limits=limits)


def text(source: str, **variables) -> str:
    return render(source, **variables).text


# -- compatibility ---------------------------------------------------------------------------


def test_tojson_does_not_html_escape_and_takes_hf_options():
    value = {"b": "<tag> & 'quote'", "a": "é"}
    assert text("{{ v | tojson }}", v=value) == '{"b": "<tag> & \'quote\'", "a": "é"}'
    assert text("{{ v | tojson(ensure_ascii=true) }}", v={"a": "é"}) == '{"a": "\\u00e9"}'
    assert text("{{ v | tojson(indent=2, sort_keys=true) }}", v={"b": 1, "a": 2}) == (
        '{\n  "a": 2,\n  "b": 1\n}'
    )


def test_trim_and_lstrip_blocks_like_hf():
    source = "{% for m in ms %}\n    {{ m }}\n{% endfor %}"
    assert text(source, ms=["a", "b"]) == "    a\n    b\n"
    assert text("  {% if true %}x{% endif %}\ny") == "xy"


def test_loop_controls_and_globals():
    assert text("{% for x in [1,2,3,4] %}{% if x == 2 %}{% continue %}{% endif %}"
                "{% if x == 4 %}{% break %}{% endif %}{{ x }}{% endfor %}") == "13"
    assert text("{{ strftime_now('%Y') | length }}") == "4"


def test_raise_exception_message_is_kept():
    with pytest.raises(TemplateRenderError, match="^Conversation roles must alternate$"):
        render("{{ raise_exception('Conversation roles must alternate') }}")


def test_undefined_attribute_access_fails_but_printing_undefined_is_empty():
    assert text("[{{ missing }}]") == "[]"
    with pytest.raises(TemplateRenderError, match="undefined"):
        render("{{ missing.attr.deeper }}")


def test_sandbox_blocks_internals_and_mutation():
    assert text("{{ x.__class__ }}", x=1) == ""
    with pytest.raises(TemplateRenderError):
        render("{% set l = [1] %}{{ l.append(2) }}")
    with pytest.raises(TemplateRenderError, match="underscore"):
        render("{% set ns = namespace(_secret=1) %}")
    with pytest.raises(TemplateRenderError):
        render("{{ ''.__class__.__mro__ }}{{ cycler.__init__.__globals__ }}")


#: Attribute lookups a template can make on the values it sees (plain and unsafe alike)
LOOKUPS = ["content", "role", "items", "get", "keys", "update", "pop", "clear", "setdefault",
           "append", "index", "count", "sort", "startswith", "split", "upper", "format",
           "__class__", "_private", "real", "index0", "last", "length", "x", "mro"]


@pytest.mark.parametrize("attr", LOOKUPS)
def test_attribute_lookups_answer_as_jinjas_own_sandbox(attr):
    """The sandbox's lookup shortcuts (dict items, cached attribute safety) give what Jinja's
    ``ImmutableSandboxedEnvironment`` (Hugging Face's) gives, on the first render and later."""
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    reference = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
    source = ("{% set ns = namespace(x=1) %}{% for v in values %}"
              "{% if v is string or v is mapping or v is sequence or v is number %}"
              "{{ (v.ATTR is defined) ~ '|' ~ (v.ATTR is callable) }};{% endif %}"
              "{% endfor %}{{ (ns.ATTR is defined) ~ (loop_probe | default('')) }}"
              "{% for _ in [1] %}{{ loop.ATTR is defined }}{% endfor %}").replace("ATTR", attr)
    values = [{"content": "c", "role": "user", "items": 3}, {"x": None}, ["a"], ("t",), "s", 2,
              2.5, True, None]
    expected = reference.from_string(source).render(values=values)
    for _ in range(2):  # cold, then with the attribute cache filled
        assert text(source, values=values) == expected


#: ``str`` method calls a template makes (the sandbox calls most of them directly)
STR_CALLS = ["s.startswith('<t>')", "s.endswith('</t>', 1)", "s.split(',')", "s.split(',', 1)[-1]",
             "s.rsplit(maxsplit=1)", "s.strip('<>')", "s.lstrip('\\n')", "s.replace(',', ';')",
             "s.upper()", "s.center(20, '*')", "s.zfill(24)", "s.count(',')", "s.find('b')",
             "s.splitlines()", "s.partition(',')", "s.encode()", "s.isdigit()", "s.title()",
             "s.removeprefix('<t>')", "s.join(['x', 'y'])", "s.format(1)", "'{}-{}'.format(s, 2)",
             "s.index('z')", "s.split(sep=',', _loop_vars=1)", "s.maketrans('a', 'b')",
             "'{0.__class__}'.format(s)", "'{a.__class__}'.format_map({'a': 1})"]


@pytest.mark.parametrize("call", STR_CALLS)
def test_str_method_calls_answer_as_jinjas_own_sandbox(call):
    """A ``str`` method called in a template (in and out of a loop) gives what Jinja's
    ``ImmutableSandboxedEnvironment`` gives, its errors included."""
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    reference = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
    source = f"{{{{ {call} }}}}|{{% for _ in [1, 2] %}}{{{{ {call} }}}};{{% endfor %}}"
    variables = {"s": "<t>a,b\nc, d</t>"}
    try:
        expected = reference.from_string(source).render(**variables)
    except Exception:  # noqa: BLE001 - the reference refuses it: so must tito
        with pytest.raises(TemplateRenderError):
            render(source, **variables)
    else:
        assert text(source, **variables) == expected


def test_unsafe_methods_stay_refused_once_cached():
    for _ in range(2):
        with pytest.raises(TemplateRenderError):
            render("{% set d = {'a': 1} %}{{ d.clear() }}")
        with pytest.raises(TemplateRenderError):
            render("{% set l = [1] %}{{ l.append(2) }}")
        assert text("{% set d = {'pop': 5} %}{{ d.get('pop') }}|{{ d['pop'] }}") == "5|5"


def test_python_errors_become_template_errors():
    with pytest.raises(TemplateRenderError, match="ZeroDivisionError"):
        render("{{ 1 / 0 }}")
    with pytest.raises(TemplateRenderError, match="invalid chat template"):
        compile_template("{% for x in %}")


def test_fromjson_parses_or_falls_back():
    assert text("{{ (s | fromjson(s)).a }}", s='{"a": 5}') == "5"
    assert text("{{ s | fromjson(s) }}", s="plain text") == "plain text"
    with pytest.raises(TemplateRenderError, match="not valid JSON"):
        render("{{ s | fromjson }}", s="nope")


def test_content_format_detection():
    assert compile_template("{% for m in messages %}{{ m.content }}{% endfor %}").content_format == "string"
    assert compile_template(
        "{% for m in messages %}{% for p in m['content'] %}{{ p.text }}{% endfor %}{% endfor %}"
    ).content_format == "openai"
    assert compile_template(
        "{% for m in messages %}{% set c = m.content %}{% for p in c %}{% endfor %}{% endfor %}"
    ).content_format == "openai"
    assert compile_template(
        "{% macro t(c) %}{% for p in c %}{{ p.text }}{% endfor %}{% endmacro %}"
        "{% for m in messages %}{{ t(m.content) }}{% endfor %}"
    ).content_format == "openai"


# -- generation spans ------------------------------------------------------------------------


def test_generation_spans_mark_assistant_text():
    source = (
        "{% for m in messages %}<{{ m.role }}>"
        "{% if m.role == 'assistant' %}{% generation %}{{ m.content }}</s>{% endgeneration %}"
        "{% else %}{{ m.content }}{% endif %}{% endfor %}"
    )
    messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"},
                {"role": "user", "content": "again"}, {"role": "assistant", "content": "ok!"}]
    rendered = render(source, messages=messages)
    assert [rendered.text[s:e] for s, e in rendered.generation_spans] == ["yo</s>", "ok!</s>"]
    assert compile_template(source).has_generation_blocks


# -- containment -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "source, message",
    [
        ("{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}", "work limit"),
        ("{% macro f(n) %}{{ f(n) }}{% endmacro %}{{ f(1) }}", "recursed|work limit"),
        ("{% for x in [1, 2] recursive %}{{ loop([1, 2]) }}{% endfor %}", "recursed|work limit"),
        ("{{ 'a' * 10**9 }}", "larger than the limit"),
        ("{{ [1] * 10**9 }}", "larger than the limit"),
        ("{{ 2 ** 100000 }}", "power"),
        ("{% set ns = namespace(s='ab') %}{% for i in range(64) %}{% set ns.s = ns.s ~ ns.s %}"
         "{% endfor %}", "larger than the limit"),
        ("{% set ns = namespace(s='ab') %}{% for i in range(64) %}{% set ns.s = ns.s + ns.s %}"
         "{% endfor %}", "larger than the limit"),
        ("{{ '%0999999999d' % 1 }}", "larger than the limit"),
        ("{{ '{:>999999999}'.format(1) }}", "larger than the limit"),
        ("{{ '{:>{}}'.format(1, 10**9) }}", "larger than the limit"),
        ("{{ 'x' | center(10**9) }}", "larger than the limit"),
        ("{{ (['x' * 50000] * 1000) | join }}", "larger than the limit"),
        ("{{ (['x' * 50000] * 1000) | map('upper') | join }}", "larger than the limit"),
        ("{{ (['x' * 50000] * 1000) }}", "larger than the limit"),
        ("{{ (['x' * 50000] * 1000) | tojson }}", "larger than the limit"),
        ("{{ ('a' * 50000).replace('a', 'bbbbbbbbbb') }}", "larger than the limit"),
        ("{{ ([''] * 90000) | join('x' * 1000) }}", "larger than the limit|work limit"),
        ("{{ ''.join((['x' * 50000] * 1000) | map('lower')) }}", "larger than the limit"),
        ("{% for i in range(100) %}{{ 'x' * 5000 }}{% endfor %}", "larger than the limit"),
    ],
)
def test_runaway_templates_are_stopped(source, message):
    with pytest.raises(TemplateRenderError, match=message):
        render(source)


def test_time_limit():
    limits = TemplateLimits(max_output_chars=100_000, max_steps=10**9, max_seconds=0.05)
    with pytest.raises(TemplateRenderError, match="time limit"):
        render("{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
               limits=limits)


def test_ordinary_work_fits_the_default_limits():
    messages = [{"role": "user", "content": "x" * 1000}] * 500
    rendered = compile_template(
        "{% for m in messages %}{{ m.role }}: {{ m.content | trim }}\n{% endfor %}"
    ).render({"messages": messages})
    assert len(rendered.text) == 500 * 1007
