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
    # %json's value as xgrammar reads it (render fuzz seed 916: vLLM's 400 on gpt-oss)
    "start: %json",
    "start: \"a\" %json",
    "start: %json []",
    "start: %json true",
    "start: %json false",
    "start: %json null",
    "start: %json \"x\"",
    "start: %json {\"type\": \"object\"",
    "start: %json { bad }",
    "start: %json {\"a\": NaN}",
    "start: %json {\"type\": \"nonsense\"}",
    "start: %json {\"enum\": []}",
    "start: %json {\"type\": \"string\", \"pattern\": \"[a-\"}",
    "start: %json\n  {\"type\": \"integer\"}",
    "start: a\na: %json {\"type\": \"string\"} \"x\"",
    "start: %json {\"type\": \"integer\"}\n%json",
    "start: %json {\"type\": \"integer\"} \"a\" !",
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
    good, bad = LarkCorpus(20261203, False), LarkCorpus(20261204, True)
    return LARK + [good.grammar() for _ in range(600)] + [bad.grammar() for _ in range(300)]


#: regular-expression terminals and %import by hand: classes, escapes, unicode, counts,
#: alternation, groups, anchors, flags, and what xgrammar refuses (lookarounds, backreferences,
#: \p, \b, modifiers, bad counts, unbalanced groups, reversed ranges)
REGEX_LARK = [
    "start: /[0-9]+/", "start: /a|b(c)?d{2,3}/", "start: /\\d\\w\\s./s", "start: /\\d\\w\\s./",
    "start: /[^a-z\\]]/", "start: /a+b+/ /c+/", "start: x\nx: /a+/\nX: /q/",
    "start: /a+/ \"b\"\n%ignore /[ ]+/", "start: /x(?:y|z)+/", "start: /(ab)*c/",
    "start: /[\\x41b]/", "start: /[\\^a]/", "start: /(a|)/", "start: /|a||b|/", "start: /()*/",
    "start: /[a-]/", "start: /[--a]/", "start: /[z-a]/", "start: /\\u{1F600}+/", "start: /\\cA/",
    "start: /é+/", "start: /\\é/", "start: /[é-ü]{2}/", "start: /\\u00e9\\x41\\x{41}/",
    "start: /\\u{110000}/", "start: /\\u{FFFFFF}/", "start: /\\u{}/", "start: /\\u{1234567}/",
    "start: /\\x/", "start: /\\xZZ/", "start: /a\\/", "start: /\\/", "start: /\\//",
    "start: /[\\/]/", "start: /a/i", "start: /a/x", "start: /a/l", "start: /a/su",
    "start: /a/us", "start: /a.b/s", "start: /a.b/", "start: /[.]/", "start: /\\./",
    "start: /(?=a)b/", "start: /(?!a)b/", "start: /(?<=a)b/", "start: /(?<!a)b/",
    "start: /(?<name>a)/", "start: /(?<n1>a)/", "start: /(?P<n>a)/", "start: /(?i)a/",
    "start: /(?s:a)/", "start: /(?/", "start: /(a/", "start: /a)/", "start: /a**/",
    "start: /a+?/", "start: /a*?b/", "start: /a{2}?/", "start: /a{2}{3}/", "start: /a{2}*/",
    "start: /a??/", "start: /a?+/", "start: /*a/", "start: /a|*b/", "start: /(*a)/",
    "start: /a{,3}/", "start: /a{3,1}/", "start: /a{3,}/", "start: /a{3}/", "start: /a{x}/",
    "start: /a{3/", "start: /a{3,4/", "start: /a{99999999999}/", "start: /a{9999999999999999}/",
    "start: /a{2147483647}/", "start: /a{2147483648}/", "start: /\\1/", "start: /(a)\\1/",
    "start: /\\k<a>/", "start: /\\p{L}/", "start: /\\P{L}/", "start: /\\bx/", "start: /\\Bx/",
    "start: /[]/", "start: /[^]/", "start: /[^]a]/", "start: /[]a]/", "start: /[a/",
    "start: /[\\d\\w]/", "start: /[\\D]/", "start: /[\\W]/", "start: /[\\s]/", "start: /[\\S]/",
    "start: /[a-\\d]/", "start: /[\\]-a]/", "start: /[\\--\\-]/", "start: /[\\n\\t\\r\\f\\v]/",
    "start: /[\\b]/", "start: /[\\0]/", "start: /\\0/", "start: /\\e\\a/", "start: /[\\e]/",
    "start: /[\"']/", "start: /\"'/", "start: /\\\"/", "start: /[\\\\]/", "start: /\\\\/",
    "start: /[\\x01b]/", "start: /[\\cAb]/", "start: /[\\u00e9f]/", "start: /\\q/",
    "start: /[\\q]/", "start: /\\c1/", "start: /\\c/", "start: /^abc$/", "start: /a^b/",
    "start: /a$b/", "start: /^/", "start: /$/", "start: /^$/", "start: /^$|abc/",
    "start: /(|a)/", "start: /(a|$)/", "start: /a||b/", "start: /(?:)/", "start: /()/",
    "start: /(())/", "start: /((a)|(b))+/", "start: /(a(b(c)*)+)?/",
    "start: /[\n]/", "start: /a\nb/", "start: /\\n\\r\\t/", "start: /[ab\\]]+/",
    "start: /\t/", "start: /[\t ]+/", "start: /a b/", "start: /#x/", "start: /[#]/",
    "start: /🙂+/", "start: /[🙂-🙃]/", "start: /\\U0001F600/", "start: /\\uD83D/",
    "start: /a/ \"b\" /c/", "start: A B\nA: /a+/\nB: A /b/", "start: A\nA: \"x\" /y*/",
    "start: a\na: /x/ | /y/+", "start: /x/*", "start: (/a/ /b/)~2",
    "start: /a/\n%ignore /\\s+/", "start: /a/ /b/\n%ignore WS\n%import common.WS",
    "start: root\nroot: /a+/", "start: /a/ root_0\nroot_0: /b+/", "start: /a/\nstart_2: /b/",
    "start: NUMBER\n%import common.NUMBER", "start: w\n%import common.WORD -> w",
    "start: ESCAPED_STRING WS C_COMMENT\n%import common (ESCAPED_STRING, WS, C_COMMENT)",
    "start: SIGNED_NUMBER\n%import common.SIGNED_NUMBER",
    "start: INT DECIMAL FLOAT SIGNED_FLOAT SIGNED_INT\n"
    "%import common (INT, DECIMAL, FLOAT, SIGNED_FLOAT, SIGNED_INT)",
    "start: DIGIT HEXDIGIT LETTER LCASE_LETTER UCASE_LETTER CNAME WS_INLINE\n"
    "%import common (DIGIT, HEXDIGIT, LETTER, LCASE_LETTER, UCASE_LETTER, CNAME, WS_INLINE)",
    "start: CR LF NEWLINE SH_COMMENT CPP_COMMENT SQL_COMMENT _EXP\n"
    "%import common (CR, LF, NEWLINE, SH_COMMENT, CPP_COMMENT, SQL_COMMENT, _EXP)",
    "start: X\n%import common.NOPE -> X", "start: X\n%import other.X",
    "start: X\n%import common.X", "start: NUMBER\nNUMBER: \"1\"\n%import common.NUMBER",
    "%import common.WORD -> start", "start: x\n%import common.WORD -> x",
    "start: a\n%import common.WORD -> a\na: \"q\"", "start: WORD\n%import common.WORD\n",
    "start: WORD\n%import common.WORD junk", "start: WORD\n%import common.", "%import",
    "start: WORD\n%import common (WORD", "start: WORD\n%import common ()",
    "start: WORD\n%import common.WORD -> ", "start: /unterminated",
    "start: /a/ /", "start: \"a\" // comment /x/", "start: /[/]/", "start: /a\\/b/",
    "start: /" + "(" * 70 + "a" + ")" * 70 + "/",
    "start: /" + "(" * 1001 + "a" + ")" * 1001 + "/",
    "start: /" + "(" * 1001 + "a" + ")" * 1000 + "/",
    "start: /" + "a|" * 300 + "b/", "start: /" + "[a-z]{1,3}" * 100 + "/",
    "start: /" + "(?:a+)" * 50 + "/", "start: /a/\nstart: /b/", "start: /a\x00b/",
    "start: /(?:\\d+(?:\\.\\d*)?|\\.\\d+)(?:[eE][+-]?\\d+)?/",
    "start: /\"(?:[^\"\\\\]|\\\\.)*\"/", "start: /[A-Za-z_][A-Za-z_0-9]*/",
    "start: /(?:(?:25[0-5]|2[0-4]\\d|1?\\d?\\d)\\.){3}(?:25[0-5]|2[0-4]\\d|1?\\d?\\d)/",
    "start: /[\\w.+-]+@[\\w-]+\\.[\\w.]+/", "start: /\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}/",
    "start: /(?i:a)/", "start: /(?#c)/", "start: /\\Z/", "start: /\\A/", "start: /\\z/",
    "start: /a{0}/", "start: /a{0,0}/", "start: /(a){2,}/", "start: /[a]{2,}/",
    "start: /[a]*/", "start: /[^a]*b/", "start: /(?:[ab])*/", "start: /\\d*/", "start: /.*/s",
    "start: /.*/", "start: /(.|\\n)*/", "start: /[\\s\\S]*/",
]

_RX_ATOMS = ["a", "b", "é", "🙂", ".", "\\.", "\\d", "\\D", "\\w", "\\W", "\\s", "\\S", "\\n",
             "\\t", "\\\\", "\\/", "\\x41", "\\u00e9", "\\u{1F600}", "\\cJ", "\\-", "\\q", "-",
             "[a-z]", "[^a-z]", "[\\d_]", "[\\w-]", "[a\\]]", "[\\^x]", "[-a]", "[a-]", "[.]",
             "[é-ü]", "[\\x00-\\x1f]", "[^\\s]", '"', "'", "#", " ", "\t", "[\\x41b]"]
_RX_BAD = ["\\b", "\\1", "\\p{L}", "(?=a)", "[z-a]", "[]", "{2}", "*", "(?i)"]
_RX_REPEATS = ["", "", "", "", "*", "+", "?", "*?", "+?", "{2}", "{1,3}", "{2,}", "{0}"]
_RX_BAD_REPEATS = ["{3,1}", "{,2}", "**", "{2}?+"]


class RegexCorpus:
    """Seeded regex terminals: atoms (escapes, classes, unicode, anchors and a few refusals),
    groups (capturing, ``(?:``, named), alternation, every repetition; inside rules and
    terminals, beside strings, with flags and ``%ignore`` / ``%import``."""

    def __init__(self, seed: int) -> None:
        self.rnd = random.Random(seed)

    def regex(self, d: int = 0) -> str:
        r = self.rnd
        parts = []
        for _ in range(r.randint(1, 3)):
            x = r.random()
            if d < 2 and x < 0.2:
                inner = "|".join(self.regex(d + 1) for _ in range(r.randint(1, 3)))
                atom = r.choice(["(", "(?:", "(?<g>", "("]) + inner + ")"
            else:
                atom = r.choice(_RX_BAD if r.random() < 0.03 else _RX_ATOMS)
            parts.append(atom + r.choice(_RX_BAD_REPEATS if r.random() < 0.02 else _RX_REPEATS))
        return r.choice(["", "", "", "^", "\\A"]) + "".join(parts) + r.choice(["", "", "", "$"])

    def grammar(self) -> str:
        r = self.rnd
        flags = r.choice(["", "", "", "", "", "", "s", "u", "su", "i", "x"])
        rx = "/" + self.regex() + "/" + flags
        shape = r.randint(0, 5)
        if shape == 0:
            return "start: " + rx
        if shape == 1:
            return f"start: A \"x\" A?\nA: {rx}"
        if shape == 2:
            return f"start: a+ | b\na: {rx} \"y\"\nb: " + "/" + self.regex() + "/"
        if shape == 3:
            return f"start: {rx} WORD\n%import common.WORD\n%ignore WS\n%import common.WS"
        if shape == 4:
            return f"start: ({rx} | \"z\")~1..3\nroot: {rx}"
        return f"start: T+\nT: {rx} | \"q\"\n%ignore {rx}"


def regex_lark_corpus() -> list[str]:
    corpus = RegexCorpus(20261205)
    return REGEX_LARK + [corpus.grammar() for _ in range(700)]
