#!/usr/bin/env python3
"""Writes the YAML texts of fixtures/psych/repairs.json (a JSON list of strings): the constructs
saphyr-parser refuses or reads differently from libyaml, which src/loader/yaml.rs repairs or
checks itself, each alone and next to its neighbours, plus files that repeat them (so that the
loader's speculative repairs are exercised and checked).

Usage: python3 tools/psych/repair-cases.py | ruby tools/psych/record-corpus.rb repair-cases \
    > fixtures/psych/repairs.json
"""
import json

CASES = [
    # A tab after a value's ':'.
    "a:\tb", "k:\t- x", "k:\t[a]", "k:\t&a x", "k:\t!t x", 'k:\t"x"', "k:\t|\n  x\n",
    "- a:\tb", "{a:\tb}", "? a\n:\tb", "a: \tb", "a:\t\tb\nc:\td\n",
    # Indentation inside quoted scalars.
    'a: "foo\nbar"', "a: 'x\n\ty'", 'a:\n  b: "x\ny"\n  c: 1', 'a: "x\\\n  y"',
    'motd:\n  message: "Welcome to\nthe machine"\n', 'a: "x\n---\ny"', 'a: "x\n\n\ny"',
    'a: "unclosed\nb: 1\n', "    note: 'a long\nclasses: [\n  'x',\n]\n",
    'a: "x\n%y: 1\n"', 'a: "x\n%y: 1\n',
    "    'ssl: yes\nprofile::web::vhosts:\n  'www.example.com':\n    port: 443\n",
    # Indentation inside flow collections.
    "a: [\n]", "a: {\n}", "a:\n  b: {\n x: 1}", "a: [b,\n\tc]", "x:\n  a: [1,\n\t2]",
    "a: [b\n\tc]", "a:\n  - [x,\n y]", "a: {b: [x,\n]}", "a: [whee\nl, adm]",
    "a: [\n  'one',\n  \"two\",\n]\nb: {\n  k: v,\n}\n", "a: [1,\n\t# c\n 2]",
    "ports: {\n  http: 80,\n\t}\nusers: 1", "a: [\n---\n]", "a: [x\n...\n]",
    # Comments without a blank before them.
    "a: [x,#c\n  y]#c2\nb: {k: v}#c3\n", '"a"#c', "'a'#c: 1", "a: [x]#c", "a: |#c\n  x",
    "a: >-#c\n  x", "[a,\t#c\n b]",
    # Flow plain scalars starting with '-'.
    "a: [-]", "a: [-, -a, a -]", "a: [-,-]", "a: [--]", "a: {-: 1}", "a: [- ]",
    # Block scalar at the key column.
    "banner:\n>-\n  folded text\n  continues here\nnext: 1\n", "banner:\n|\n  text\n",
    "a:\n  b:\n  |\n    text\n", "k: 1:20\n>", "a: [x]\n# c\n>", "- |\n x",
    "users:\n admin:\n    note: 'a long\n note'\n>", "banner: \u0085>-\n  text\nnext: 1\n",
    # A comment, then a more indented line (YAML 1.2 BS4K).
    "---\n7\t# c\nkey: v", "k: v #c\n  more", "a: 1 # c\n  b: 2",
    # Text after a quoted scalar.
    '"a" b', '"a" b\nc: d', '"a" b %', '"a" %', '"a" \'b', '"a" [b', '"a" - b', '"a" ? b',
    '"a" b: c', '"a" b - c', '"a" b, - c', '"a" |', '"a" &x', '- "a" b', 'a: "x" y',
    'key: "value" extra', "'a' b # c", "  - {c: \"d\n\"e\"}\n",
    # '?' at the end, tabs after '?'.
    "?", "a: 1\n?", "[?\tx]", "{? \tx}", "? \tx",
    # '?', ':', '|', '>' at the start of a flow plain scalar; ':' before a flow indicator.
    "a: [?b]\nc: {?d: 1}", "[?a, ?b: c]", "{?a: 1, ?b}", "[?]", "{?}", "v: [:a, :b]",
    "[: a]", "[a, :b]", "{a: :b}", "v: [|a]", "[>a]", "v: {a:}", "[a:]", "[a:,b]",
    "{a:b}", "{a:[b]}", "[a?b]", "[a :[b]]", '["a" :[b]]', "{x: &a 1, *a :[b]}",
    "{x: 1, y :{a: 1}}", "{[a]:[b]}", '{"a":[b]}',
    # Anchor and alias names.
    "a:\n  &port: 443\n  ssl: yes\n", "a: &x:y 1", "a: &x? 1", "a: &x% 1", "a: &x.y 1",
    "&a: 1", "&a : 1", "a: &é 1", "base: &base {a: 1}\nother: *ba&se\n",
    "a: &admin\n  b: 1\nc: *admin:\n", "x: 1\n*x: 2\n", "a: &ad&n\n  b: 1",
    'm: {\n  k: v,\n}\n&p::a:\t"multi\n  text"\nq: 1',
    # Tags ending at a flow indicator.
    "a: !t,x 1", "a: !t[x] 1", "[!t,x]", "[!t]", "a: !t{x} 1", "a: !{x: 1}", "a: !t#x 1",
    "{!t: 1}", "a: !<x>y 1", "[!t ,x]",
    # Implicit keys across lines in flow context.
    "{x\n: 1}", "{a\nb: c}", '{"a"\n: b}', "{? a\n: b}", "k: {x\n  : 1}", "[{a\n: b}]",
    "{a\n}", "{a: 1, b\n: 2}", "[a\n: b]", "e: {x\u0085: ~, y: 1}",
    # A closing bracket left of a root block collection ends the document first.
    "      - a\n]b: 1\n", "- a\n]\n", "a: 1\n]\n",
    # Root block scalars and block scalars ending the text.
    "--- |\nfoo", "|\nfoo", "--- >\nfoo\nbar", "--- |\n foo", "--- |\n\nfoo", "|+\n\nfoo: 1",
    "|1\nfoo", "k: |\n  x", "k: |+\n  x", "k: >\n  x\n  y", "k: |\n  x\n\n", "k: |+\n  x\n\n",
    # Line breaks libyaml knows (NEL) inside repaired constructs.
    "a: [x,\u0085]", "b: '\u0085two'", "c: {p: of\u0085f}",
    # Deep flow nesting within saphyr's limit.
    "[" * 255 + "]" * 255,
]


def repeated():
    """Files repeating the repaired constructs: the first repair proposes the rest."""
    lists = "".join(f"k{i}: [\n  'a{i}',\n  \"b{i}\",\n]\n" for i in range(60))
    mixed = "".join(
        f"p{i}::list: [\n  a,\n]\np{i}::msg: \"one\ntwo\"\np{i}::x:\tv{i}\np{i}::m: {{\n  k: v,\n}}\n"
        for i in range(40)
    )
    # A multi-line plain scalar holding '[' fools the sketch: the loader drops its proposals.
    wrong = "k: [\n]\na: x\n  [y\nb: 1\nc: [\n]\n"
    wrong2 = "k: [\n]\na: x\n  [y\nb: \"q\nr\"\nc: [\n]\nd:\te\n"
    return [lists, mixed, wrong, wrong2]


print(json.dumps(CASES + repeated()))
