"""Shared helpers for the conformance case builder (see tools/oracle/README.md)."""
import json, os, shutil

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', 'fixtures', 'conformance'))

def base_facts():
    src = json.load(open('/work/shared/facts/facterdb-4.5/debian-12-x86_64.json'))
    f = {k: src[k] for k in ('os', 'kernel', 'kernelrelease', 'virtual', 'is_virtual', 'timezone')}
    n = src['networking']
    f['networking'] = {k: n[k] for k in ('hostname', 'domain', 'fqdn', 'ip', 'primary')}
    f['networking'].update({'hostname': 'web01', 'domain': 'example.com', 'fqdn': 'web01.example.com'})
    f['processors'] = {'count': src['processors']['count'], 'models': src['processors']['models'][:1]}
    f['memory'] = {'system': {'total_bytes': src['memory']['system']['total_bytes']}}
    # custom facts used by real hierarchies
    f['role'] = 'web'
    f['site'] = 'ams'
    f['tier'] = 'prod'
    f['datacenters'] = ['ams1', 'fra2']
    f['trusted'] = {'certname': 'web01.example.com',
                    'extensions': {'pp_role': 'web', 'pp_datacenter': 'ams1', '1.3.6.1.4.1.34380.1.2.1': 'custom'}}
    f['server_facts'] = {'servername': 'puppet.example.com', 'serverip': '10.0.0.2', 'serverversion': '7.23.0'}
    return f

CASES = []

def case(name, files, lookups, facts=None, readme=None, extra=None):
    """files: {relative path under env/: text}; lookups: list of key strings or dicts."""
    CASES.append((name, files, lookups, facts, readme, extra))

def write_all(only=None):
    for name, files, lookups, facts, readme, extra in CASES:
        if only and not any(name.startswith(o) for o in only):
            continue
        d = os.path.join(ROOT, name)
        if os.path.isdir(os.path.join(d, 'env')):
            shutil.rmtree(os.path.join(d, 'env'))
        os.makedirs(os.path.join(d, 'env'), exist_ok=True)
        for rel, text in files.items():
            p = os.path.join(d, 'env', rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            if text is None:  # a directory
                os.makedirs(p, exist_ok=True)
                continue
            mode = 'wb' if isinstance(text, bytes) else 'w'
            with open(p, mode) as fh:
                fh.write(text)
        for rel, src in (extra or {}).items():
            p = os.path.join(d, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            shutil.copy(src, p)
        fa = base_facts()
        if facts:
            fa.update(facts)
        with open(os.path.join(d, 'facts.json'), 'w') as fh:
            json.dump(fa, fh, indent=2, sort_keys=True)
            fh.write('\n')
        with open(os.path.join(d, 'lookups.jsonl'), 'w') as fh:
            for l in lookups:
                fh.write(json.dumps(l if isinstance(l, dict) else {'key': l}) + '\n')
        if readme:
            with open(os.path.join(d, 'README.md'), 'w') as fh:
                fh.write(readme.strip() + '\n')

def L(key, merge=None, **kw):
    d = {'key': key}
    if merge is not None:
        d['merge'] = merge
    d.update(kw)
    return d

def each_merge(keys, merges=('first', 'unique', 'hash', 'deep'), plain=True):
    out = []
    for k in keys:
        if plain:
            out.append({'key': k})
        for m in merges:
            out.append({'key': k, 'merge': m})
    return out

H3 = """version: 5
defaults:
  datadir: data
  data_hash: yaml_data
hierarchy:
  - name: "Per-node"
    path: "nodes/%{trusted.certname}.yaml"
  - name: "Role"
    path: "role/%{facts.role}.yaml"
  - name: "Common"
    path: "common.yaml"
"""

H1 = """version: 5
hierarchy:
  - name: "Common"
    path: "common.yaml"
"""

MOD_H = """version: 5
hierarchy:
  - name: "Module common"
    path: "common.yaml"
"""
