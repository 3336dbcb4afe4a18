from base import case, L, each_merge, H3, H1, MOD_H

case('dotted/keys', {
    'hiera.yaml': H3,
    'data/nodes/web01.example.com.yaml': "---\nh: {a: node}\nm: {a: {x: node}}\n",
    'data/role/web.yaml': "---\nh: {b: role}\nm: {a: {y: role}, b: [r1, r2]}\n",
    'data/common.yaml': """---
h: {b: common, c: common}
arr: [zero, one, {k: two}]
nested: {l1: {l2: {l3: deep}}, n: ~, s: str, i: 5}
"a.b": literal-dotted
a: {b: nested-ab}
"x.y": {z: quoted-root}
num: {1: int-key, "1": str-key, 2: {3: deep-int}}
"with space": {"in key": spaced}
"q'uote": v
""",
}, [L(k) for k in ['h.a', 'h.b', 'h.c', 'm.a.x', 'm.a.y', 'm.b.1', 'arr.0', 'arr.1', 'arr.2.k', 'arr.-1', 'arr.3', 'arr.01', 'arr.+1',
                   'arr.x', 'nested.l1.l2.l3', 'nested.l1.l2', 'nested.n', 'nested.n.x', 'nested.s.x', 'nested.i.x', 'nested.missing',
                   'nested.missing.deeper', 'a.b', '"a.b"', "'a.b'", 'a."b"', '"x.y".z', 'x.y.z', 'num.1', "num.'1'", 'num."1"',
                   'num.2.3', '"with space"."in key"', 'with space', "with space.'in key'", 'a..b', 'a.', '.a', "''", "'pa'key",
                   'h.\'', 'arr.:1', ' h ', 'h. a']]
  + [L('h.c', 'hash'), L('h.c', 'deep'), L('m.a', 'deep'), L('m.a.x', 'unique'), L('h.c', explain=True), L('h.c', 'hash', explain=True)],
  readme='dotted keys: first-found does not fall through, merges then dig, array indexes, type mismatches, quoting, numeric segments, syntax errors (reference §7).')

case('dotted/defaults', {
    'hiera.yaml': H1,
    'data/common.yaml': "---\nnil_val: ~\nh: {a: 1}\nfalse_val: false\n",
}, [L('nil_val', default='dflt'), L('missing', default='dflt'), L('missing', default=None), L('missing', default={'a': [1]}),
    L('h.b', default=7), L('h.a', default=7), L('false_val', default=True), L('missing', 'deep', default=[1]), L('missing', {'strategy': 'bogus'}, default=1)],
  readme='a found nil is a value and the default does not replace it; defaults for missing keys and sub-keys (reference §2.1).')
