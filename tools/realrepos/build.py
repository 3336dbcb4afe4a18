#!/usr/bin/env python3
"""Builds fixtures/real/: the Hiera part of real public control repos and modules, pinned to a
commit, with the keys to look up and per-fact-set custom facts, for the real-repo agreement test
(tests/real_repos.rs). Puppet's answers are then recorded with tools/realrepos/record.sh.

Needs the repositories as git mirrors (the `fetch` tool puts them in /work/.mirror/<owner+name>/repo,
or clone them yourself and pass MIRRORS=dir with <owner+name>/repo in it).

What is copied (the minimum the lookups read): each hiera.yaml, environment.conf, and every file
under the data directories those hiera.yaml name (`datadir`, default `data`). A module repo becomes
modules/<name>/ of an otherwise empty environment.

Keys: every top-level key of every data file and every plain key lookup_options names, sorted; for a key whose
value is a hash also a `merge: deep` lookup and its first sub-key dotted; for an array a
`merge: unique` lookup.

Custom facts: real hierarchies interpolate facts that Facter does not have (`trusted.certname`,
`::role`, `trusted.extensions.pp_role`...). For each such variable the values that make a path of
the hierarchy name an existing file are collected, and fact set number i of the 35 gets value
i mod (n+1) (the last slot: unset), so most levels are hit by some fact sets and missed by others.
Written to fixtures/real/<repo>/overlay.json as {fact set: {facts to deep-merge}}.
usage: build.py [REPO ...]
"""
import json, os, re, subprocess, sys, shutil, tarfile, io

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, '..', '..'))
OUT = os.path.join(ROOT, 'fixtures', 'real')
MIRRORS = os.environ.get('MIRRORS', '/work/.mirror')
FACTS = os.path.join(ROOT, 'fixtures', 'facts', 'facterdb-4.5')

# name, commit, kind ('env' or 'module:<modname>'), subdir holding the environment or module.
REPOS = [
    ('puppetlabs/control-repo', '565607dc6b2cbab99e0c9a66ea361757678b5fb7', 'env', ''),
    ('puppetlabs-seteam/control-repo', '38722b45ec99fae321f8c5ad59e21088e79ff7e7', 'env', ''),
    ('mergwyn/control-repo', 'a7255c084e6d4c2d848a481209c49497f3e99a73', 'env', ''),
    ('Enucatl/puppet-control-repo', '88d403e88e0f93f19afc7ff3e5a7fb12546dce53', 'env', ''),
    ('nmaludy/puppet-control-repo', '2c40da3011dfdb423f9489b1f51c572aa6503a49', 'env', ''),
    ('puppetlabs/puppetlabs-ntp', '6f79ed29e1cf8caec1a6a58dc3401a279e6508fc', 'module:ntp', ''),
    ('voxpupuli/puppet-php', 'add11e1dd7bde4bfa43b64c1184e3bbe062a6ff4', 'module:php', ''),
    # The modules of wikimedia/operations-puppet that carry Hiera data (its environment uses a
    # global hiera.yaml with absolute datadirs, which cannot be checked out here).
    ('wikimedia/operations-puppet', 'd3590882967af82c73dec71ad2ea7228dbf048f9', 'modules', 'modules'),
]

DATA_EXT = ('.yaml', '.yml', '.json', '.eyaml', '.conf')

# Backends a repository gets from its Puppetfile (not in the repository): a stand-in that returns
# no data, which is what hieralint assumes of any custom function, so the rest of the hierarchy
# is compared instead of every lookup failing with `Unable to find 'data_hash' function`.
STUB = """# Test stand-in (not the real backend, which the repository's Puppetfile installs): no data.
Puppet::Functions.create_function(:%(name)s) do
  dispatch :no_data do
    param 'Hash', :options
    param 'Puppet::LookupContext', :context
  end

  def no_data(_options, _context)
    {}
  end
end
"""
STUBS = {
    'Enucatl/puppet-control-repo': ['vault_hiera_hash'],
}


def slug(name):
    return name.replace('/', '+')


def tree(name, commit):
    """The repository's YAML/JSON/conf files at `commit` (mirrors may lack large blobs, so only
    these are read)."""
    git = os.path.join(MIRRORS, slug(name), 'repo')
    listing = subprocess.run(['git', '--git-dir', git, 'ls-tree', '-r', commit],
                             check=True, capture_output=True, text=True).stdout
    wanted = []
    for line in listing.splitlines():
        meta, path = line.split('\t', 1)
        mode, typ, oid = meta.split()
        if typ == 'blob' and mode != '120000' and path.endswith(DATA_EXT):
            wanted.append((path, oid))
    proc = subprocess.run(['git', '--git-dir', git, 'cat-file', '--batch'],
                          input=''.join(o + '\n' for _, o in wanted).encode(),
                          check=True, capture_output=True)
    out, pos, files = proc.stdout, 0, {}
    for path, _ in wanted:
        nl = out.index(b'\n', pos)
        header = out[pos:nl].split()
        pos = nl + 1
        if header[-1] == b'missing':
            continue
        size = int(header[2])
        files[path] = out[pos:pos + size]
        pos += size + 1
    return files


def load_yaml(b):
    import yaml
    try:
        return yaml.safe_load(b.decode('utf-8', 'replace'))
    except Exception:
        return None


def datadirs(conf):
    """The datadirs a parsed hiera.yaml names, relative to it."""
    if not isinstance(conf, dict):
        return []
    dirs = set()
    d = conf.get('defaults') if isinstance(conf.get('defaults'), dict) else {}
    default = d.get('datadir', 'data') if isinstance(d.get('datadir', 'data'), str) else 'data'
    dirs.add(default)
    for lvl in conf.get('hierarchy') or []:
        if isinstance(lvl, dict) and isinstance(lvl.get('datadir'), str):
            dirs.add(lvl['datadir'])
    for k in ('default_hierarchy',):
        for lvl in conf.get(k) or []:
            if isinstance(lvl, dict) and isinstance(lvl.get('datadir'), str):
                dirs.add(lvl['datadir'])
    if conf.get('version') == 3 or ':hierarchy' in str(conf.keys()):
        y = conf.get(':yaml') or {}
        if isinstance(y, dict) and isinstance(y.get(':datadir'), str):
            # v3 datadirs are absolute; the part after the environment is the repo's.
            dd = re.split(r'%\{:{0,2}environment\}/', y[':datadir'])
            dirs.add(dd[-1] if len(dd) > 1 else y[':datadir'])
    return [x.strip('/').replace('./', '') for x in dirs if not x.startswith('/') and '%{' not in x]


def templates(conf):
    out = []
    if not isinstance(conf, dict):
        return out
    d = conf.get('defaults') if isinstance(conf.get('defaults'), dict) else {}
    for lvl in (conf.get('hierarchy') or []) + (conf.get('default_hierarchy') or []):
        if not isinstance(lvl, dict):
            continue
        dd = lvl.get('datadir', d.get('datadir', 'data'))
        if not isinstance(dd, str):
            continue
        for k in ('path', 'paths', 'glob', 'globs'):
            v = lvl.get(k)
            for p in ([v] if isinstance(v, str) else v if isinstance(v, list) else []):
                if isinstance(p, str):
                    out.append((dd.strip('/'), p))
    return out


VAR = re.compile(r'%\{([^}]*)\}')


def var_name(expr):
    e = expr.strip()
    if e.startswith('::'):
        e = e[2:]
    if e.startswith('facts.'):
        e = e[6:]
    return e


def has_fact(facts, dotted):
    if dotted.startswith('trusted.') or dotted in ('environment',):
        return dotted == 'trusted.authenticated' or dotted == 'environment'
    cur = facts
    for part in dotted.split('.'):
        if isinstance(cur, dict) and part in cur:
            cur = cur[part]
        else:
            return False
    return True


def candidates(files, base, conf, facts_any):
    """variable -> sorted values that make some path template name an existing file."""
    found = {}
    for dd, tmpl in templates(conf):
        if VAR.search(tmpl) is None:
            continue
        parts = VAR.split(tmpl)
        rx = ''
        names = []
        for i, p in enumerate(parts):
            if i % 2 == 0:
                rx += re.escape(p).replace(r'\*', '[^/]*')
            else:
                names.append(var_name(p))
                rx += '([^/]+)'
        prefix = os.path.normpath(os.path.join(base, dd)) + '/'
        for f in files:
            if not f.startswith(prefix):
                continue
            m = re.fullmatch(rx, f[len(prefix):])
            if not m:
                continue
            for n, v in zip(names, m.groups()):
                if not has_fact(facts_any, n):
                    found.setdefault(n, set()).add(v)
    return {k: sorted(v) for k, v in found.items()}


def set_dotted(d, dotted, value):
    # Puppet derives trusted.hostname/domain from the certname.
    if dotted == 'trusted.hostname':
        dotted, value = 'trusted.certname', value + '.example.com'
    parts = dotted.split('.')
    for p in parts[:-1]:
        d = d.setdefault(p, {})
        if not isinstance(d, dict):
            return
    d[parts[-1]] = value


def build(name, commit, kind, sub):
    files = tree(name, commit)
    dest = os.path.join(OUT, slug(name))
    env = os.path.join(dest, 'env')
    # The recorded answers (expected/) stay until record.py replaces them.
    shutil.rmtree(env, ignore_errors=True)
    keep = {}  # source path -> dest rel path (under env/)
    configs = []  # (dest base dir rel to env, parsed conf)

    def add_hiera_dir(src_base, dst_base):
        hy = (src_base + '/' if src_base else '') + 'hiera.yaml'
        if hy not in files:
            return
        keep[hy] = os.path.join(dst_base, 'hiera.yaml')
        conf = load_yaml(files[hy])
        configs.append((dst_base, conf))
        for dd in datadirs(conf):
            pre = os.path.normpath(os.path.join(src_base, dd)) + '/'
            pre = pre.lstrip('./') if pre.startswith('./') else pre
            for f in files:
                if f.startswith(pre) and f.endswith(DATA_EXT):
                    keep[f] = os.path.join(dst_base, os.path.relpath(f, src_base or '.'))

    if kind == 'env':
        add_hiera_dir(sub, '')
        if 'environment.conf' in files:
            keep['environment.conf'] = 'environment.conf'
        for mdir in ('modules', 'site-modules', 'site'):
            mods = sorted({f.split('/')[1] for f in files if f.startswith(mdir + '/') and f.count('/') >= 2})
            for m in mods:
                add_hiera_dir(f'{mdir}/{m}', f'{mdir}/{m}')
    elif kind.startswith('module:'):
        add_hiera_dir(sub, 'modules/' + kind.split(':')[1])
    else:  # a directory of modules
        mods = sorted({f.split('/')[1] for f in files if f.startswith(sub + '/') and f.count('/') >= 2})
        for m in mods:
            add_hiera_dir(f'{sub}/{m}', f'modules/{m}')
    for src, rel in sorted(keep.items()):
        p = os.path.join(env, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        body = files[src]
        if rel == 'environment.conf':
            # Only what lookups read: the module path (config_version would run a script).
            body = b''.join(l for l in body.splitlines(True)
                            if l.strip().startswith(b'modulepath'))
        with open(p, 'wb') as fh:
            fh.write(body)
    for fn in STUBS.get(name, []):
        p = os.path.join(env, 'lib', 'puppet', 'functions', fn + '.rb')
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, 'w') as fh:
            fh.write(STUB % {'name': fn})
    # Keys.
    keys = set()
    hashes, arrays = {}, set()
    for src, rel in keep.items():
        if rel.endswith('hiera.yaml') or rel == 'environment.conf' or not rel.endswith(('.yaml', '.yml', '.eyaml', '.json')):
            continue
        data = load_yaml(files[src])
        if not isinstance(data, dict):
            continue
        lopts = data.get('lookup_options')
        if isinstance(lopts, dict):
            # Keys that only lookup_options name still exercise the options' assembly.
            keys.update(k for k in lopts if isinstance(k, str) and not k.startswith('^'))
        for k, v in data.items():
            if not isinstance(k, str) or k == 'lookup_options':
                continue
            keys.add(k)
            if isinstance(v, dict) and v:
                first = next(iter(v))
                if isinstance(first, str) and re.fullmatch(r'[A-Za-z0-9_:-]+', first):
                    hashes.setdefault(k, first)
                else:
                    hashes.setdefault(k, None)
            elif isinstance(v, list):
                arrays.add(k)
    lines = []
    for k in sorted(keys):
        lines.append({'key': k})
        if k in hashes:
            lines.append({'key': k, 'merge': 'deep'})
            if hashes[k] is not None:
                lines.append({'key': f'{k}.{hashes[k]}'})
        if k in arrays:
            lines.append({'key': k, 'merge': 'unique'})
    with open(os.path.join(dest, 'lookups.jsonl'), 'w') as fh:
        for l in lines:
            fh.write(json.dumps(l) + '\n')
    # Custom facts per fact set.
    sets = sorted(f[:-5] for f in os.listdir(FACTS) if f.endswith('.json'))
    facts_any = json.load(open(os.path.join(FACTS, sets[0] + '.json')))
    cands = {}
    for base, conf in configs:
        src_base = sub if kind == 'env' and base == '' else base
        if kind.startswith('module:'):
            src_base = sub
        elif kind == 'modules':
            src_base = base.replace('modules/', sub + '/', 1)
        for n, vals in candidates(files, src_base, conf, facts_any).items():
            cands.setdefault(n, set()).update(vals)
    overlay = {}
    for i, s in enumerate(sets):
        extra = {}
        for n, vals in sorted(cands.items()):
            vals = sorted(vals)
            j = i % (len(vals) + 1)
            if j < len(vals):
                set_dotted(extra, n, vals[j])
        overlay[s] = extra
    with open(os.path.join(dest, 'overlay.json'), 'w') as fh:
        json.dump(overlay, fh, indent=1, sort_keys=True)
        fh.write('\n')
    with open(os.path.join(dest, 'SOURCE'), 'w') as fh:
        fh.write(f'https://github.com/{name} {commit} {kind} {sub}\n')
    print(f'{name}: {len(keep)} files, {len(lines)} lookups, custom facts {sorted(cands)}')


def main():
    want = sys.argv[1:]
    for r in REPOS:
        if not want or r[0] in want or slug(r[0]) in want:
            build(*r)


if __name__ == '__main__':
    main()
