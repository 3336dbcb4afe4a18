from base import case, L, each_merge, H3, H1, MOD_H

case('yaml/scalars', {
    'hiera.yaml': H1,
    'data/common.yaml': r"""---
yes_: yes
Yes_: Yes
on_: on
off_: off
no_: no
y_: y
n_: n
true_: TRUE
tilde: ~
null_: Null
octal: 017
octal_o: 0o17
hex: 0x1F
bin: 0b101
underscore: 1_000
comma: 1,000
eight: 08
sexa: 1:20
sexa3: 12:30:00
inf: .inf
ninf: -.inf
nan: .nan
e3: 1e3
e3plus: 1e+3
float_e: 1.0e+3
dot12: 12.
plus12: +12
neg: -7
float: 3.14
quoted_num: "42"
sym: :sym
sym_quoted: ":sym"
binary: !!binary aGVsbG8=
str_tag: !!str 123
int_tag: !!int "7"
float_tag: !!float "2"
local_tag: !foo bar
empty_str: ""
multiline: |
  line1
  line2
folded: >
  a
  b
big_int: 123456789012345678901234567890
neg_zero: -0
zero_float: 0.0
""",
}, [L(k) for k in ['yes_', 'Yes_', 'on_', 'off_', 'no_', 'y_', 'n_', 'true_', 'tilde', 'null_', 'octal', 'octal_o', 'hex', 'bin',
                   'underscore', 'comma', 'eight', 'sexa', 'sexa3', 'inf', 'ninf', 'nan', 'e3', 'e3plus', 'float_e', 'dot12', 'plus12',
                   'neg', 'float', 'quoted_num', 'sym', 'sym_quoted', 'binary', 'str_tag', 'int_tag', 'float_tag', 'local_tag',
                   'empty_str', 'multiline', 'folded', 'big_int', 'neg_zero', 'zero_float']],
  readme='YAML 1.1 scalar resolution with Psych 4 as looked-up values (reference §6.1).')

case('yaml/anchors-merge-keys-duplicates', {
    'hiera.yaml': H1,
    'data/common.yaml': r"""---
base: &base {a: 1, b: 2}
derived:
  <<: *base
  b: 3
multi_merge:
  <<: [*base, {c: 4}]
  a: 0
alias_list: &lst [x, y]
uses_list: *lst
dup: first
dup: second
nested_dup: {k: 1, k: 2}
""",
}, [L(k) for k in ['base', 'derived', 'multi_merge', 'uses_list', 'dup', 'nested_dup']],
  readme='anchors, aliases, << merge keys, duplicate keys last-wins (reference §6.1).')

case('yaml/binary-tags', {
    'hiera.yaml': H1,
    # Base64 of "hello", "%{lookup("a")}" and "%{lookup("loop_binary")}": a binary tag decodes
    # however it is spelled (!!binary, a %TAG handle, a URI escape), and what it decodes to is
    # interpolated like any string.
    'data/common.yaml': r"""%TAG !b! tag:yaml.org,2002:bin
---
a: value of a
plain_binary: !!binary aGVsbG8=
handle_binary: !b!ary aGVsbG8=
escaped_binary: !!bin%61ry aGVsbG8=
interp_handle: !b!ary JXtsb29rdXAoImEiKX0=
interp_escaped: !!bin%61ry JXtsb29rdXAoImEiKX0=
loop_binary: !b!ary JXtsb29rdXAoImxvb3BfYmluYXJ5Iil9
""",
}, [L(k) for k in ['plain_binary', 'handle_binary', 'escaped_binary', 'interp_handle',
                   'interp_escaped', 'loop_binary']],
  readme='binary tags spelled through a %TAG handle or a URI escape decode like !!binary, and '
         'the decoded text is interpolated (reference §6.1).')

def mod_file(name, text):
    return {'modules/%s/hiera.yaml' % name: MOD_H, 'modules/%s/data/common.yaml' % name: text}

files = {'hiera.yaml': H1}
variants = [
    ('date', "---\nfdate::k: 2001-12-14\n"),
    ('timestamp', "---\nftimestamp::k: 2001-12-14 21:59:43.10 -5\n"),
    ('quoteddate', "---\nfquoteddate::k: '2001-12-14'\n"),
    ('rubyobj', "---\nfrubyobj::k: !ruby/object:Puppet::Graph::Key {}\n"),
    ('rubysym', "---\nfrubysym::k: !ruby/symbol foo\n"),
    ('set', "---\nfset::k: !!set {a, b}\n"),
    ('omap', "---\nfomap::k: !!omap [{b: 1}, {a: 2}]\n"),
    ('empty', ""),
    ('dashes', "---\n"),
    ('comment', "# just a comment\n"),
    ('tilde', "--- ~\n"),
    ('list', "---\n- a\n- b\n"),
    ('scalar', "--- just a string\n"),
    ('number', "--- 42\n"),
    ('falsedoc', "--- false\n"),
    ('multidoc', "---\nfmultidoc::k: first\n---\nfmultidoc::k: second\nfmultidoc::only2: x\n"),
    ('syntax', "---\nfsyntax::k: [unclosed\n"),
    ('tab', "---\nftab::k:\n\t- a\n"),
    ('unquoted', "---\nfunquoted::k: %{facts.role}\n"),
    ('badutf', b"---\nfbadutf::k: \xff\xfe\n"),
    ('bom', "\ufeff---\nfbom::k: bom\n"),
    ('symval', "---\nfsymval::k:\n  - :a\n  - :b\nfsymval::ok: fine\n"),
    ('nestedbool', "---\nfnestedbool::k: {true: x}\n"),
    ('nestednil', "---\nfnestednil::k: {~: x}\n"),
    ('nestedarr', "---\nfnestedarr::k: {[1, 2]: x}\n"),
]
lookups = []
for n, text in variants:
    files.update(mod_file('f' + n, text))
    lookups.append(L('f%s::k' % n))
lookups += [L('fmultidoc::only2'), L('fsymval::ok'), L('fempty::k', explain=True), L('flist::k', explain=True)]
case('yaml/file-shapes-and-errors', files, lookups,
     readme='one module per YAML file variant: dates, ruby tags, sets, empty/---/comment-only/~ files, list/scalar documents, multi-doc, syntax errors, invalid nested keys (reference §6.1, §6.5).')

# A UTF-8 BOM at the start of a YAML file: Puppet reads the file with `encoding: 'utf-8'` (the
# mark stays in the string) and libyaml skips it at column 0 of a line but counts it as a column
# (`yaml_parser_scan_to_next_token`: SKIP moves mark.column), so line 1 starts at column 1. A
# block collection started there ends at the first line back at column 0, and Psych.parse returns
# the first document without reading on (the rest is a second document it never parses).
bom_variants = [
    ('bmap', "\ufeffbmap::a: 1\nbmap::b: 2\n", ['a', 'b']),
    ('bnest', "\ufeffbnest::a:\n bnest::x: 1\n", ['a', 'x']),
    ('bind', "\ufeffbind::a: 1\n bind::b: 2\n", ['a', 'b']),
    ('bdeep', "\ufeffbdeep::a:\n  x: 1\nbdeep::b: 2\n", ['a', 'b']),
    ('bcom', "\ufeff# comment\nbcom::a: 1\nbcom::b: 2\n", ['a', 'b']),
    ('bblank', "\ufeff\nbblank::a: 1\nbblank::b: 2\n", ['a', 'b']),
    ('bflow', "\ufeff{bflow::a: 1, bflow::b: 2}\n", ['a', 'b']),
    ('bblock', "\ufeffbblock::a: |\n x\nbblock::b: 2\n", ['a', 'b']),
    ('blater', "\ufeffblater::a: 1\nblater::b: [\n", ['a', 'b']),
    ('blist', "\ufeff- 1\n- 2\n", ['a']),
    ('bspace', "\ufeff  bspace::a: 1\n  bspace::b: 2\n", ['a', 'b']),
]
bfiles = {'hiera.yaml': H1}
blookups = []
for n, text, keys in bom_variants:
    bfiles.update(mod_file(n, text))
    blookups += [L('%s::%s' % (n, k)) for k in keys]
blookups.append(L('bmap::a', explain=True))
case('yaml/bom-shifts-line-one', bfiles, blookups,
     readme='a byte order mark counts as a column of line 1: a block mapping or sequence that starts there ends at the first line at column 0, and Psych reads only that first part (reference §6.1).')

case('yaml/env-non-hash-file', {
    'hiera.yaml': H3,
    'data/nodes/web01.example.com.yaml': "---\n- a\n- b\n",
    'data/role/web.yaml': "",
    'data/common.yaml': "---\nk: common\n",
}, [L('k'), L('k', 'unique'), L('missing')],
  readme='a list document and an empty file in the environment layer under both strict modes (reference §6.1, §11).')

# A glob of the environment that reads a module's data file that is not a Hash: the warning is
# logged when the environment's lookup_options are first assembled, and the module's own layer
# reads the same file when a key of the module is first looked up. Each line here is recorded in
# a compile of its own (every one warns); in one compile Puppet warns once, at the first read
# (tests/engine_shared.rs, a_module_file_read_by_an_environment_glob_warns_once_per_compile,
# recorded with the batch oracle).
case('yaml/env-glob-reads-module-non-hash-file', {
    'hiera.yaml': """version: 5
defaults:
  datadir: "."
  data_hash: yaml_data
hierarchy:
  - name: "deep"
    globs: ["*/*/*/*"]
  - name: "common"
    path: "common.yaml"
""",
    'common.yaml': "---\na: 1\nb: 2\n",
    'modules/m/hiera.yaml': MOD_H,
    'modules/m/data/common.yaml': "- not\n- a hash\n",
}, [L('a'), L('m::k'), L('b'), L('m::j'), L('a')],
  readme='an environment glob reads a module data file that is not a Hash; the module layer reads it again at its first key (reference §6.1).')

# ---------------------------------------------------------------- JSON
JH = """version: 5
defaults: {datadir: data, data_hash: json_data}
hierarchy:
  - name: "Common"
    path: "common.json"
"""
def jmod(name, text):
    return {'modules/%s/hiera.yaml' % name: JH.replace('common.json', 'common.json'), 'modules/%s/data/common.json' % name: text}
jfiles = {'hiera.yaml': JH, 'data/common.json': """{
  "str": "s",
  "int": 1,
  "float": 1.5,
  "exp": 1e3,
  "bool": true,
  "nil": null,
  "arr": [1, "two", null],
  "hash": {"a": {"b": "c"}},
  "interp": "%{facts.role}-%{trusted.certname}",
  "alias": "%{alias('arr')}",
  "unicode": "caf\\u00e9 \u2713",
  "dup": 1,
  "dup": 2,
  "big": 12345678901234567890
}
"""}
jvariants = [
    ('empty', ""),
    ('array', "[1, 2]"),
    ('null', "null"),
    ('string', "\"str\""),
    ('comment', "/* comment */ {\"jcomment::k\": \"v\"}"),
    ('linecomment', "// comment\n{\"jlinecomment::k\": \"v\"}"),
    ('syntax', "{\"jsyntax::k\": }"),
    ('trailing', "{\"jtrailing::k\": \"v\",}"),
    ('nan', "{\"jnan::k\": NaN}"),
    ('ws', "   \n"),
]
jl = [L(k) for k in ['str', 'int', 'float', 'exp', 'bool', 'nil', 'arr', 'hash', 'hash.a.b', 'interp', 'alias', 'unicode', 'dup', 'big']]
for n, text in jvariants:
    jfiles.update(jmod('j' + n, text))
    jl.append(L('j%s::k' % n))
case('json/values-and-file-errors', jfiles, jl,
     readme='json_data: value types, interpolation, duplicate keys; empty, non-object, comment, trailing comma and syntax-error files (reference §6.2).')

# ---------------------------------------------------------------- HOCON
HH = """version: 5
defaults: {datadir: data, data_hash: hocon_data}
hierarchy:
  - name: "Common"
    path: "common.conf"
"""
hfiles = {'hiera.yaml': HH, 'data/common.conf': """base = "b"
sub = ${base}"-suffix"
a.b.c = 1
"quoted.key" = 2
list = [1, 2, ${base}]
obj { x = 1, y = [a, b] }
obj { z = true }
interp = "%{facts.role}"
multi = \"\"\"line1
line2\"\"\"
nullv = null
env_sub = ${?NO_SUCH_ENV_VAR_HIERALINT}
dur = 10 seconds
"""}
hvariants = [
    ('empty', ""),
    ('syntax', "hsyntax::k = {\n"),
    ('unresolved', "\"hunresolved::k\" = ${missing}\n"),
    ('list', "[1, 2]\n"),
]
hl = [L(k) for k in ['base', 'sub', 'a', 'a.b.c', '"quoted.key"', 'quoted.key', 'list', 'obj', 'interp', 'multi', 'nullv', 'env_sub', 'dur']]
for n, text in hvariants:
    hfiles.update({'modules/h%s/hiera.yaml' % n: HH, 'modules/h%s/data/common.conf' % n: text})
    hl.append(L('h%s::k' % n))
case('hocon/values-and-file-errors', hfiles, hl,
     readme='hocon_data: substitutions, dotted keys, object merging; empty, syntax-error, unresolved and non-object files (reference §6.3).')
