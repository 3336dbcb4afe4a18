#!/usr/bin/env python3
"""Differential testing of hieralint's lookup engine against the real Puppet (the oracle).

From a seed, generate N small random environments (hiera.yaml v5 + YAML/JSON data + sometimes a
module), look every key up with both engines (once per merge mode), and compare the answers:
values must be JSON-equal including hash key order and number kinds (1 != 1.0); not_found must
match; an error must be an error on both sides (message differences are logged, not failures).

    python3 tools/difftest/difftest.py --seed 1 --n 50 [--merges none,deep] [--strict]
    python3 tools/difftest/difftest.py --replay DIR      # re-run a saved case (e.g. a minimized one)

--strict runs Puppet with ORACLE_STRICT=error and hieralint with --puppet 8 (and keeps undefined
variables out of hiera.yaml locations, where 7.23 strict and 8.x differ on purpose, reference §11).

Disagreements are written to tools/difftest/out/<run>/<case>/ (env tree, facts.json, keys, both
outputs, diff.txt). See README.md.
"""
import argparse, json, os, random, shutil, subprocess, sys, tempfile, time
from pathlib import Path

HERE = os.path.dirname(os.path.abspath(__file__))
ORACLE = '/work/shared/oracle/lookup-batch.rb'
HL = os.environ.get('HL_BIN', str(Path(__file__).resolve().parents[2] / 'target/release/hieralint'))
FACTS_DIR = '/work/shared/facts/facterdb-4.5'
EXOTIC_RATE = 0.0  # --exotic R: share of YAML data files that get entries in rarer YAML syntax
NO_KNOWN = False   # --no-known: leave out what already gave known disagreements (convert_to, incomplete metadata.json)
FACT_FILES = ['debian-12-x86_64.json', 'redhat-9-x86_64.json', 'windows-2022-x86_64.json', 'freebsd-14-x86_64.json']

# ----------------------------------------------------------------------------------------- facts

_fact_cache = {}

def make_facts(rng):
    name = rng.choice(FACT_FILES)
    if name not in _fact_cache:
        _fact_cache[name] = json.load(open(os.path.join(FACTS_DIR, name)))
    f = json.loads(json.dumps(_fact_cache[name]))
    f['role'] = rng.choice(['web', 'db', 'web'])
    f['site'] = rng.choice(['ams', 'fra'])
    f['tier'] = rng.choice(['prod', 'dev'])
    f['datacenters'] = rng.choice([['ams1', 'fra2'], ['fra2'], []])
    f['services'] = {'http': 80, 'ssh': 22}
    f['empty_fact'] = ''
    f['bool_fact'] = False
    f['int_fact'] = 42
    f['pct_fact'] = '%{facts.role}-x'
    f['dotted.fact'] = 'dv'
    cert = rng.choice(['web01.example.com', 'db02.example.net', 'node3'])
    f['trusted'] = {'certname': cert, 'extensions': {'pp_role': f['role'], 'pp_datacenter': 'ams1'}}
    return name, f

# ----------------------------------------------------------------------------- simple resolver
# Resolve the small set of variables used in generated hiera.yaml paths, to know which data files
# to create. Undefined -> ''.

def dig(v, segs):
    for s in segs:
        if isinstance(v, dict):
            v = v.get(s)
        elif isinstance(v, list):
            try:
                v = v[int(s)]
            except (ValueError, IndexError):
                return None
        else:
            return None
    return v

def resolve_var(expr, facts, local=None):
    expr = expr.strip()
    if local and expr.split('.')[0] in local:
        segs = expr.split('.')
        return dig(local[segs[0]], segs[1:])
    if expr.startswith('::'):
        expr = expr[2:]
    segs = expr.split('.')
    if segs[0] == 'facts':
        return dig({k: v for k, v in facts.items() if k != 'trusted'}, segs[1:])
    if segs[0] == 'trusted':
        t = dict(facts['trusted'])
        t['hostname'] = t['certname'].split('.')[0]
        t['domain'] = '.'.join(t['certname'].split('.')[1:])
        t['authenticated'] = 'remote'
        return dig(t, segs[1:])
    if segs[0] == 'environment':
        return 'production'
    return dig({k: v for k, v in facts.items() if k != 'trusted'}, segs)

def interp_path(tpl, facts, local=None):
    out, i = '', 0
    while True:
        j = tpl.find('%{', i)
        if j < 0:
            return out + tpl[i:]
        k = tpl.find('}', j)
        out += tpl[i:j]
        v = resolve_var(tpl[j + 2:k], facts, local)
        out += '' if v is None else (str(v) if not isinstance(v, bool) else str(v).lower())
        i = k + 1

# ------------------------------------------------------------------------------- value model
# A generated value is ('s', yaml_text, json_value_or_None) | ('a', [v..]) | ('h', [(key_yaml, dig_seg, v)..]).
# The YAML text is emitted verbatim so that YAML 1.1 scalars (yes, 0755, 1_000 ...) reach both parsers.

TOP_KEYS = ['a', 'b', 'c', 'h', 'arr', 'lst', 's', 'n', 'cfg', 'users', 'ports', 'x1']
SPECIAL_TOP = ['"a.b"', "'x y'", 'h2', 'nil_key']
SUB_KEYS = [('x', 'x'), ('y', 'y'), ('z', 'z'), ('a', 'a'), ('name', 'name'), ('k1', 'k1'), ('"--e"', "'--e'"),
            ('"a.b"', "'a.b'"), ('1', '1'), ("'6'", '"6"'), ('list', 'list'), ('"x y"', 'x y')]

PLAIN_SCALARS = ['hello', 'web', 'db', '42', '-7', '3.14', 'true', 'false', 'yes', 'no', 'on', 'off', 'Yes', 'NO', 'y', 'n',
                 '~', 'null', 'Null', '0755', '017', '0o17', '0x1F', '0b101', '1_000', '08', '.inf', '-.inf', '1e3',
                 '1.0e+3', '12.', '+12', '0', '-0', '0.0', '1.0', '"2001-12-14"', "'2020-01-01 10:00:00'", '""', "''",
                 '"--x"', "'--'", '"-- y"', '"01"', '"true"', '"1.0"', 'foo bar', "'it''s'", '"tab\\tx"', '"ünï"',
                 '!!str 123', '!!int "7"', '!!float "2"', 'abc#notcomment', '1:20', '12:30:00', '1,000', '"%"', '"a%b"']
FLOW_UNSAFE = {'1,000', 'foo bar', '1:20', '12:30:00', 'abc#notcomment', '!!str 123', '!!int "7"', '!!float "2"'}
RARE_SCALARS = ['2001-12-14', ':sym', '!ruby/object:Foo {}', '"%{facts.role"', '"%{lookup(a)}"', "\"%{lookup( 'a' )}\"",
                "\"%{literal('')}\"", '"%{what(\'x\')}"', "\"%{lookup('a').x}\"", '"%{\'the.key"}"', '"%{a..b}"']

# Whole top-level entries in less common YAML syntax ({k} is the key). They go through the same
# lookups, merges and interpolations as the generated values.
EXOTIC = [
    "{k}: |\n  line1\n   indented\n  line3\n",
    "{k}: |-\n  x\n  y\n",
    "{k}: |+\n  keep\n\n",
    "{k}: >\n  folded\n  text\n\n  para\n",
    "{k}: >-\n  a\n  b\n",
    "{k}: |2\n    two-indent\n",
    '{k}: "esc \\x41 \\u00e9 \\N \\_ \\t \\" \\\\ \\/ \\e \\a|"\n',
    "{k}: 'single ''q''\n  folded'\n",
    "{k}: plain\n  multi line\n",
    '{k}: "dq\n  multi\n\n  line"\n',
    "{k}: !!binary aGVsbG8=\n",
    '{k}: !!bool "yes"\n',
    '{k}: !!null ""\n',
    "{k}: !!map {{a: 1}}\n",
    "{k}: !!seq [1]\n",
    "{k}: !!omap [{{a: 1}}, {{b: 2}}]\n",
    "{k}: !!str\n",
    "{k}: !foo bar\n",
    "{k}: !!float 1\n",
    "{k}: !!int 0x1F\n",
    "{k}: &x{n} [1, 2]\nx1: *x{n}\n",
    "{k}: &h{n}\n  a: 1\n  b: [x]\nh2:\n  <<: *h{n}\n  b: [y]\n",
    "{k}:\n  <<: [{{a: 1}}, {{a: 2, c: 3}}]\n  d: 4\n",
    "{k}:\n  <<: {{a: 1}}\n  a: 2\n",
    "{k}: {{? a : 1}}\n",
    "{k}:\n  ? x\n  : explicit\n",
    "{k}:\n  1.5: float key\n  2: int key\n",
    "{k}:\n  ~: null key\n",
    "{k}:\n  true: bool key\n",
    "{k}:\n  ? [1, 2]\n  : seq key\n",
    "{k}: [a, b, ]\n",
    "{k}: {{a: 1, b}}\n",
    "{k}: [a, {{b: c}}, [d]]\n",
    "{k}: 0x_1F\n", "{k}: 1_0.5\n", "{k}: 0b1_0\n", "{k}: -0x1F\n", "{k}: +0x1F\n", "{k}: 0.1e+2\n",
    "{k}: 685.230_15e+03\n", "{k}: 190:20:30.15\n", "{k}: -1:30\n", "{k}: .NaN\n", "{k}: -.INF\n", "{k}: 1.e+3\n",
    "{k}: 0o17\n", "{k}: 0.\n", "{k}: -.5\n", "{k}: 00\n", "{k}: 09.5\n", "{k}: 1_000_000_000_000_000_000_000\n",
    "{k}: 123456789012345678901234567890\n", "{k}: 3.0e+400\n", "{k}: -0.0\n", "{k}: 1e-5\n", "{k}: 1.0E-5\n",
    "{k}: TRUE\n", "{k}: tRUE\n", "{k}: Off\n", "{k}: NULL\n", "{k}: nULL\n", "{k}: Y\n", "{k}: ~x\n",
    "{k}: a #comment\n", "{k}: 'x' # c\n", "{k}: x:y\n", "{k}: -x\n", "{k}: ?x\n", "{k}: \"\\u263A\\U0001F600\"\n",
    "{k}: 'ünïcödé ✓'\n", "{k}: \"%{{lookup('{k}')}}\"\n", "{k}: \"%{{alias('missing_k')}}\"\n",
    "{k}: \"%{{lookup('x1')}}|%{{lookup('h2')}}\"\n", "{k}: \"%{{lookup('nums')}}\"\nnums: [1.0e+20, 1.5, -0.0, 100.0, 1.0e-5, .inf, ~, true, 'q\\'s', \"d\\\"q\", ü]\n",
    "{k}: \"%{{lookup('hinsp')}}\"\nhinsp: {{a: ~, 1: [x], 'k y': {{z: 1.0}}}}\n",
    "{k}: \"%{{facts.os}}\"\n", "{k}: \"%{{trusted}}\"\n", "{k}: \"%{{facts.services}}/%{{facts.datacenters}}\"\n",
    "\"{k}\": quoted key\n", "'{k}': single quoted key\n", "{k} : spaced colon\n", "? {k}\n: explicit top key\n",
    "{k}:\n- a\n- b\n", "{k}:\n    - a\n    -   b\n", "{k}:\n  - - a\n    - b\n  - - c\n",
    "{k}:\n  -\n    a: 1\n    b: 2\n  - c: 3\n",
    "{k}: [\n  a,\n  b\n]\n", "{k}: {{\n  a: 1,\n  b: 2\n}}\n",
    "{k}:   \n", "{k}: ''\n", "{k}: []\n", "{k}: {{}}\n",
    "{k}: \"a.b.c\"\na.b.c: literal-dotted\n",
]
EXOTIC_BREAKING = [   # make the whole file unreadable (both engines must fail)
    "{k}: 2001-12-14\n", "{k}: 2001-12-14t21:59:43.10-05:00\n", "{k}: !!set {{a, b}}\n", "{k}: !ruby/object:Foo {{}}\n",
    "{k}: :sym\n", "\t{k}: tab\n", "{k}: [a\n", "{k}: *undefined_anchor\n", "{k}: @x\n", "{k}: `x\n",
    "{k}: a\n {k}: b\n", "{k}: \"unterminated\n", "{k}: !!int x\n", "{k}: !!float x\n", "{k}: |\n x\n  y\n z\n",
]

JSON_SCALARS = ['hello', 42, -7, 3.14, True, False, None, 0, 1.0, '', '--x', '0755', 'yes', 1e20, 0.1, '1_000', 'ünï']


class Gen:
    def __init__(self, rng, facts, module=None, strict=False):
        self.rng = rng
        self.facts = facts
        self.module = module
        self.strict = strict
        self.keys_defined = set()      # root keys (lookup form)
        self.dig_paths = set()         # dotted keys (lookup form)

    # ---- interpolation strings
    def ref_key(self):
        r = self.rng
        pool = TOP_KEYS + ['missing_k', 'h.x', 'arr.0', 'lst.1', 'cfg.name', '"a.b"', 'a.b']
        if self.module:
            pool += ['%s::x' % self.module, '%s::h' % self.module, '%s::h.x' % self.module, '%s::nope' % self.module]
        return r.choice(pool)

    def token(self, in_json=False):
        r = self.rng
        toks = ['%{facts.role}', '%{::role}', '%{role}', '%{facts.os.family}', '%{trusted.certname}', '%{::trusted.certname}',
                '%{facts.datacenters.0}', '%{facts.datacenters.-1}', '%{facts.datacenters.9}', '%{facts.nope}',
                '%{trusted.extensions.pp_role}', '%{facts.services}', '%{facts.datacenters}', '%{facts.int_fact}',
                '%{facts.bool_fact}', '%{facts.empty_fact}', '%{facts.pct_fact}', "%{facts.'dotted.fact'}",
                '%{ facts.role }', '%{environment}', '%{::environment}', '%{facts.processors.count}', '%{}', '%{::}',
                "%{literal('%')}", "%{literal('x')}", "%{scope('facts.role')}", "%{scope('nope_var')}",
                "%{facts.os.release.major}", '%{trusted.hostname}', '%{trusted.domain}', '%{module_name}',
                '%{facts.os.family.x}', '%{facts.services.http}', '%{server_facts.environment}']
        if not self.strict or r.random() < 0.3:
            toks += ['%{nope_var}', '%{::nope_top}', '%{nope.sub}']
        p = r.random()
        if p < 0.45:
            return r.choice(toks)
        k = self.ref_key()
        q = r.choice(["'", "'", '"']) if not in_json else "'"
        meth = r.choice(['lookup', 'lookup', 'hiera', 'scope'] if p < 0.9 else ['lookup'])
        if meth == 'scope':
            return "%%{scope(%sfacts.%s%s)}" % (q, r.choice(['role', 'site', 'os.name', 'nope']), q)
        return '%%{%s(%s%s%s)}' % (meth, q, k, q)

    def interp_string(self, in_json=False):
        r = self.rng
        if r.random() < 0.18:
            k = self.ref_key()
            s = "%%{alias('%s')}" % k if r.random() < 0.9 else "x-%%{alias('%s')}" % k
        else:
            parts = []
            for _ in range(r.choice([1, 1, 2])):
                parts.append(r.choice(['', '', 'pre-', '/', ' ', '%%', '%']) + self.token(in_json))
            parts.append(r.choice(['', '', '-suf', '.yaml']))
            s = ''.join(parts)
        if in_json:
            return s
        # quote it for YAML
        if "'" in s or r.random() < 0.5:
            return '"' + s.replace('\\', '\\\\').replace('"', '\\"') + '"'
        return "'" + s + "'"

    # ---- values
    def scalar(self, flow=False, in_json=False):
        r = self.rng
        if in_json:
            if r.random() < 0.3:
                return ('s', None, self.interp_string(True))
            return ('s', None, r.choice(JSON_SCALARS))
        p = r.random()
        if p < 0.28:
            return ('s', self.interp_string(), None)
        if p < 0.287:
            return ('s', r.choice(RARE_SCALARS), None)
        while True:
            t = r.choice(PLAIN_SCALARS)
            if not (flow and t in FLOW_UNSAFE):
                return ('s', t, None)

    def value(self, kind=None, depth=0, flow=False, in_json=False):
        r = self.rng
        if kind is None:
            kind = r.choice(['s', 's', 'a', 'h', 'h']) if depth < 3 else 's'
        if kind == 's':
            return self.scalar(flow, in_json)
        if kind == 'a':
            n = r.choice([0, 1, 2, 2, 3, 4])
            items = []
            for _ in range(n):
                if r.random() < 0.15 and depth < 2:
                    items.append(self.value('h', depth + 1, flow, in_json))
                elif r.random() < 0.1 and depth < 2:
                    items.append(self.value('a', depth + 1, flow, in_json))
                else:
                    # shared small vocabulary so unique/deep merges see duplicates
                    if r.random() < 0.6:
                        items.append(('s', r.choice(['a', 'b', 'c', '1', '"1"', '1.0', 'x', '"--a"', '"--"', '~']), r.choice(['a', 'b', 'c', 1, '1', 1.0, 'x', '--a', '--', None])))
                    else:
                        items.append(self.scalar(flow, in_json))
            if n and all(i[0] == 'h' for i in items) is False and r.random() < 0.1 and depth < 2:
                items = [self.value('h', depth + 1, flow, in_json) for _ in range(2)]
            return ('a', items)
        n = r.choice([0, 1, 2, 2, 3])
        ents, seen = [], set()
        for _ in range(n):
            kt, seg = r.choice(SUB_KEYS[:6] if r.random() < 0.7 else SUB_KEYS)
            if in_json and kt in ('1',):
                continue
            if r.random() < 0.04 and not in_json:
                kt, seg = self.interp_string(), None   # interpolated hash key
            if kt in seen and r.random() < 0.85:
                continue
            seen.add(kt)
            ents.append((kt, seg, self.value(None, depth + 1, flow, in_json)))
        return ('h', ents)

    def collect_digs(self, root, v, depth=0):
        if depth > 3:
            return
        if v[0] == 'h':
            for kt, seg, sub in v[1]:
                if seg is None:
                    continue
                p = root + '.' + seg
                self.dig_paths.add(p)
                self.collect_digs(p, sub, depth + 1)
            if self.rng.random() < 0.2:
                self.dig_paths.add(root + '.nokey')
        elif v[0] == 'a':
            for i, sub in enumerate(v[1]):
                if self.rng.random() < 0.5:
                    p = root + '.' + str(i)
                    self.dig_paths.add(p)
                    self.collect_digs(p, sub, depth + 1)
            if v[1] and self.rng.random() < 0.3:
                self.dig_paths.add(root + '.-1')
            if self.rng.random() < 0.15:
                self.dig_paths.add(root + '.7')
            if self.rng.random() < 0.1:
                self.dig_paths.add(root + '.x')
        elif self.rng.random() < 0.1:
            self.dig_paths.add(root + '.x')

    # ---- lookup_options
    def merge_spec(self):
        r = self.rng
        p = r.random()
        if p < 0.2:
            return 'unique'
        if p < 0.4:
            return 'deep'
        if p < 0.5:
            return 'hash'
        if p < 0.55:
            return 'first'
        if p < 0.58:
            return r.choice(['Deep', 'nope', '{strategy: hash, knockout_prefix: "--"}', '{knockout_prefix: "--"}', 'reverse_deep', '{strategy: unique}'])
        opts = ['strategy: deep']
        if r.random() < 0.6:
            opts.append('knockout_prefix: %s' % r.choice(['"--"', '"--"', '"x."', '"!"']))
        if r.random() < 0.4:
            opts.append('sort_merged_arrays: %s' % r.choice(['true', 'true', 'false']))
        if r.random() < 0.4:
            opts.append('merge_hash_arrays: %s' % r.choice(['true', 'true', 'false']))
        return '{' + ', '.join(opts) + '}'

    def lopts(self, keys):
        r = self.rng
        ents = []
        for _ in range(r.choice([1, 1, 2, 3])):
            if self.module and r.random() < 0.97:
                m = self.module
                k = r.choice(['%s::x' % m, '%s::h' % m, '"^%s::"' % m, '"^%s::h"' % m, '"^%s::.*a"' % m])
                if r.random() < 0.05:
                    k = r.choice(['"^.*x"', 'other'])
            else:
                k = r.choice(keys + ['"^a"', '"^h"', '"^[a-c]$"', '"^.*s"', '"s$"', '"^l"', '"^(arr|lst)$"', '"^u"', '"^c"'])
                if r.random() < 0.02:
                    k = '"^[a"'
            if r.random() < 0.82 or NO_KNOWN:
                ents.append('  %s:\n    merge: %s' % (k, self.merge_spec()))
            else:
                ct = '"Optional[String]"' if r.random() < 0.03 else r.choice(['Array', '[Array, true]', 'String', 'Integer', 'Hash', 'Boolean', 'Sensitive', '"Array[String]"', 'Float', 'Numeric', '[Integer, 16]', '[String, "%x"]',
                               '"Array[String]"', 'Nope', '"Integer["'])
                extra = '\n    merge: %s' % self.merge_spec() if r.random() < 0.3 else ''
                ents.append('  %s:\n    convert_to: %s%s' % (k, ct, extra))
        if r.random() < 0.05:
            return 'lookup_options:\n'
        if r.random() < 0.02:
            return 'lookup_options: [a]\n'
        return 'lookup_options:\n' + '\n'.join(ents) + '\n'


# ---------------------------------------------------------------------------------- emission

def emit_yaml(v, indent):
    pad = ' ' * indent
    kind = v[0]
    if kind == 's':
        return v[1]
    if kind == 'a':
        if not v[1]:
            return '[]'
        out = []
        for it in v[1]:
            if it[0] == 's':
                out.append(pad + '- ' + it[1])
            elif (it[0] == 'a' and not it[1]) or (it[0] == 'h' and not it[1]):
                out.append(pad + '- ' + emit_yaml(it, 0))
            else:
                out.append(pad + '-\n' + emit_yaml(it, indent + 2))
        return '\n'.join(out)
    if not v[1]:
        return '{}'
    out = []
    for kt, seg, it in v[1]:
        if it[0] == 's' or not it[1]:
            out.append(pad + kt + ': ' + emit_yaml(it, 0))
        else:
            out.append(pad + kt + ':\n' + emit_yaml(it, indent + 2))
    return '\n'.join(out)

def emit_flow(v):
    if v[0] == 's':
        return v[1]
    if v[0] == 'a':
        return '[' + ', '.join(emit_flow(i) for i in v[1]) + ']'
    return '{' + ', '.join('%s: %s' % (k, emit_flow(i)) for k, s, i in v[1]) + '}'

def flow_safe(v):
    if v[0] == 's':
        return v[1] not in FLOW_UNSAFE and not v[1].startswith('!')
    if v[0] == 'a':
        return all(flow_safe(i) for i in v[1])
    return all(flow_safe(i) for k, s, i in v[1])

def to_json_value(v):
    if v[0] == 's':
        return v[2]
    if v[0] == 'a':
        return [to_json_value(i) for i in v[1]]
    d = {}
    for kt, seg, it in v[1]:
        k = kt.strip('"\'') if kt[:1] in '"\'' else kt
        d[k] = to_json_value(it)
    return d


def yaml_entry(key_text, v, rng):
    if v[0] == 's':
        return '%s: %s\n' % (key_text, v[1])
    if v[1] and rng.random() < 0.3 and flow_safe(v):
        return '%s: %s\n' % (key_text, emit_flow(v))
    if not v[1]:
        return '%s: %s\n' % (key_text, emit_yaml(v, 0))
    return '%s:\n%s\n' % (key_text, emit_yaml(v, 2))

# ----------------------------------------------------------------------------- environments

LEVELS = [
    ('node', '    path: "nodes/%{trusted.certname}.yaml"'),
    ('role', '    path: "role/%{facts.role}.yaml"'),
    ('os', '    path: "os/%{facts.os.family}.yaml"'),
    ('top', '    path: "site/%{::site}.yaml"'),
    ('paths', '    paths:\n      - "tier/%{facts.tier}.yaml"\n      - "site/%{facts.site}.yaml"'),
    ('glob', '    glob: "glob/*.yaml"'),
    ('globi', '    glob: "gi/%{facts.role}-*.yaml"'),
    ('globs', '    globs: ["gs/b*.yaml", "gs/a*.yaml"]'),
    ('mapped', '    mapped_paths: [facts.datacenters, dc, "dc/%{dc}.yaml"]'),
    ('mappedh', '    mapped_paths: [facts.services, svc, "svc/%{svc.0}.yaml"]'),
    ('ext', '    path: "ext/%{trusted.extensions.pp_role}.yaml"'),
    ('json', '    data_hash: json_data\n    path: "common.json"'),
    ('jsonrole', '    data_hash: json_data\n    path: "role/%{facts.role}.json"'),
    ('dd', '    datadir: "data2"\n    path: "%{facts.tier}.yaml"'),
    ('undef', '    path: "u/%{facts.nope}.yaml"'),
    ('undefv', '    path: "uv/%{nope_var}.yaml"'),
    ('common', '    path: "common.yaml"'),
]

def level_files(tag, body, facts, datadir='data'):
    """The data files (relative to env) that a level reads, for the given facts."""
    r = []
    if tag == 'glob':
        return ['data/glob/%s.yaml' % n for n in ['b', 'a', 'c10', 'c9']]
    if tag == 'globi':
        role = facts['role']
        return ['data/gi/%s-1.yaml' % role, 'data/gi/%s-0.yaml' % role, 'data/gi/other-1.yaml']
    if tag == 'globs':
        return ['data/gs/b1.yaml', 'data/gs/a1.yaml']
    if tag == 'mapped':
        return ['data/dc/%s.yaml' % d for d in facts['datacenters']] or ['data/dc/.yaml']
    if tag == 'mappedh':
        return ['data/svc/http.yaml', 'data/svc/ssh.yaml']
    if tag == 'paths':
        return ['data/' + interp_path('tier/%{facts.tier}.yaml', facts), 'data/' + interp_path('site/%{facts.site}.yaml', facts)]
    if tag == 'dd':
        return ['data2/' + interp_path('%{facts.tier}.yaml', facts)]
    line = body.strip().splitlines()[-1]
    p = line.split('"')[1]
    return ['data/' + interp_path(p, facts)]


def gen_env(rng, facts, strict=False):
    files = {}
    module = rng.choice(['m', 'mod', 'profile']) if rng.random() < 0.35 else None
    g = Gen(rng, facts, None, strict)
    # ---- hiera.yaml
    nlev = rng.choice([1, 2, 2, 3, 3, 4, 5])
    tags = [t for t in LEVELS if not (strict and t[0] in ('undef', 'undefv'))]
    chosen = rng.sample(tags[:-1], nlev - 1) + [LEVELS[-1]] if rng.random() < 0.8 else rng.sample(tags, nlev)
    names = ['L%d-%s' % (i, t) for i, (t, b) in enumerate(chosen)]
    if rng.random() < 0.02 and len(names) > 1:
        names[1] = names[0]    # duplicate hierarchy names: an error
    hy = 'version: 5\n'
    p = rng.random()
    if p < 0.6:
        hy += 'defaults:\n  datadir: data\n  data_hash: yaml_data\n'
    elif p < 0.63:
        hy += 'defaults:\n  datadir: data\n'   # no default function: an error for entries without one
    hy += 'hierarchy:\n'
    for name, (tag, body) in zip(names, chosen):
        hy += '  - name: "%s"\n%s\n' % (name, body)
    files['hiera.yaml'] = hy
    # ---- data files
    keys = list(TOP_KEYS)
    kinds = {k: rng.choice(['s', 'a', 'h', 'h', 'a']) for k in keys}
    kinds['h'] = 'h'; kinds['arr'] = 'a'; kinds['cfg'] = 'h'; kinds['lst'] = 'a'
    top_vals = {}
    for tag, body in chosen:
        fl = level_files(tag, body, facts)
        if tag in ('glob', 'globi', 'globs', 'mapped', 'mappedh', 'paths'):
            fl = [f for f in fl if rng.random() < 0.75] or fl[:1]
        for path in fl:
            if path in files:
                continue
            in_json = path.endswith('.json')
            if rng.random() < 0.06 and not in_json:
                files[path] = rng.choice(['', '---\n', '# nothing\n', '--- ~\n', '- a\n- b\n', 'just a string\n', '---\na: 1\n---\nb: 2\n'])
                continue
            if rng.random() < 0.03 and in_json:
                files[path] = rng.choice(['', '[1]', 'null', '{"a": 1, /* c */ "b": 2}', '{"a": 1, "a": 2}'])
                continue
            nk = rng.choice([2, 3, 4, 5, 6])
            ks = rng.sample(keys, nk)
            if rng.random() < 0.15:
                ks.append(rng.choice(SPECIAL_TOP))
            if in_json:
                d = {}
                for k in ks:
                    kind = kinds.get(k, 's') if rng.random() < 0.85 else None
                    v = g.value(kind, 1, in_json=True)
                    g.keys_defined.add(k)
                    g.collect_digs(k.strip('\'"') if k[0] not in '"\'' else k, v)
                    d[k.strip('\'"')] = to_json_value(v)
                if rng.random() < 0.3:
                    d['lookup_options'] = {rng.choice(keys + ['^a', '^h']): {'merge': rng.choice(['unique', 'deep', 'hash', {'strategy': 'deep', 'knockout_prefix': '--'}])}}
                files[path] = json.dumps(d, indent=rng.choice([None, 2]), ensure_ascii=False) + '\n'
                continue
            text = '---\n' if rng.random() < 0.7 else ''
            if rng.random() < 0.35:
                text += g.lopts(keys)
            anchor = None
            for k in ks:
                kind = kinds.get(k, 's') if rng.random() < 0.85 else None
                v = g.value(kind, 1)
                g.keys_defined.add(k)
                g.collect_digs(k, v)
                if k == 'nil_key':
                    text += 'nil_key:\n'
                    continue
                if anchor is None and v[0] == 'h' and v[1] and rng.random() < 0.1:
                    anchor = k
                    text += yaml_entry('%s: &anc' % k, v, rng).replace(': &anc:', ': &anc', 1)
                    continue
                text += yaml_entry(k, v, rng)
            if anchor and rng.random() < 0.7:
                text += rng.choice(['alias_of: *anc\n', 'merged:\n  <<: *anc\n  extra: 1\n'])
                g.keys_defined.add(rng.choice(['alias_of', 'merged']))
            if rng.random() < 0.04:
                text += rng.choice(['a: dup1\na: dup2\n', ':symkey: v\n', '1: intkey\n', 'yes: boolkey\n'])
            if EXOTIC_RATE:
                for _ in range(rng.choice([0, 1, 1, 2, 3]) if rng.random() < EXOTIC_RATE else 0):
                    k = rng.choice(keys + ['ex1', 'ex2'])
                    tpl = rng.choice(EXOTIC_BREAKING) if rng.random() < 0.03 else rng.choice(EXOTIC)
                    text += tpl.format(k=k, n=rng.randint(0, 99))
                    g.keys_defined.add(k)
                    for extra in ('x1', 'h2', 'nums', 'hinsp', 'a.b.c', '"a.b.c"', 'ex1.a', 'ex2.0', 'h2.b', 'h2.a'):
                        if extra.split('.')[0].strip('"') in tpl or extra in tpl:
                            g.keys_defined.add(extra)
                if rng.random() < 0.03 * EXOTIC_RATE:
                    text = text.replace('\n', '\r\n')
                if rng.random() < 0.03 * EXOTIC_RATE:
                    text = '\ufeff' + text
            files[path] = text
        # decoy file next to it that should never be read
        if rng.random() < 0.1:
            files['data/role/other.yaml'] = '---\na: decoy\n'
    # ---- module
    mkeys = []
    if module:
        gm = Gen(rng, facts, module, strict)
        g.module = module
        m = module
        mh = 'version: 5\nhierarchy:\n'
        p = rng.random()
        if p < 0.7:
            mh += '  - name: "mod role"\n    path: "role/%{facts.role}.yaml"\n  - name: "mod common"\n    path: "common.yaml"\n'
        elif p < 0.85:
            mh += '  - name: "mod common"\n    path: "common.yaml"\n'
        else:
            mh = 'version: 5\n'   # default hierarchy: data/common.yaml
        if rng.random() < 0.15:
            conv = '' if NO_KNOWN else (('lookup_options:\n  %s::dflt:\n    convert_to: Array\n' % m) if rng.random() < 0.5 else '')
            mh += 'default_hierarchy:\n  - name: "defaults"\n    path: "defaults.yaml"\n'
            files['modules/%s/data/defaults.yaml' % m] = '---\n%s::dflt: from-default\n%s::x: dx\n' % (m, m) + conv
            mkeys.append('%s::dflt' % m)
        if rng.random() < 0.95:
            files['modules/%s/hiera.yaml' % m] = mh
        else:
            if rng.random() < 0.8 or NO_KNOWN:
                files['modules/%s/metadata.json' % m] = ('{"name": "acme-%s", "version": "1.0.0", "author": "acme", "license": "Apache-2.0", '
                                                         '"summary": "x", "source": "x", "dependencies": [], "data_provider": "hiera"}\n' % m)
            else:   # Puppet ignores a metadata.json without source/author/license (MissingMetadata)
                files['modules/%s/metadata.json' % m] = '{"name": "acme-%s", "version": "1.0.0", "data_provider": "hiera"}\n' % m
        mroots = ['%s::x' % m, '%s::h' % m, '%s::arr' % m, '%s::s' % m, '%s::a' % m]
        mkinds = {'%s::x' % m: rng.choice(['s', 'a', 'h']), '%s::h' % m: 'h', '%s::arr' % m: 'a', '%s::s' % m: 's', '%s::a' % m: rng.choice(['a', 'h'])}
        for path in ['modules/%s/data/common.yaml' % m, 'modules/%s/data/role/%s.yaml' % (m, facts['role'])]:
            text = '---\n'
            if rng.random() < 0.4:
                text += gm.lopts(mroots)
            for k in rng.sample(mroots, rng.choice([2, 3, 4])):
                v = gm.value(mkinds[k] if rng.random() < 0.85 else None, 1)
                gm.collect_digs(k, v)
                gm.keys_defined.add(k)
                text += yaml_entry(k, v, rng)
            if rng.random() < 0.15:
                text += rng.choice(['unqualified: v\n', 'other::k: v\n', 'a: from-module\n'])
            files[path] = text
        # env data may also set module keys
        if rng.random() < 0.5:
            cf = next((f for f in files if f.startswith('data/') and f.endswith('.yaml') and files[f].startswith('---\n') and len(files[f]) > 5), None)
            if cf:
                k = rng.choice(mroots)
                v = g.value(mkinds[k], 1)
                g.collect_digs(k, v)
                files[cf] += yaml_entry(k, v, rng)
        mkeys += sorted(gm.keys_defined) + sorted(gm.dig_paths) + ['%s::nope' % m, '%s::x' % m]
    # ---- global layer ($codedir/hiera.yaml, the default hiera_config when it exists)
    if rng.random() < 0.12:
        files['@/hiera.yaml'] = 'version: 5\nhierarchy:\n  - name: "global"\n    path: "global.yaml"\n'
        text = '---\n'
        if rng.random() < 0.5:
            text += g.lopts(keys)
        for k in rng.sample(keys, 2):
            v = g.value(kinds.get(k, 's'), 1)
            g.keys_defined.add(k)
            g.collect_digs(k, v)
            text += yaml_entry(k, v, rng)
        files['@/data/global.yaml'] = text
    # ---- rare environment config variations
    p = rng.random()
    if p < 0.015:
        del files['hiera.yaml']      # no environment layer at all
    elif p < 0.025:
        files['hiera.yaml'] = files['hiera.yaml'].replace('version: 5', 'version: 4', 1)
    elif p < 0.035:
        files['hiera.yaml'] = '---\n:backends: [yaml]\n:hierarchy: [common]\n:yaml:\n  :datadir: data\n'
    # ---- keys file
    lk = sorted(g.keys_defined)
    digs = sorted(g.dig_paths)
    rng.shuffle(digs)
    ks = lk + digs[:12] + mkeys + ['missing', rng.choice(['lookup_options', 'lookup_options.a', 'nope.x', '"a.b"', 'a.b', "'x y'", 'x y'])]
    if rng.random() < 0.2:
        ks.append(rng.choice(['a..b', "''", "'pa'key", '::m::x', 'm::', 'A::b']))
    seen, out = set(), []
    for k in ks:
        if k not in seen:
            seen.add(k)
            out.append(k)
    return files, out

# ------------------------------------------------------------------------------------ running

def write_env(root, files):
    envd = os.path.join(root, 'environments', 'production')
    os.makedirs(envd, exist_ok=True)
    for rel, text in files.items():
        # '@/x' is relative to the codedir (the global layer), anything else to the environment
        p = os.path.join(root, rel[2:]) if rel.startswith('@/') else os.path.join(envd, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, 'w', newline='', encoding='utf-8') as fh:
            fh.write(text)

def parse_lines(text, keys):
    res = {}
    for line in text.split("\n"):
        line = line.strip()
        if not line.startswith('{'):
            continue
        try:
            o = json.loads(line)
        except ValueError:
            continue
        res.setdefault(o.get('key'), o)
    return [res.get(k, {'key': k, 'tool_failure': True}) for k in keys]

def run_oracle(root, facts_file, keys_file, keys, merge, strict):
    env = dict(os.environ)
    if strict:
        env['ORACLE_STRICT'] = 'error'
    else:
        env.pop('ORACLE_STRICT', None)
    env['ORACLE_WARNINGS_FILE'] = os.path.join(root, 'warnings-%s.jsonl' % (merge or 'none'))
    cmd = ['nice', 'ruby', ORACLE, root, 'production', facts_file, keys_file] + ([merge] if merge else [])
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    return parse_lines(p.stdout, keys), p.stdout + ('\n# stderr:\n' + p.stderr if p.stderr.strip() else '')

def run_hl(root, facts_file, keys_file, keys, merge, strict):
    cmd = [HL, 'lookup', '--codedir', root, '--environment', 'production', '--facts', facts_file, '--keys-file', keys_file,
           '--format', 'jsonl', '--puppet', '8' if strict else '7'] + (['--merge', merge] if merge else [])
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        return parse_lines(p.stdout, keys), p.stdout + ('\n# stderr (rc=%d):\n' % p.returncode + p.stderr if p.stderr.strip() else '')
    except subprocess.TimeoutExpired:
        return [{'key': k, 'tool_failure': True, 'timeout': True} for k in keys], 'TIMEOUT'

NONFINITE = {'Infinity': float('inf'), '-Infinity': float('-inf'), 'NaN': float('nan')}

def strict_eq(a, b):
    """JSON equality with hash key order and int/float/bool kinds. hieralint's jsonl writes the
    non-finite floats Ruby prints as Infinity/-Infinity/NaN as strings (JSON has no such numbers):
    an output-format difference only, accepted here."""
    if isinstance(a, float) and a in (float('inf'), float('-inf')) or (isinstance(a, float) and a != a):
        if isinstance(b, str) and b in NONFINITE:
            b = NONFINITE[b]
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a.keys()) == list(b.keys()) and all(strict_eq(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(strict_eq(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and a != a:
        return b != b
    return a == b

def classify(o, h):
    """None when they agree, else a short label."""
    if o.get('tool_failure') or h.get('tool_failure'):
        return 'tool-failure'
    if 'error' in o or 'error' in h:
        if 'error' in o and 'error' in h:
            return None
        return 'error-mismatch'
    if o.get('not_found') or h.get('not_found'):
        return None if o.get('not_found') and h.get('not_found') else 'found-mismatch'
    if strict_eq(o.get('value'), h.get('value')):
        return None
    if o.get('value') == h.get('value'):
        return 'order-or-kind'
    return 'value'

def first_line(msg):
    # the oracle keeps the first line of Puppet's message, stripped; hieralint gives all of it
    return (msg or '').strip().split('\n')[0].strip() if msg is not None else None

def compare_case(root, facts, keys, merges, strict):
    facts_file = os.path.join(root, 'facts.json')
    keys_file = os.path.join(root, 'keys')
    with open(facts_file, 'w') as fh:
        json.dump(facts, fh)
    with open(keys_file, 'w') as fh:
        fh.write('\n'.join(keys) + '\n')
    results = []
    for merge in merges:
        m = None if merge == 'none' else merge
        ores, otext = run_oracle(root, facts_file, keys_file, keys, m, strict)
        hres, htext = run_hl(root, facts_file, keys_file, keys, m, strict)
        diffs, msgdiffs = [], []
        for o, h in zip(ores, hres):
            c = classify(o, h)
            if c:
                diffs.append((c, o, h))
            elif 'error' in o and o['error'] != first_line(h.get('error')):
                msgdiffs.append((o, h))
        results.append((merge, ores, hres, otext, htext, diffs, msgdiffs))
    return results

def save_case(outdir, name, files, facts, keys, res, strict):
    d = os.path.join(outdir, name)
    if os.path.exists(d):
        shutil.rmtree(d)
    write_env(os.path.join(d, 'codedir'), files)
    with open(os.path.join(d, 'facts.json'), 'w') as fh:
        json.dump(facts, fh)
    with open(os.path.join(d, 'keys'), 'w') as fh:
        fh.write('\n'.join(keys) + '\n')
    with open(os.path.join(d, 'diff.txt'), 'w') as fh:
        fh.write('strict=%s\n' % strict)
        for merge, ores, hres, otext, htext, diffs, msgdiffs in res:
            with open(os.path.join(d, 'oracle-%s.jsonl' % merge), 'w') as f2:
                f2.write(otext)
            with open(os.path.join(d, 'hl-%s.jsonl' % merge), 'w') as f2:
                f2.write(htext)
            for c, o, h in diffs:
                fh.write('[%s] merge=%s key=%s\n  puppet: %s\n  hl:     %s\n' % (c, merge, o['key'], json.dumps(o, ensure_ascii=False), json.dumps(h, ensure_ascii=False)))
            for o, h in msgdiffs:
                fh.write('[msg] merge=%s key=%s\n  puppet: %s\n  hl:     %s\n' % (merge, o['key'], o.get('error'), h.get('error')))

def load_tree(codedir):
    envd = os.path.join(codedir, 'environments', 'production')
    files = {}
    for dp, dn, fn in os.walk(codedir):
        for f in fn:
            p = os.path.join(dp, f)
            r = os.path.relpath(p, envd)
            files[r if not r.startswith('..') else '@/' + os.path.relpath(p, codedir)] = open(p).read()
    return files

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--n', type=int, default=20)
    ap.add_argument('--merges', default='none,deep,+')  # '+' = one extra random of first/unique/hash
    ap.add_argument('--strict', action='store_true')
    ap.add_argument('--out', default=os.path.join(HERE, 'out'))
    ap.add_argument('--run-name', default=None)
    ap.add_argument('--replay', default=None, help='a saved case dir (codedir/, facts.json, keys)')
    ap.add_argument('--exotic', type=float, default=0.0)
    ap.add_argument('--no-known', action='store_true', help='no convert_to, no incomplete metadata.json (known disagreements)')
    ap.add_argument('--stats', default=None, help='append per-env stats as JSON lines here')
    a = ap.parse_args()

    global NO_KNOWN
    NO_KNOWN = a.no_known
    global EXOTIC_RATE
    EXOTIC_RATE = a.exotic
    if a.replay:
        files = load_tree(os.path.join(a.replay, 'codedir'))
        facts = json.load(open(os.path.join(a.replay, 'facts.json')))
        keys = [k for k in open(os.path.join(a.replay, 'keys')).read().splitlines() if k]
        tmp = tempfile.mkdtemp(prefix='difftest-')
        write_env(tmp, files)
        res = compare_case(tmp, facts, keys, [m for m in a.merges.split(',') if m != '+'], a.strict)
        for merge, ores, hres, otext, htext, diffs, msgdiffs in res:
            for o, h in zip(ores, hres):
                c = classify(o, h)
                mark = 'DIFF ' + c if c else ('msg  ' if 'error' in o and o['error'] != first_line(h.get('error')) else 'ok   ')
                print('%s merge=%s\n    puppet: %s\n    hl:     %s' % (mark, merge, json.dumps(o, ensure_ascii=False), json.dumps(h, ensure_ascii=False)))
        shutil.rmtree(tmp)
        return

    run = a.run_name or ('%s-seed%d' % ('strict' if a.strict else 'p7', a.seed))
    outdir = os.path.join(a.out, run)
    os.makedirs(outdir, exist_ok=True)
    totals = {}
    t0 = time.time()
    for i in range(a.n):
        rng = random.Random('%d-%d' % (a.seed, i))
        fname, facts = make_facts(rng)
        files, keys = gen_env(rng, facts, a.strict)
        merges = []
        for m in a.merges.split(','):
            merges.append(rng.choice(['first', 'unique', 'hash']) if m == '+' else m)
        tmp = tempfile.mkdtemp(prefix='difftest-')
        try:
            write_env(tmp, files)
            res = compare_case(tmp, facts, keys, merges, a.strict)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        nd = 0
        for merge, ores, hres, otext, htext, diffs, msgdiffs in res:
            t = totals.setdefault(merge, {'envs': 0, 'lookups': 0, 'agree': 0, 'diff': 0, 'msgdiff': 0})
            t['envs'] += 1
            t['lookups'] += len(keys)
            t['diff'] += len(diffs)
            t['agree'] += len(keys) - len(diffs)
            t['msgdiff'] += len(msgdiffs)
            nd += len(diffs) + len(msgdiffs)
        if nd:
            save_case(outdir, 'case-%04d' % i, files, facts, keys, res, a.strict)
        if a.stats:
            with open(a.stats, 'a') as fh:
                fh.write(json.dumps({'run': run, 'i': i, 'facts': fname, 'keys': len(keys), 'merges': merges,
                                     'diffs': sum(len(r[5]) for r in res), 'msgdiffs': sum(len(r[6]) for r in res)}) + '\n')
        print('[%s] env %d/%d keys=%d merges=%s diffs=%s  (%.0fs)' % (run, i + 1, a.n, len(keys), ','.join(merges),
              [len(r[5]) for r in res], time.time() - t0), flush=True)
    with open(os.path.join(outdir, 'totals.json'), 'w') as fh:
        json.dump(totals, fh, indent=1)
    print(json.dumps(totals, indent=1))

if __name__ == '__main__':
    main()
