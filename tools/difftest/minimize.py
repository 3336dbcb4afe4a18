#!/usr/bin/env python3
"""Shrink a saved difftest case to the smallest environment that still shows one disagreement.

    python3 tools/difftest/minimize.py CASE_DIR KEY MERGE NAME [--strict] [--same-error]

KEY may be 'k1,,k2,,k3': all are looked up in that order and the last one is judged.
CASE_DIR is a saved case (codedir/, facts.json, keys). MERGE is none|first|unique|hash|deep.
The disagreement is kept when the classification (value / found-mismatch / error-mismatch, and
for an error mismatch which side errs) stays the same; with --same-error, the erring side's
message must also keep its first 40 characters. Greedy: drop files, then chunks of lines in
each file, then facts. The result goes to tools/difftest/findings/NAME/ with a README.txt.
"""
import json, os, shutil, sys, tempfile
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import difftest as dt

def signature(o, h):
    c = dt.classify(o, h)
    if c == 'error-mismatch':
        return (c, 'puppet-errs' if 'error' in o else 'hl-errs')
    return (c,)

def runner(keys, merge, strict):
    m = None if merge == 'none' else merge
    def run(files, facts):
        tmp = tempfile.mkdtemp(prefix='difftest-min-')
        try:
            dt.write_env(tmp, files)
            ff = os.path.join(tmp, 'facts.json'); kf = os.path.join(tmp, 'keys')
            json.dump(facts, open(ff, 'w'))
            open(kf, 'w').write('\n'.join(keys) + '\n')
            o, _ = dt.run_oracle(tmp, ff, kf, keys, m, strict)
            h, _ = dt.run_hl(tmp, ff, kf, keys, m, strict)
            return o[-1], h[-1]
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return run

def main():
    args = [a for a in sys.argv[1:] if not a.startswith('--')]
    strict = '--strict' in sys.argv
    same_err = '--same-error' in sys.argv
    case, key, merge, name = args
    files = dt.load_tree(os.path.join(case, 'codedir'))
    facts = json.load(open(os.path.join(case, 'facts.json')))
    keylist = key.split(',,')   # 'a,,b': look a up first, judge the last key (Puppet keeps state between lookups)
    run = runner(keylist, merge, strict)
    o, h = run(files, facts)
    target = signature(o, h)
    if target[0] is None:
        print('no disagreement for', key, merge, o, h)
        sys.exit(1)
    errside = o if 'error' in o and 'error' not in h else h
    errpfx = errside.get('error', '')[:40]
    nruns = [0]

    def ok(fs, fa):
        nruns[0] += 1
        o2, h2 = run(fs, fa)
        if signature(o2, h2) != target:
            return False
        if same_err and target[0] == 'error-mismatch':
            e2 = (o2 if target[1] == 'puppet-errs' else h2).get('error', '')
            return e2[:40] == errpfx
        return True

    # 1. whole files
    for rel in sorted(files, key=lambda r: (r == 'hiera.yaml', r)):
        if rel == 'hiera.yaml':
            continue
        trial = dict(files); del trial[rel]
        if ok(trial, facts):
            files = trial
    # 2. chunks of lines, per file, repeated until nothing changes
    changed = True
    while changed:
        changed = False
        for rel in sorted(files):
            lines = files[rel].split('\n')
            n = max(1, len(lines) // 2)
            while n >= 1:
                i = 0
                while i < len(lines):
                    cand = lines[:i] + lines[i + n:]
                    trial = dict(files); trial[rel] = '\n'.join(cand)
                    if cand != lines and ok(trial, facts):
                        lines = cand; files = trial; changed = True
                    else:
                        i += n
                n //= 2
            # windows of 2-3 lines at every offset (a hierarchy entry, a key with its value)
            for w in (3, 2):
                i = 0
                while i + w <= len(lines):
                    cand = lines[:i] + lines[i + w:]
                    trial = dict(files); trial[rel] = '\n'.join(cand)
                    if ok(trial, facts):
                        lines = cand; files = trial; changed = True
                    else:
                        i += 1
    # 3. facts: try a small fact set, then drop top-level facts one by one
    small = {k: facts[k] for k in ('role', 'site', 'tier', 'datacenters', 'services', 'trusted') if k in facts}
    small['os'] = {'family': facts['os']['family']}
    if ok(files, small):
        facts = small
    for k in list(facts):
        trial = {x: v for x, v in facts.items() if x != k}
        if ok(files, trial):
            facts = trial
    o, h = run(files, facts)
    d = os.path.join(dt.HERE, 'out', 'min', name)
    if os.path.exists(d):
        shutil.rmtree(d)
    dt.write_env(os.path.join(d, 'codedir'), files)
    json.dump(facts, open(os.path.join(d, 'facts.json'), 'w'), indent=1)
    open(os.path.join(d, 'keys'), 'w').write('\n'.join(keylist) + '\n')
    with open(os.path.join(d, 'README.txt'), 'w') as fh:
        fh.write('from %s  key=%s merge=%s strict=%s  (%d runs)\n\n' % (case, key, merge, strict, nruns[0]))
        for rel in sorted(files):
            fh.write('--- %s\n%s\n' % (rel, files[rel].rstrip('\n')))
        fh.write('--- facts.json\n%s\n\n' % json.dumps(facts))
        fh.write('puppet: %s\nhl:     %s\n' % (json.dumps(o, ensure_ascii=False), json.dumps(h, ensure_ascii=False)))
    print(open(os.path.join(d, 'README.txt')).read())

if __name__ == '__main__':
    main()
