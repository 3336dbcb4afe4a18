from base import case, L, each_merge, H3, H1, MOD_H

case('lopts/matching-and-priority', {
    'hiera.yaml': H3,
    'data/nodes/web01.example.com.yaml': """---
lookup_options:
  node_lit: {merge: unique}
c: {x: [node]}
cc: {x: [node]}
b: [node]
lit_vs_pat: [node]
node_lit: [node]
prefixed_key: [node]
sub: {a: {n: 1}}
""",
    'data/role/web.yaml': """---
lookup_options:
  "^c": {merge: unique}
  lit_vs_pat: {merge: unique}
c: {x: [role]}
cc: {x: [role]}
b: [role]
lit_vs_pat: [role]
node_lit: [role]
prefixed_key: [role]
""",
    'data/common.yaml': """---
lookup_options:
  "^[^b]$": {merge: deep}
  "^l": {merge: deep}
  "^pre": {merge: {strategy: deep, knockout_prefix: "--"}}
  "key$": {merge: unique}
  "^sub": {merge: deep}
  b: {merge: unique}
c: {x: [common]}
cc: {x: [common]}
b: [common]
lit_vs_pat: [common]
prefixed_key: [common]
sub: {a: {c: 1}}
""",
}, [L('c'), L('cc'), L('b'), L('lit_vs_pat'), L('node_lit'), L('prefixed_key'), L('sub.a'), L('sub'), L('c', 'first'), L('b', 'deep'),
    L('lookup_options'), L('lookup_options.b'), L('lookup_options', 'hash'), L('c', explain=True)],
  readme='literal beats pattern, first pattern in merged order wins, patterns match the root key, lookup_options key is reserved (reference §3.1-§3.3).')

case('lopts/env-wins-over-module', {
    'hiera.yaml': H1,
    'data/common.yaml': """---
lookup_options:
  m::a: {merge: unique}
  "^m::p": {merge: deep}
m::a: [env]
m::pat: {x: [env]}
""",
    'modules/m/hiera.yaml': MOD_H,
    'modules/m/data/common.yaml': """---
lookup_options:
  m::a: {merge: first}
  "^m::": {merge: hash}
  m::only_mod_opts: {merge: unique}
m::a: [mod]
m::pat: {x: [mod], y: 1}
m::only_mod_opts: [mod]
""",
}, [L('m::a'), L('m::pat'), L('m::only_mod_opts'), L('m::a', explain=True)],
  readme='environment lookup_options beat module ones; module patterns are ordered first (reference §3.2).')

case('lopts/null-and-non-hash', {
    'hiera.yaml': H3,
    'data/nodes/web01.example.com.yaml': "---\nlookup_options:\nk: [node]\n",
    'data/role/web.yaml': "---\nlookup_options:\n  k: {merge: unique}\nk: [role]\n",
    'data/common.yaml': "---\nk: [common]\n",
}, [L('k'), L('k', 'unique'), L('other')],
  readme='null lookup_options in one level next to a hash in another (reference §3.2.5).')

case('lopts/single-null', {
    'hiera.yaml': H3,
    'data/role/web.yaml': "---\nlookup_options:\nk: [role]\n",
    'data/common.yaml': "---\nk: [common]\n",
}, [L('k'), L('k', 'unique')], readme='a single empty lookup_options is ignored (reference §3.2.5).')

case('lopts/string-lookup-options', {
    'hiera.yaml': H1,
    'data/common.yaml': "---\nlookup_options: just a string\nk: v\n",
}, [L('k')], readme='lookup_options that is not a hash (reference §2.5).')

case('lopts/symbol-lookup-options', {
    'hiera.yaml': H1,
    'data/common.yaml': "---\nlookup_options: :sym\nk: v\n",
}, [L('k')], readme='lookup_options symbol value fails value validation (reference §3.1).')

case('lopts/entry-shapes', {
    'hiera.yaml': H3,
    'data/role/web.yaml': """---
str_entry: [role]
merge_substr: [role]
arr_entry: [role]
nil_entry: [role]
unknown_keys: [role]
merge_hash_form: {a: [role]}
merge_hash_one: [role]
bad_name: [role]
bad_opt: [role]
merge_null: [role]
""",
    'data/common.yaml': """---
lookup_options:
  str_entry: first
  merge_substr: "unmerged"
  arr_entry: [merge, unique]
  nil_entry: ~
  unknown_keys: {merge: unique, frobnicate: 1}
  merge_hash_form: {merge: {strategy: deep, merge_hash_arrays: true}}
  merge_hash_one: {merge: {strategy: unique}}
  bad_name: {merge: Unique}
  bad_opt: {merge: {strategy: unique, knockout_prefix: "--"}}
  merge_null: {merge: ~}
str_entry: [common]
merge_substr: [common]
arr_entry: [common]
nil_entry: [common]
unknown_keys: [common]
merge_hash_form: {a: [common]}
merge_hash_one: [common]
bad_name: [common]
bad_opt: [common]
merge_null: [common]
""",
}, [L(k) for k in ['str_entry', 'merge_substr', 'arr_entry', 'nil_entry', 'unknown_keys', 'merge_hash_form', 'merge_hash_one', 'bad_name',
                   'bad_opt', 'merge_null']] + [L('bad_name', 'first'), L('unknown_keys', 'deep')],
  readme='lookup_options entry shapes: strings, arrays, nil, unknown option keys, merge as string vs hash, invalid names/options (reference §3.4, §4.6).')

case('lopts/convert-to-string-format', {
    'hiera.yaml': H1,
    'data/common.yaml': """---
lookup_options:
  fx_int: {convert_to: [String, "%x"]}
  fo_int: {convert_to: [String, "%o"]}
  fb_int: {convert_to: [String, "%b"]}
  fd_int: {convert_to: [String, "%d"]}
  fX_int: {convert_to: [String, "%X"]}
  fs_int: {convert_to: [String, "%s"]}
  fp_str: {convert_to: [String, "%p"]}
  fs_str: {convert_to: [String, "%s"]}
  fx_str: {convert_to: [String, "%x"]}
  fx_hash: {convert_to: [String, "%x"]}
  fx_arr: {convert_to: [String, "%x"]}
  fx_float: {convert_to: [String, "%x"]}
  ff_float: {convert_to: [String, "%f"]}
  fx_bool: {convert_to: [String, "%x"]}
  fd_str: {convert_to: [String, "%d"]}
  fxp_int: {convert_to: [String, "%#x"]}
  f5d_int: {convert_to: [String, "%5d"]}
  fx_neg: {convert_to: [String, "%x"]}
  fx_undef: {convert_to: [String, "%x"]}
  fp_undef: {convert_to: [String, "%p"]}
  fs_undef: {convert_to: [String, "%-4s"]}
fx_int: 255
fo_int: 8
fb_int: 5
fd_int: 42
fX_int: 255
fs_int: 42
fp_str: abc
fs_str: abc
fx_str: abc
fx_hash: {a: 1}
fx_arr: [1, 2]
fx_float: 1.5
ff_float: 1.5
fx_bool: true
fd_str: "12"
fxp_int: 255
f5d_int: 42
fx_neg: -255
fx_undef: ~
fp_undef: ~
fs_undef: ~
""",
}, [L(k) for k in ['fx_int', 'fo_int', 'fb_int', 'fd_int', 'fX_int', 'fs_int', 'fp_str', 'fs_str', 'fx_str', 'fx_hash', 'fx_arr', 'fx_float', 'ff_float', 'fx_bool', 'fd_str', 'fxp_int', 'f5d_int', 'fx_neg', 'fx_undef', 'fp_undef', 'fs_undef']],
  readme='convert_to [String, format]: String.new with a format string, per value type: Integer in hex, octal, binary and decimal (with flags and width), Float, String, Boolean, and the formats a Hash, an Array or a String refuse (reference §3.3).')

case('lopts/convert-to-string-rendering', {
    'hiera.yaml': H1,
    'data/common.yaml': r"""---
lookup_options:
  s_float: {convert_to: String}
  s_tenth: {convert_to: String}
  s_big: {convert_to: String}
  s_negf: {convert_to: String}
  s_inf: {convert_to: String}
  s_ninf: {convert_to: String}
  s_nan: {convert_to: String}
  s_farr: {convert_to: String}
  s_fhash: {convert_to: String}
  s_undef: {convert_to: String}
  s_top_undef: {convert_to: String}
  s_esc: {convert_to: String}
  s_quote: {convert_to: String}
  s_uni: {convert_to: String}
  s_bools: {convert_to: String}
  s_nested: {convert_to: String}
  s_intkey: {convert_to: String}
  s_str_top: {convert_to: String}
  s_empty: {convert_to: String}
s_float: 1.5
s_tenth: 0.1
s_big: 1.0e+20
s_negf: -2.0
s_inf: .inf
s_ninf: -.inf
s_nan: .nan
s_farr: [1.5, 2]
s_fhash: {a: 0.25}
s_undef: [~, a, {k: ~}]
s_top_undef: ~
s_esc: ["a\\b", "tab\tx", "nl\nx"]
s_quote: ["it's", "say \"hi\""]
s_uni: ["é", "\u0001"]
s_bools: [true, false, 42, -7]
s_nested: [[1, [2]], {}]
s_intkey: {1: 2, true: x}
s_str_top: "tab\tx"
s_empty: ["", []]
""",
}, [L(k) for k in ['s_float', 's_tenth', 's_big', 's_negf', 's_inf', 's_ninf', 's_nan', 's_farr', 's_fhash', 's_undef', 's_top_undef', 's_esc', 's_quote', 's_uni', 's_bools', 's_nested', 's_intkey', 's_str_top', 's_empty']],
  readme='convert_to String without a format: how String.new renders Floats (top level and inside collections), Infinity and NaN, undef, quoting and escapes of strings inside collections, non-String keys (reference §3.3).')

case('lopts/convert-to-new-variants', {
    'hiera.yaml': H1,
    'data/common.yaml': r"""---
lookup_options:
  h_str: {convert_to: Hash}
  h_empty: {convert_to: Hash}
  i_hash: {convert_to: Integer}
  i_hash_radix: {convert_to: Integer}
  i_abs: {convert_to: [Integer, 10, true]}
  f_hash: {convert_to: Float}
  f_abs: {convert_to: [Float, true]}
  a_int: {convert_to: Array}
  a_zero: {convert_to: Array}
  b_empty: {convert_to: Boolean}
  b_upper: {convert_to: Boolean}
  f_bad: {convert_to: Float}
  a_float: {convert_to: Array}
  a_neg: {convert_to: Array}
h_str: "abcd"
h_empty: ""
i_hash: {from: "-3", abs: true}
i_hash_radix: {from: "ff", radix: 16}
i_abs: "-42"
f_hash: {from: "1.5"}
f_abs: -2.5
a_int: 3
a_zero: 0
b_empty: ""
b_upper: "YES"
f_bad: "x"
a_float: 1.5
a_neg: -7
""",
}, [L(k) for k in ['h_str', 'h_empty', 'i_hash', 'i_hash_radix', 'i_abs', 'f_hash', 'f_abs', 'a_int', 'a_zero', 'b_empty', 'b_upper', 'f_bad', 'a_float', 'a_neg']],
  readme='the new() dispatches convert_to reaches beyond the plain ones: Hash from a String (character pairs), Integer and Float from a {from, radix, abs} hash and with abs, Array from an Integer (0..n-1; a negative one is not Iterable), Boolean from an empty or upper-case String, and the dispatcher each error names (reference §3.3).')

case('lopts/convert-to-hash', {
    'hiera.yaml': H1,
    'data/common.yaml': r"""---
lookup_options:
  "^h_": {convert_to: Hash}
h_int4: 4
h_int0: 0
h_int3: 3
h_int1: 1
h_neg: -2
h_str_odd: "abc"
h_float: 1.5
h_bool: true
h_arr_odd: [a, b, c]
h_arr_even: [a, 1, b, 2]
h_arr_empty: []
h_tuples: [[a, 1], [b, 2]]
h_tuples_mixed: [[a, 1], b]
h_tree: [[[a], 1], [[b, c], 2]]
h_hash: {x: 1}
""",
}, [L(k) for k in ['h_int4', 'h_int0', 'h_int3', 'h_int1', 'h_neg', 'h_str_odd', 'h_float', 'h_bool', 'h_arr_odd', 'h_arr_even', 'h_arr_empty', 'h_tuples', 'h_tuples_mixed', 'h_tree', 'h_hash']],
  readme='convert_to Hash through each branch of new_hash (types.rb PHashType.new_function): tuples, a tree array without an option, a flat Array in pairs (odd: "odd number of arguments for Hash"), an Integer taken as its times (0..n-1 in pairs; a negative one is not Iterable), a String in character pairs, and the TypeConversionError for other values, raised in the function body and so named without the dispatcher (reference §3.3).')

case('lopts/convert-to-named-args', {
    'hiera.yaml': H1,
    'data/common.yaml': r"""---
lookup_options:
  "^i_": {convert_to: Integer}
  "^f_": {convert_to: Float}
  p_badradix: {convert_to: [Integer, 3]}
i_empty: {}
i_two_unrec: {x: 1, y: 2}
i_from_two_unrec: {from: "1", x: 1, y: 2}
i_radix_only: {radix: 16}
i_nested: {from: "1", x: [1, "a"], y: {}}
p_badradix: "10"
f_list: [[1, "a"], ["b"]]
f_hashes: [{k: abc}, {k: 1, j: x}]
f_undef: [~, a]
f_undef_only: [~]
f_undef_mixed: [~, {a: ~}, b]
f_bools: [true, false]
f_nums: [1, 2.5]
i_nofrom: {x: 1}
i_extra: {from: "1", x: 2}
i_badradix: {from: "10", radix: 3}
i_fromhash: {from: {a: 1}}
f_empty: {}
f_nofrom: {x: 1}
f_radix: {from: "1.5", radix: 2}
""",
}, [L(k) for k in ['i_empty', 'i_nofrom', 'i_extra', 'i_badradix', 'i_fromhash', 'f_empty', 'f_nofrom', 'f_radix', 'i_two_unrec', 'i_from_two_unrec', 'i_radix_only', 'i_nested', 'p_badradix', 'f_list', 'f_hashes', 'f_undef', 'f_undef_only', 'f_undef_mixed', 'f_bools', 'f_nums']],
  readme='convert_to Integer and Float of a Hash that is not a plain {from, radix, abs} argument hash: empty, without from, with other keys, with a radix Integer.new does not take (named or positional), with a Hash as from; and the inferred, generalized type Puppet names in "Value of type T cannot be converted" (reference §3.3).')

case('lopts/convert-to-type-parameters', {
    'hiera.yaml': H1,
    'data/common.yaml': r"""---
lookup_options:
  t_as: {convert_to: "Array[String]"}
  t_ai2: {convert_to: "Array[Integer, 2]"}
  t_ir: {convert_to: "Integer[0, 5]"}
  t_ir_ok: {convert_to: "Integer[0, 5]"}
  t_as_ok: {convert_to: "Array[String]"}
  t_hsi: {convert_to: "Hash[String, Integer]"}
  t_fr: {convert_to: "Float[0.0, 1.0]"}
  t_ai12: {convert_to: "Array[Integer, 1, 2]"}
  t_idef: {convert_to: "Integer[0, default]"}
  t_enum: {convert_to: "Enum[a, b]"}
  t_as2: {convert_to: "Array[String]"}
t_as: [1.5]
t_ai2: [1]
t_ir: "9"
t_ir_ok: "3"
t_as_ok: [a]
t_hsi: {a: x}
t_fr: 0.5
t_ai12: [1, 2, 3]
t_idef: 99
t_enum: c
t_as2: [1, 2.5]
""",
}, [L(k) for k in ['t_as', 't_ai2', 't_ir', 't_ir_ok', 't_as_ok', 't_hsi', 't_fr', 't_ai12', 't_idef', 't_enum', 't_as2']],
  readme='convert_to with a parameterized type: the base type creates the value, then Puppet checks it against the whole type (element types, sizes, ranges) and fails with "Converted value from T.new() has wrong type" (reference §3.3).')

case('lopts/convert-to-optional', {
    'hiera.yaml': H1,
    'data/common.yaml': r"""---
lookup_options:
  o_s_int: {convert_to: "Optional[String]"}
  o_s_str: {convert_to: "Optional[String]"}
  o_s_nil: {convert_to: "Optional[String]"}
  o_i_str: {convert_to: "Optional[Integer]"}
  o_i_bad: {convert_to: "Optional[Integer]"}
  o_i_radix: {convert_to: ["Optional[Integer]", 16]}
  o_ir: {convert_to: "Optional[Integer[0, 5]]"}
  o_ir_ok: {convert_to: "Optional[Integer[0, 5]]"}
  o_as: {convert_to: "Optional[Array[String]]"}
  o_a_hash: {convert_to: "Optional[Array]"}
  o_sens: {convert_to: "Optional[Sensitive]"}
  o_bool: {convert_to: "Optional[Boolean]"}
  o_bare: {convert_to: "Optional"}
  o_bare_nil: {convert_to: "Optional"}
  o_enum: {convert_to: "Optional[Enum[a, b]]"}
  o_o: {convert_to: "Optional[Optional[Integer]]"}
  nu_s: {convert_to: "NotUndef[String]"}
  nu_s_nil: {convert_to: "NotUndef[String]"}
  nu_i_bad: {convert_to: "NotUndef[Integer]"}
  nu_ir: {convert_to: "NotUndef[Integer[0, 5]]"}
  nu_bare: {convert_to: "NotUndef"}
  nu_bare_nil: {convert_to: "NotUndef"}
  nu_o: {convert_to: "NotUndef[Optional[Integer]]"}
o_s_int: 42
o_s_str: x
o_s_nil: ~
o_i_str: "7"
o_i_bad: abc
o_i_radix: "ff"
o_ir: "9"
o_ir_ok: "3"
o_as: [1]
o_a_hash: {a: 1}
o_sens: secret
o_bool: "yes"
o_bare: x
o_bare_nil: ~
o_enum: c
o_o: "8"
nu_s: 42
nu_s_nil: ~
nu_i_bad: abc
nu_ir: "9"
nu_bare: 42
nu_bare_nil: ~
nu_o: "8"
""",
}, [L(k) for k in ['o_s_int', 'o_s_str', 'o_s_nil', 'o_i_str', 'o_i_bad', 'o_i_radix', 'o_ir', 'o_ir_ok', 'o_as', 'o_a_hash',
                   'o_sens', 'o_bool', 'o_bare', 'o_bare_nil', 'o_enum', 'o_o', 'nu_s', 'nu_s_nil', 'nu_i_bad', 'nu_ir',
                   'nu_bare', 'nu_bare_nil', 'nu_o']],
  readme='convert_to with Optional[T] and NotUndef[T]: new() returns a value that is already an instance of the whole type, else creates it with T\'s new function and checks the result against the whole type (types.rb POptionalType#new_function, PNotUndefType#new_function; functions/new.rb new_instance; reference §3.3).')

case('lopts/convert-to', {
    'hiera.yaml': H1,
    'data/common.yaml': """---
lookup_options:
  to_array: {convert_to: Array}
  to_array_true: {convert_to: [Array, true]}
  to_int: {convert_to: Integer}
  to_int_bad: {convert_to: Integer}
  to_int_radix: {convert_to: [Integer, 16]}
  to_sensitive: {convert_to: Sensitive}
  to_bad_type: {convert_to: "Integer["}
  to_unknown_type: {convert_to: ComicSans}
  to_string: {convert_to: String}
  to_hash: {convert_to: Hash}
  to_nil: {convert_to: [Array, true]}
  to_bool: {convert_to: Boolean}
  to_missing: {convert_to: Array}
  to_with_merge: {convert_to: Array, merge: unique}
to_array: {a: 1}
to_array_true: {a: 1}
to_int: "42"
to_int_bad: bananas
to_int_radix: "ff"
to_sensitive: secret
to_bad_type: x
to_unknown_type: x
to_string: 42
to_hash: [a, 1, b, 2]
to_nil: ~
to_bool: "yes"
to_with_merge: x
""",
}, [L(k) for k in ['to_array', 'to_array_true', 'to_int', 'to_int_bad', 'to_int_radix', 'to_sensitive', 'to_bad_type', 'to_unknown_type',
                   'to_string', 'to_hash', 'to_nil', 'to_bool', 'to_missing', 'to_with_merge']] + [L('to_int', 'first'), L('to_array', explain=True)],
  readme='convert_to lookup option: success, argument form, parse and conversion errors (reference §3.4).')

case('lopts/invalid-regex-pattern', {
    'hiera.yaml': H1,
    'data/common.yaml': "---\nlookup_options:\n  \"^(unclosed\": {merge: unique}\n  plain_lit: {merge: unique}\nk: v\nplain_lit: [x]\n",
}, [L('k'), L('plain_lit')], readme='an invalid regex in a lookup_options pattern (reference §3.3).')

case('lopts/interpolated-and-explicit-merge', {
    'hiera.yaml': H3,
    'data/role/web.yaml': "---\nmerged: {a: [role]}\n",
    'data/common.yaml': """---
lookup_options:
  merged: {merge: deep}
merged: {a: [common], b: 1}
""",
    'data/nodes/web01.example.com.yaml': "---\nmerged: {a: [node]}\n",
}, [L('merged'), L('merged', 'first'), L('merged', 'hash'), L('merged', 'unique'), L('merged.a'), L('merged.b', 'first'), L('merged', explain=True)],
  readme='an explicit merge argument overrides lookup_options merge (reference §3.4).')

# Claims of the lookup_options rules (H403-H405) and the engine's Onigmo compatibility.
_CLAIM_KEYS = ['x_key', 'a_any', 'p_plus', '_plus', 'lb_k', 'asc_k', 'str_ent', 'typo_ent', 'nskey::k']
case('lopts/rule-claims', {
    'hiera.yaml': H3,
    'data/role/web.yaml': "---\n" + "".join(f"{k}: [role]\n" for k in _CLAIM_KEYS[:-1]),
    'data/common.yaml': """---
lookup_options:
  "x_.*": {merge: unique}
  "^*_any": {merge: unique}
  "^+_plus": {merge: unique}
  "^(?<!z)lb_": {merge: unique}
  "^(?a)asc_": {merge: unique}
  str_ent: unique
  typo_ent: {merg: unique}
""" + "".join(f"{k}: [common]\n" for k in _CLAIM_KEYS[:-1]),
    'modules/nskey/hiera.yaml': MOD_H,
    'modules/nskey/data/common.yaml': "---\nlookup_options:\n  1: {merge: unique}\nnskey::k: v\n",
}, [L(k) for k in _CLAIM_KEYS],
  readme='what the lookup_options rules claim: a key without ^ is literal, Onigmo-only pattern syntax (repeated anchors, '
         '(?a)) compiles, string and misspelt entries are ignored, a non-String module lookup_options key crashes (reference §2.5, §3.3, §3.4).')

case('lopts/invalid-lookbehind', {
    'hiera.yaml': H1,
    'data/common.yaml': "---\nlookup_options:\n  \"^(?<=a+)b\": {merge: unique}\nk: v\n",
}, [L('k')], readme='Onigmo refuses a variable-length look-behind in a lookup_options pattern (reference §3.3).')

case('lopts/nonstring-key', {
    'hiera.yaml': H1,
    'data/common.yaml': "---\nlookup_options:\n  1: {merge: unique}\nk: v\n",
}, [L('k')], readme='a non-String lookup_options key in the environment crashes every lookup (reference §3.3).')
