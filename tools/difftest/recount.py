#!/usr/bin/env python3
"""Totals per run and merge mode from logs/stats.jsonl, with the disagreements recounted from the
saved outputs (out/<run>/case-*/{oracle,hl}-<merge>.jsonl) by the current comparison, and sorted
into the known categories (see README.md).

    python3 tools/difftest/recount.py
"""
import collections, glob, json, os, re, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import difftest as dt

CATS = [  # (name, predicate over (puppet, hl) result dicts, case files text)
    ('convert_to: Optional unsupported (documented)', lambda o, h, t: 'which hieralint cannot create' in h.get('error', '')),
    ('convert_to (type params / format / new() variants / String rendering)', lambda o, h, t: 'convert_to' in t),
    ('incomplete module metadata.json', lambda o, h, t: '"data_provider": "hiera"}' in t and '"source"' not in t),
    ('YAML BOM truncation', lambda o, h, t: '\ufeff' in t),
    ('deep knockout + NaN', lambda o, h, t: 'knockout_prefix' in t and ('.nan' in t.lower())),
]

def load(path):
    res = {}
    for line in open(path, encoding='utf-8').read().split('\n'):
        if line.startswith('{'):
            try:
                o = json.loads(line)
                res.setdefault(o['key'], o)
            except ValueError:
                pass
    return res

def main():
    stats = collections.defaultdict(lambda: collections.defaultdict(lambda: [0, 0]))  # run -> merge -> [envs, lookups]
    for line in open(os.path.join(dt.HERE, 'logs', 'stats.jsonl')):
        s = json.loads(line)
        for m in s['merges']:
            stats[s['run']][m][0] += 1
            stats[s['run']][m][1] += s['keys']
    grand = collections.Counter()
    for run in sorted(stats):
        diff = collections.Counter(); msg = collections.Counter(); cats = collections.Counter()
        for case in glob.glob(os.path.join(dt.HERE, 'out', run, 'case-*')):
            text = ''
            for dp, dn, fn in os.walk(os.path.join(case, 'codedir')):   # (data/u/.yaml is a dot-file)
                for f in fn:
                    text += open(os.path.join(dp, f), encoding='utf-8', errors='replace').read()
            keys = [k for k in open(os.path.join(case, 'keys'), encoding='utf-8').read().split('\n') if k]
            for m in stats[run]:
                op, hp = os.path.join(case, 'oracle-%s.jsonl' % m), os.path.join(case, 'hl-%s.jsonl' % m)
                if not os.path.exists(op):
                    continue
                O, H = load(op), load(hp)
                for k in keys:
                    o, h = O.get(k, {'key': k, 'tool_failure': True}), H.get(k, {'key': k, 'tool_failure': True})
                    c = dt.classify(o, h)
                    if c:
                        diff[m] += 1
                        cats[next((n for n, f in CATS if f(o, h, text)), 'other: ' + c)] += 1
                    elif 'error' in o and o['error'] != dt.first_line(h.get('error')):
                        msg[m] += 1
        print('== %s' % run)
        for m, (e, l) in sorted(stats[run].items()):
            print('  %-7s envs=%4d lookups=%6d agree=%6d disagree=%4d (error-text-only differences: %d)' % (m, e, l, l - diff[m], diff[m], msg[m]))
            grand['envs-' + m] += e; grand['lookups'] += l; grand['diff'] += diff[m]; grand['msg'] += msg[m]
        for n, c in cats.most_common():
            print('     %5d  %s' % (c, n))
    print('== total lookups %d, disagreements %d, error-text-only %d' % (grand['lookups'], grand['diff'], grand['msg']))

if __name__ == '__main__':
    main()
