#!/usr/bin/env python3
"""Record a hand-reduced repro: copy SRC (codedir/, facts.json, keys) to findings/NAME and write a
README.txt with the files, both engines' answers and a diagnosis line.

    python3 tools/difftest/mkrepro.py SRC NAME "diagnosis text" [--merges none,deep] [--strict]
"""
import json, os, shutil, sys, tempfile
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import difftest as dt

def main():
    args = [a for a in sys.argv[1:] if not a.startswith('--')]
    src, name, diag = args[0], args[1], args[2] if len(args) > 2 else ''
    merges = ['none']
    for a in sys.argv:
        if a.startswith('--merges='):
            merges = a.split('=', 1)[1].split(',')
    strict = '--strict' in sys.argv
    files = dt.load_tree(os.path.join(src, 'codedir'))
    facts = json.load(open(os.path.join(src, 'facts.json')))
    keys = [k for k in open(os.path.join(src, 'keys')).read().splitlines() if k]
    d = os.path.join(dt.HERE, 'out', 'min', name)
    if os.path.exists(d):
        shutil.rmtree(d)
    dt.write_env(os.path.join(d, 'codedir'), files)
    json.dump(facts, open(os.path.join(d, 'facts.json'), 'w'))
    open(os.path.join(d, 'keys'), 'w').write('\n'.join(keys) + '\n')
    tmp = tempfile.mkdtemp(prefix='difftest-')
    dt.write_env(tmp, files)
    res = dt.compare_case(tmp, facts, keys, merges, strict)
    shutil.rmtree(tmp)
    with open(os.path.join(d, 'README.txt'), 'w') as fh:
        fh.write('%s\n\nstrict=%s (puppet %s)\n\n' % (diag, strict, '8 / ORACLE_STRICT=error' if strict else '7'))
        for rel in sorted(files):
            fh.write('--- %s\n%s\n' % (rel, files[rel].rstrip('\n')))
        fh.write('--- facts.json\n%s\n--- keys\n%s\n\n' % (json.dumps(facts), '\n'.join(keys)))
        for merge, ores, hres, otext, htext, diffs, msgdiffs in res:
            for o, h in zip(ores, hres):
                c = dt.classify(o, h)
                mark = 'DIFF' if c else ('MSG ' if 'error' in o and o['error'] != dt.first_line(h.get('error')) else 'ok  ')
                fh.write('%s merge=%s key=%s\n  puppet: %s\n  hl:     %s\n' % (mark, merge, o['key'], json.dumps({k: v for k, v in o.items() if k != 'key'}, ensure_ascii=False),
                                                                      json.dumps({k: v for k, v in h.items() if k != 'key'}, ensure_ascii=False)))
    print(open(os.path.join(d, 'README.txt')).read())

if __name__ == '__main__':
    main()
