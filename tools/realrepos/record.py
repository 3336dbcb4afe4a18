#!/usr/bin/env python3
"""Records Puppet 7.23's answers for fixtures/real/ (built by build.py): for every repo and every
fact set of fixtures/facts/facterdb-4.5 (with the repo's overlay.json merged in), runs
tools/oracle/record.rb (the real lookup engine, default strict=warning) over the repo's
lookups.jsonl and writes fixtures/real/<repo>/expected/<fact set>.jsonl.
usage: record.py [REPO_DIR ...]   (JOBS=2 Puppet processes at a time)
"""
import json, os, shutil, subprocess, sys, tempfile
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, '..', '..'))
REAL = os.path.join(ROOT, 'fixtures', 'real')
FACTS = os.path.join(ROOT, 'fixtures', 'facts', 'facterdb-4.5')
RECORD = os.path.join(ROOT, 'tools', 'oracle', 'record.rb')


def deep_merge(a, b):
    out = dict(a)
    for k, v in b.items():
        out[k] = deep_merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def one(repo, fact_set):
    overlay = json.load(open(os.path.join(repo, 'overlay.json'))).get(fact_set, {})
    facts = deep_merge(json.load(open(os.path.join(FACTS, fact_set + '.json'))), overlay)
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copytree(os.path.join(repo, 'env'), os.path.join(tmp, 'env'))
        shutil.copy(os.path.join(repo, 'lookups.jsonl'), os.path.join(tmp, 'lookups.jsonl'))
        with open(os.path.join(tmp, 'facts.json'), 'w') as fh:
            json.dump(facts, fh)
        out = os.path.join(repo, 'expected', fact_set + '.jsonl')
        r = subprocess.run(['ruby', RECORD, tmp, out], capture_output=True, text=True)
        if r.returncode != 0:
            return f'FAILED {repo} {fact_set}: {r.stderr.strip().splitlines()[-1:]}'
    return None


def main():
    repos = [os.path.abspath(a) for a in sys.argv[1:]] or sorted(
        os.path.join(REAL, d) for d in os.listdir(REAL) if os.path.isfile(os.path.join(REAL, d, 'lookups.jsonl')))
    sets = sorted(f[:-5] for f in os.listdir(FACTS) if f.endswith('.json'))
    jobs = []
    for repo in repos:
        shutil.rmtree(os.path.join(repo, 'expected'), ignore_errors=True)
        os.makedirs(os.path.join(repo, 'expected'))
        jobs += [(repo, s) for s in sets]
    with ThreadPoolExecutor(int(os.environ.get('JOBS', '2'))) as ex:
        for err in ex.map(lambda j: one(*j), jobs):
            if err:
                print(err, file=sys.stderr)
    print(f'{len(jobs)} recordings')


if __name__ == '__main__':
    main()
