from base import case, L, each_merge, H3, H1, MOD_H

# ---------------------------------------------------------------- merge/strategies-three-levels
case('merge/strategies-three-levels', {
    'hiera.yaml': H3,
    'data/nodes/web01.example.com.yaml': """---
arr: [n1, shared]
hsh:
  node_only: 1
  both: node
  nested: {a: node, list: [n]}
scalar: node
only_node: [x]
mixed: [node]
nilval: ~
""",
    'data/role/web.yaml': """---
arr: [r1, shared, r2]
hsh:
  role_only: 2
  both: role
  nested: {b: role, list: [r]}
scalar: role
mixed: {role: true}
nilval: [role]
""",
    'data/common.yaml': """---
arr: [c1, shared]
hsh:
  common_only: 3
  both: common
  nested: {a: common, c: common, list: [c, n]}
scalar: common
only_common: {k: v}
mixed: common
nilval: common
""",
}, each_merge(['arr', 'hsh', 'scalar', 'only_node', 'only_common', 'mixed', 'nilval', 'absent'])
  + [L('hsh.nested.list', 'deep'), L('hsh.nested', 'hash'), L('hsh.both', 'deep'), L('arr.0', 'unique'), L('arr', 'unique', explain=True), L('hsh', 'deep', explain=True)],
  readme='first/unique/hash/deep over node, role and common levels of one layer (reference §4.1-§4.5).')

# ---------------------------------------------------------------- merge/unique
case('merge/unique-asymmetry', {
    'hiera.yaml': H3,
    'data/nodes/web01.example.com.yaml': """---
top_hash: {h: 1}
top_nil: ~
nested: [[1, 2], 3]
num_kinds: [1, "1"]
scal: x
low_hash: [a]
low_nil: [a]
dups: [a, a, b]
""",
    'data/role/web.yaml': """---
top_hash: [a]
top_nil: [a]
nested: [4, [1]]
num_kinds: [1.0, 2]
scal: [y, x]
low_hash: {h: 1}
low_nil: ~
""",
    'data/common.yaml': """---
only_hash: {a: 1}
only_scalar: s
only_dups: [b, a, b, a]
only_nil: ~
dups: [b, c, c]
""",
}, [L(k, 'unique') for k in ['top_hash', 'top_nil', 'nested', 'num_kinds', 'scal', 'low_hash', 'low_nil', 'dups', 'only_hash', 'only_scalar', 'only_dups', 'only_nil']]
  + [L('only_hash.a', 'unique'), L('only_dups.1', 'unique'), L('low_hash', 'unique', explain=True)],
  readme='unique: flattening, Array#| equality, first-found wrapping asymmetry, errors for hash/nil at lower levels (reference §4.3).')

# ---------------------------------------------------------------- merge/hash
case('merge/hash-type-errors', {
    'hiera.yaml': H3,
    'data/nodes/web01.example.com.yaml': """---
nil_wins: {a: ~, b: 1}
nonstr_nested: {a: 1}
sym_val: {a: 1}
lower_string: {a: 1}
higher_string: top
higher_nil: ~
lower_nil: {a: 1}
order: {z: 1, a: 1}
int_key_top: {1: one}
""",
    'data/role/web.yaml': """---
nil_wins: {a: 2, c: 3}
nonstr_nested: {b: {1: x}}
sym_val:
  a: :sym
lower_string: str
higher_string: {a: 1}
higher_nil: {a: 1}
lower_nil: ~
order: {m: 2, z: 2}
int_key_top: {2: two}
""",
    'data/common.yaml': """---
only_string: just a string
only_list: [1, 2]
only_sym_nested:
  a: :sym
""",
}, [L(k, 'hash') for k in ['nil_wins', 'nonstr_nested', 'sym_val', 'lower_string', 'higher_string', 'higher_nil', 'lower_nil', 'order', 'int_key_top', 'only_string', 'only_list', 'only_sym_nested']]
  + [L('nil_wins.a', 'hash'), L('order', 'deep'), L('sym_val'), L('nonstr_nested', 'deep')],
  readme='hash merge: shallow, higher wins incl. nil, key order, Hash[String,Data] type errors (reference §4.4, §6.5).')

# ---------------------------------------------------------------- merge/deep
case('merge/deep-rules', {
    'hiera.yaml': H3,
    'data/nodes/web01.example.com.yaml': """---
nil_never: {a: ~, b: {c: ~}, d: ~}
arrays: {x: [2, 3]}
root_arr: [2, 3]
hash_over_arr: {a: {k: 1}}
arr_over_hash: {a: [1]}
false_over_true: {a: false}
empty_over: {a: ""}
scalar_root: node
hash_vs_scalar: {k: v}
falsy_dest: {a: {x: 1}, b: [1]}
key_order: {z: 1, new: 1}
nested_arrays: {a: {b: [node, shared]}}
""",
    'data/role/web.yaml': """---
nil_never: {a: 1, b: {c: 2}}
arrays: {x: [1, 2]}
root_arr: [1, 2]
hash_over_arr: {a: [1]}
arr_over_hash: {a: {k: 1}}
false_over_true: {a: true}
empty_over: {a: x}
scalar_root: role
hash_vs_scalar: scalar
falsy_dest: {a: false, b: ~}
key_order: {m: 2, z: 2}
nested_arrays: {a: {b: [role, shared]}}
""",
    'data/common.yaml': """---
nil_never: {d: 4, e: 5}
arrays: {x: [0]}
nested_arrays: {a: {b: [common], c: 1}}
top_nil_only: ~
""",
}, [L(k, 'deep') for k in ['nil_never', 'arrays', 'root_arr', 'hash_over_arr', 'arr_over_hash', 'false_over_true', 'empty_over', 'scalar_root', 'hash_vs_scalar', 'falsy_dest', 'key_order', 'nested_arrays', 'top_nil_only']]
  + [L('nested_arrays.a.b', 'deep'), L('nil_never', 'deep', explain=True)],
  readme='deep merge rules: nil never overrides, arrays lower-priority first, type mismatch keeps higher, falsy dest replaced (reference §4.5).')

KO = """---
lookup_options:
  ko_lo:
    merge:
      strategy: deep
      knockout_prefix: "--"
"""
case('merge/deep-knockout-prefix', {
    'hiera.yaml': H3,
    'data/nodes/web01.example.com.yaml': """---
arr: ["--b", c, "--d"]
clear: ["--"]
strval: {a: "--gone", b: "--", c: "--new"}
hashkey: {"--e": 1}
nested: {list: ["--x", y]}
single_only: [keep, "--literal"]
ko_lo: {list: ["--a"], s: "--v"}
ko_self: ["--b", "--b"]
""",
    'data/role/web.yaml': """---
arr: [a, b, d, "--d"]
clear: [a, b]
strval: {a: present, b: present}
hashkey: {e: 2}
nested: {list: [x, z]}
ko_lo: {list: [a, b], s: w}
ko_self: [b]
""",
    'data/common.yaml': KO + """arr: [z, b]
nested: {list: [q]}
""",
}, [L(k, {'strategy': 'deep', 'knockout_prefix': '--'}) for k in ['arr', 'clear', 'strval', 'hashkey', 'nested', 'single_only', 'ko_self']]
  + [L('arr', 'deep'), L('ko_lo'), L('ko_lo', 'deep'), L('single_only'), L('arr', {'strategy': 'deep', 'knockout_prefix': ''}),
     L('arr', {'strategy': 'deep', 'knockout_prefix': '--'}, explain=True)],
  readme='deep merge knockout_prefix "--": array elements, clear marker, strings, hash keys, single value verbatim; from lookup_options and explicit (reference §4.5).')

case('merge/deep-knockout-regex-prefix', {
    'hiera.yaml': H3,
    'data/nodes/web01.example.com.yaml': """---
dot: ["x.a", "xyb", keep]
star: ["*a"]
caret: ["^a"]
paren: ["(a"]
plus: ["+a"]
dollar: ["$a"]
""",
    'data/role/web.yaml': """---
dot: [a, b, c]
star: [a, b]
caret: [a, b]
paren: [a, b]
plus: [a, b]
dollar: [a, b]
""",
}, [L('dot', {'strategy': 'deep', 'knockout_prefix': 'x.'}),
    L('star', {'strategy': 'deep', 'knockout_prefix': '*'}),
    L('caret', {'strategy': 'deep', 'knockout_prefix': '^'}),
    L('paren', {'strategy': 'deep', 'knockout_prefix': '('}),
    L('plus', {'strategy': 'deep', 'knockout_prefix': '+'}),
    L('dollar', {'strategy': 'deep', 'knockout_prefix': '$'}),
    L('dot', {'strategy': 'deep', 'knockout_prefix': '\\w'}),
    L('dollar', {'strategy': 'deep', 'knockout_prefix': '\\$'})],
  readme='knockout_prefix is used unescaped in /^P/: regex metacharacters (reference §4.5).')

case('merge/deep-sort-merged-arrays', {
    'hiera.yaml': H3,
    'data/nodes/web01.example.com.yaml': """---
strs: [b, a, f]
ints: [10, 2]
mixed: [b, 1]
nested: {l: [z, y]}
single: [c, b, a]
lo: [b, a, f, "--f"]
newkey: {own: [b, a]}
newmixed: {own: [2, x]}
""",
    'data/role/web.yaml': """---
strs: [c, e, d]
ints: [3, 1]
mixed: [a, 2]
nested: {l: [x]}
lo: [c, e, d, f]
newkey: {other: 1}
newmixed: {other: 1}
""",
    'data/common.yaml': """---
lookup_options:
  lo:
    merge:
      strategy: deep
      knockout_prefix: "--"
      sort_merged_arrays: true
""",
}, [L(k, {'strategy': 'deep', 'sort_merged_arrays': True}) for k in ['strs', 'ints', 'mixed', 'nested', 'single', 'newkey', 'newmixed']]
  + [L('strs', {'strategy': 'deep', 'sort_merged_arrays': False}), L('lo'), L('strs', {'strategy': 'deep', 'sort_merged_arrays': 'yes'})],
  readme='sort_merged_arrays: sorting after each array merge, mixed types error, single value unsorted; an array under a key only one level gives is sorted too when the hashes merge (`newkey`, `newmixed`) (reference §4.5; spec lookup_spec.rb:1146).')

case('merge/deep-merge-hash-arrays', {
    'hiera.yaml': H3,
    'data/nodes/web01.example.com.yaml': """---
hashes: [{a: node, n: 1}, {b: node}]
longer: [{a: 1}, {b: 1}, {c: 1}]
mixed: [{a: 1}, x]
shorter: [{a: node}]
""",
    'data/role/web.yaml': """---
hashes: [{a: role, r: 1}, {c: role}]
longer: [{a: 2}]
mixed: [{a: 2}, y]
shorter: [{a: role, z: 1}, {b: role}]
""",
}, [L(k, {'strategy': 'deep', 'merge_hash_arrays': True}) for k in ['hashes', 'longer', 'mixed', 'shorter']]
  + [L('hashes', 'deep'), L('hashes', {'strategy': 'deep', 'merge_hash_arrays': True, 'sort_merged_arrays': True})],
  readme='merge_hash_arrays: index-wise merge of hash-only arrays, fallback to union otherwise (reference §4.5).')

case('merge/invalid-strategy', {
    'hiera.yaml': H3,
    'data/nodes/web01.example.com.yaml': "---\nk: [a]\nh: {a: 1}\n",
    'data/role/web.yaml': "---\nk: [b]\nh: {b: 2}\n",
}, [L('k', 'Deep'), L('k', 'bogus'), L('k', ''), L('k', {'knockout_prefix': '--'}), L('k', {'strategy': 'hash', 'knockout_prefix': 'x'}),
    L('k', {'strategy': 'unique', 'sort_merged_arrays': True}), L('k', {'strategy': 'first', 'foo': 1}), L('k', {'strategy': 'deep', 'merge_debug': 'x'}),
    L('k', {'strategy': 'deep', 'unknown_opt': True}), L('k', 'reverse_deep'), L('k', 'unconstrained_deep'), L('k', 'default'),
    L('h', 'reverse_deep'), L('h', {'strategy': 'unconstrained_deep', 'anything': 1}), L('k', {'strategy': 'unique'}), L('k', {'strategy': 5}),
    L('k', {'strategy': 'first'}), L('h', {'strategy': 'hash'})],
  readme='merge argument validation: unknown names (case-sensitive), missing strategy, option structs, internal strategies (reference §4.6).')

# ---------------------------------------------------------------- across layers (env + module)
case('merge/env-and-module-layers', {
    'hiera.yaml': H3,
    'data/common.yaml': """---
mod::arr: [env]
mod::hsh: {env: 1, both: env}
mod::scalar: env
lookup_options:
  mod::lo_deep: {merge: deep}
mod::lo_deep: {a: {env: 1}}
""",
    'modules/mod/hiera.yaml': MOD_H,
    'modules/mod/data/common.yaml': """---
mod::arr: [module, env]
mod::hsh: {mod: 1, both: mod}
mod::scalar: module
mod::only_mod: [m]
mod::lo_deep: {a: {mod: 1}}
lookup_options:
  mod::arr: {merge: unique}
""",
    'modules/mod/metadata.json': '{"name": "acme-mod", "version": "1.0.0", "author": "acme", "license": "Apache-2.0", "summary": "x", "source": "x", "dependencies": []}\n',
}, each_merge(['mod::arr', 'mod::hsh', 'mod::scalar', 'mod::only_mod']) + [L('mod::lo_deep'), L('mod::arr', explain=True), L('mod::hsh', 'hash', explain=True)],
  readme='merges across environment and module layers; module lookup_options (reference §2.1, §3.2).')

case('merge/multiple-paths-in-level', {
    'hiera.yaml': """version: 5
defaults: {datadir: data, data_hash: yaml_data}
hierarchy:
  - name: "Site and role"
    paths: ["site/%{facts.site}.yaml", "role/%{facts.role}.yaml", "missing.yaml"]
  - name: "Globbed"
    glob: "parts/*.yaml"
  - name: "Common"
    path: "common.yaml"
""",
    'data/site/ams.yaml': "---\narr: [site]\nh: {site: 1, k: site}\nfirst_key: site\n",
    'data/role/web.yaml': "---\narr: [role]\nh: {role: 1, k: role}\nfirst_key: role\nrole_only: r\n",
    'data/parts/a.yaml': "---\narr: [part_a]\nh: {a: 1, k: part_a}\nglob_key: a\n",
    'data/parts/b.yaml': "---\narr: [part_b]\nh: {b: 1, k: part_b}\nglob_key: b\n",
    'data/common.yaml': "---\narr: [common]\nh: {common: 1, k: common}\n",
}, each_merge(['arr', 'h', 'first_key', 'glob_key', 'role_only']) + [L('h', 'deep', explain=True)],
  readme='several locations in one hierarchy level merge with the lookup strategy (reference §1.5).')

# deep_merge's overwrite_unmergeables with a knockout_prefix keeps the source only when
# `src_tmp == source`; for a Float NaN that is false (Float#== on NaN), so dest becomes "".
# Arrays and hashes compare by identity first and are unaffected; a value found only once is
# not merged (found by tools/difftest, findings/deep-knockout-nan).
case('merge/deep-knockout-nan', {
    'hiera.yaml': H3,
    'data/nodes/web01.example.com.yaml': "---\nk1: .nan\nk2: {a: .nan, b: [.nan]}\nk3: .nan\nk4: [.nan]\nk5: .inf\n",
    'data/role/web.yaml': "---\nk1: 1\nk2: {a: 1, b: [2]}\nk4: [1]\nk5: 1\n",
    'data/common.yaml': "---\nplain: 1\n",
}, [L(k, {'strategy': 'deep', 'knockout_prefix': '--'}) for k in ['k1', 'k2', 'k3', 'k4', 'k5']]
  + [L(k, 'deep') for k in ['k1', 'k2']],
  readme='a deep merge with knockout_prefix turns a NaN source into "" (overwrite_unmergeables, NaN != NaN; reference §4.5).')
