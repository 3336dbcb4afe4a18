#!/usr/bin/env python3
"""Writes a deterministic corpus of mutated Hiera YAML documents (JSON list of strings) for the
differential test in tests/loader_yaml.rs: small edits (inserted indicators, tabs, deleted
characters, duplicated lines, re-indented lines) of realistic data files, so that both libyaml
and saphyr meet many near-valid inputs.

Usage: python3 tools/psych/mutate-corpus.py | ruby tools/psych/record-corpus.rb > fixtures/psych/corpus.json
"""
import json
import random

BASES = [
    """---
# Common data
classes:
  - profile::base
  - profile::ntp
ntp::servers:
  - 0.pool.ntp.org
  - '1.pool.ntp.org'
ntp::enable: true
apache::docroot: "%{facts.fqdn}/html"
users:
  admin: &admin
    uid: 1000
    shell: /bin/bash
    groups: [wheel, adm]
  deploy:
    <<: *admin
    uid: 1001
motd: |
  Welcome to %{trusted.certname}
  Managed by Puppet
banner: >-
  folded text
  continues here
lookup_options:
  users:
    merge: deep
""",
    """a: 1
b: 'two'
c: "three\\tfour"
d: [1, 2, {e: f}]
e: {x: ~, y: null, z: }
f:
- a
- b:
    c: d
h: 1_000
i: 0755
j: :sym
k: 1:20
""",
    """profile::web::vhosts:
  'www.example.com':
    port: 443
    ssl: yes
    aliases:
      - example.com
      - "www2.example.com"
  api.example.com: {port: 8080, ssl: off}
profile::web::packages: [nginx, 'openssl', "curl"]
# trailing comment
""",
]
MUTATIONS = [' ', '\t', '\n', ':', '-', '#', '"', "'", '[', ']', '{', '}', ',', '&', '*', '!',
             '|', '>', '?', '%', '@', '`', '\r\n', '  ', '...', '---', 'é', '\u0085']


def mutate(rng, text):
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        op = rng.random()
        pos = rng.randrange(len(text) + 1)
        if op < 0.45:
            text = text[:pos] + rng.choice(MUTATIONS) + text[pos:]
        elif op < 0.75:
            text = text[:pos] + text[pos + rng.randint(1, 3):]
        elif op < 0.9:
            lines = text.split('\n')
            lines.insert(rng.randrange(len(lines)), lines[rng.randrange(len(lines))])
            text = '\n'.join(lines)
        else:
            lines = text.split('\n')
            i = rng.randrange(len(lines))
            lines[i] = ('\t' if rng.random() < 0.5 else ' ') + lines[i]
            text = '\n'.join(lines)
    return text


def main():
    rng = random.Random(20240607)
    out = [mutate(rng, base) for base in BASES for _ in range(250)]
    print(json.dumps(out))


main()
