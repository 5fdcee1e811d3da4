"""Parser cases: holds past ``buf``'s bound after a spelt parameter opener (session 51, helper
hpar; issue 10).

A module of its own (``parser_cases.CASES`` includes it). Expected outputs are recorded from
vLLM 0.33's classes (``record_parsers.py`` with the ids' prefixes: they hold ``/hp51_``).
Found by the whitespace sweep (``parser_ws_sweep.py 157 --pairs``, seed_oss): with spelt
``<\\s*parameter\\s*=`` tags (session 50) a stream's held text could pass ``buf``'s bound
(``HEADER_LIMIT + LEAD_LIMIT``, 264): stray text in a call held its 200-character window and a
``<`` with 64 newlines after it, and a key header was held with its spelt opener (up to 207
characters) before it; the state failed to load (a StateError, a 400) where the batch read the
call. One token per delta reaches both holds.
"""

from __future__ import annotations

from parser_cases_fuzz50 import xml_cases
_KEY = "k" * 150
#: a spelt opener of 131 characters and a 150-character key: held together, 281 > 264
_Q_BODIES = {
    "long_open_long_key": "<" + " " * 60 + "parameter" + "\n" * 60 + "=" + _KEY + ">\nParis\n"
                          "</parameter>",
    "stray_lt_newlines": "a" + " " * 200 + "<" + "\n" * 64 + "x<parameter=city>\nParis\n"
                         "</parameter>",
}
_M_BODIES = {
    "long_open_long_key": "<" + " " * 60 + "parameter" + "\n" * 60 + "name" + " " * 60 + '="'
                          + _KEY + '">Paris</parameter>',
    "stray_lt_newlines": "a" + " " * 200 + "<" + "\n" * 64 + 'x<parameter name="city">Paris'
                         "</parameter>",
}


def cases() -> list[dict]:
    """The cases, ids ``TOOL/hp51_NAME``."""
    return xml_cases("hp51", _Q_BODIES, _M_BODIES)
