"""The Lark corpus of ``record_xgrammar.py`` (``goldens/structural/_lark.json``): grammars by
hand (every construct ``tito.core.lark_convert`` converts, xgrammar's refusals, the features
tito does not port) and seeded ones, with and without refusals.
"""

from __future__ import annotations

import random

#: Lark grammars by hand: every construct tito converts, the refusals, the unported features
LARK = [
    "start: a\na: \"x\" (\"b\" | \"c\") (\"d\" | \"e\")",
    "start: (\"a\" | \"b\")* (\"c\" | \"d\")",
    "start: \"a\" (\"b\" \"c\") \"d\"",
    "start: ((\"a\" | \"b\") | \"c\")",
    "start: (\"a\" (\"b\" | \"c\"))+",
    "start: _x\n_x: \"q\"",
    "start: ?x\n",
    "?start: a | b\na: \"x\"\nb: \"y\"",
    "!start: \"a\"",
    "start: \"\\t\\\\\\x41\\u0001'\"",
    "start: \"\\ud83d\\ude00\"",
    "start: \"😀\"",
    "start: \"ab\"i",
    "start: \"\"",
    "start: \"a\" \"\" \"b\"",
    "a: \"x\"",
    "start: b",
    "start: \"a\"\nstart: \"b\"",
    "root: \"a\"\nstart: root",
    "start: x\nx: \"a\"+",
    "start: X+\nX: \"a\"",
    "start: X\nX: \"a\" | \"b\"",
    "start: X\nX: Y \"c\"\nY: \"d\"",
    "start: \"a\"{3}",
    "start: \"a\"{2,}",
    "start: \"a\"~3",
    "start: (\"a\" | )",
    "start: \"a\" (| \"b\")",
    "start: \"a\"\n    | \"b\"\n    | \"c\" \"d\"",
    "start: \"a\" -> alias",
    "start: \"a\"\n%ignore \" \"",
    "start: \"\\n\" \"\\r\" \"\\f\" \"\\v\" \"\\0\"",
    "start: \"\\\"\"",
    "start: \"#\" \"//\"",
    "start: \"a\"*?",
    "start: a\na: \"x\"\na2: \"y\"",
    "start: x_y\nx_y: \"a\"",
    "start: \"a\"..\"c\" | \"x\"..\"z\"",
    "start: (\"a\"? \"b\")*",
    "start: x? x\nx: \"y\"",
    "start: /[0-9]+/",
    "%import common.NUMBER\nstart: NUMBER",
    "start: <|im_end|>",
    "start: @x",
    "start[lazy]: \"a\"",
    "start: \"a\"\n%declare X",
    "start: %json {}",
    "start: \"a\" & \"b\"",
    "start: ~\"a\"",
    "start: a.2\n",
    "start.2: \"a\"",
    "start{x}: \"a\"",
    "start: x{y}\n",
    "start: \"a\"{2,1}",
    "start: \"a\"~99999999999",
    "start: \"a\"~-1",
    "start: \"a\"~+2",
    "start: \"a\"~1.5",
    "start: \"a\"{ 2 , 3 }",
    "start: \"a\"{,}",
    "start: (",
    "start: )",
    "start: \"a\" |",
    "  ",
    "",
    "start: \"a\"\n\n|\"b\"",
    "start: \"a\"\n  \n  | \"b\"",
    "start: (\"a\"\n | \"b\")",
    "start: A\nA: B\nB: A",
    "start: A\nA: a\na: \"x\"",
    "start: \"\\u00\"",
    "start: \"\\ud800\"",
    "start: \"\\udc00\"",
    "start: \"\\ud800\\u0041\"",
    "start: \"a\tb\"",
    "start: \"\u0001\"",
    "START: \"a\"",
    "start: \"a\"  -> x y",
    "?start: x\n!x: \"a\"",
    "start: _A\n_A: \"a\"",
    "start: __a\n__a: \"q\"",
    "start: _a1\n_a1: \"q\"",
    "start: a-b\na-b: \"q\"",
    "start: \"a\"..\"\"",
    "start: \"aé\"i",
    "start: \"!\"i",
    "start: \"a\"?+",
    "start: \"a\"**",
    "start: \"\\/\"",
    "start:\r\n  \"a\"\r\n  | \"b\"\r\n",
    "start: \"x\" # comment | \"y\"",
    "start: \"x\" // c\n   | \"y\"",
    "start: (\"d\" | \"e\")",
    "start: \"a\" (\"b\" | \"c\") \"d\"",
    "start: a\na: \"x\" | \"y\"\n",
    "start: A\nA: \"x\"",
    "?start: \"a\"",
    "start: \"a\\\"b\\n\"",
    "start: 'single'",
    "start: \"a\" | ",
    "start: ",
    "start: \"a\"~2..4",
    "start: [\"a\"]",
    "start: \"a\"i",
    "start: (a b)+ c?\na: \"x\"\nb: \"y\"\nc: \"z\"",
    "start: \"é\"",
    "start: \"\\u00e9\"",
    "start: \"a\"..\"z\"",
    "start: \"a\"* | \"b\"+",
    "start: WORD (\" \" WORD)*\nWORD: \"x\"+\n%ignore \" \""
    ]

_LARK_STRINGS = ['"a"', '"b"', '""', '"ab"i', '"X"i', '"é"', '"\\n"', '"\\u00e9"', '"?"',
                 '"\\""', '"a b"', '"-"', '"]"', '"\\t"', '"\\ud83d\\ude00"', '"1"i']
_LARK_BAD = ['"\\x41"', '"é"i', '"z".."a"', '"ab".."c"', "undefined_x", "UNDEF"]
_LARK_REPEATS = ["", "", "", "?", "*", "+", "~2", "~1..3", "{2}", "{1,}", "{,2}", "{2,3}",
                 "{0}", "~0"]


class LarkCorpus:
    """Seeded Lark grammars: rules and terminals (some named ``root``, ``_c``, ``x-y``),
    groups, optionals, alternatives on new lines, repetitions, ranges, aliases, ``%ignore``,
    comments; with ``bad``, some of the refusals too (bad escapes, reversed ranges, unknown
    names, terminal cycles)."""

    def __init__(self, seed: int, bad: bool) -> None:
        self.rnd, self.bad = random.Random(seed), bad

    def atom(self, names: list[str]) -> str:
        r = self.rnd
        pool = [*_LARK_STRINGS, *names, *names, '"a".."z"']
        if self.bad and r.random() < 0.1:
            pool = _LARK_BAD + ["~3..1"]
        return r.choice(pool)

    def expr(self, names: list[str], d: int) -> str:
        r = self.rnd
        x = r.random()
        if d > 2 or x < 0.35:
            atom = self.atom(names)
            if atom == "~3..1":
                return '"a"~3..1'
        elif x < 0.6:
            atom = "(" + self.alts(names, d + 1) + ")"
        elif x < 0.7:
            atom = "[" + self.alts(names, d + 1) + "]"
        else:
            atom = "(" + " ".join(self.expr(names, d + 1) for _ in range(r.randint(1, 3))) + ")"
        return atom + r.choice(_LARK_REPEATS)

    def alts(self, names: list[str], d: int) -> str:
        r = self.rnd
        seqs = [" ".join(self.expr(names, d) for _ in range(r.randint(0, 3)))
                + (" -> alias" if r.random() < 0.05 else "") for _ in range(r.randint(1, 3))]
        return (r.choice([" | ", "\n    | "]) if d == 0 else " | ").join(seqs)

    def grammar(self) -> str:
        r = self.rnd
        rules = ["start", *r.sample(["a", "b", "_c", "root", "x-y"], r.randint(0, 3))]
        terms = r.sample(["A", "B", "_C"], r.randint(0, 2))
        lines = [f"{t}: " + self.alts([x for x in terms if x != t] + ['"t"']
                                      if r.random() < 0.9 else terms, 1) for t in terms]
        lines += [f"{r.choice(['', '', '?', '!'])}{x}: " + self.alts(rules + terms, 0)
                  for x in rules]
        if r.random() < 0.3:
            lines.append("%ignore " + r.choice(['" "', '"\\t" | " "', *terms[:1]]))
        if r.random() < 0.2:
            lines.insert(r.randint(0, len(lines)), r.choice(["// comment", "# comment", ""]))
        if r.random() < 0.3:
            r.shuffle(lines)
        return "\n".join(lines) + r.choice(["", "\n"])


def lark_corpus() -> list[str]:
    return LARK + [LarkCorpus(20261203, False).grammar() for _ in range(600)] + [
        LarkCorpus(20261204, True).grammar() for _ in range(300)]
