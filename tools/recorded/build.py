#!/usr/bin/env python3
"""Writes the inputs of the cases that back the syntax-and-files rules' runtime claims
(fixtures/recorded/<rule>/<case>/: env/, facts.json, lookups.jsonl, README.md), in the layout of
fixtures/conformance (tools/oracle/README.md). Then record Puppet's answers with
    tools/oracle/record-all.sh fixtures/recorded/*/*
usage: build.py [CASE_PREFIX ...]"""
import json, os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'conformance'))
import base  # noqa: E402
from base import case, L, H1, MOD_H  # noqa: E402

base.ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', 'fixtures', 'recorded'))

CONF = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'conformance')
ENC = json.load(open(os.path.join(CONF, 'eyaml', 'encrypted.json')))
KEYS = {'env/keys/private_key.pkcs7.pem': os.path.join(CONF, 'eyaml', 'keys', 'private_key.pkcs7.pem'),
        'env/keys/public_key.pkcs7.pem': os.path.join(CONF, 'eyaml', 'keys', 'public_key.pkcs7.pem')}

# ---- duplicate-key ------------------------------------------------------------------------------
case('duplicate-key/last-wins', {
    'hiera.yaml': H1,
    'data/common.yaml': """---
dup: first
other: x
dup: second
h: {a: 1, b: 2, a: 3}
q: plain
'q': quoted
""",
}, ['dup', 'h', 'q', 'other'],
    readme="duplicate keys at the top level and in a flow mapping: the last value wins, at the first key's position; "
           "a quoted and a plain spelling are the same key (Psych).")

# ---- yaml11-implicit-type -----------------------------------------------------------------------
case('yaml11-implicit-type/keys-and-values', {
    'hiera.yaml': H1,
    'data/common.yaml': """---
flag: on
answer: no
umask: 0022
mode: 0755
hex: 0x1F
duration: 1:20
count: 1_000
thousands: 1,000
exp: 1e3
exp_dot: 1.0e3
oct12: 0o17
on: key written on
0755: key written 0755
nested_bool_key:
  on: x
nested_int_key:
  0755: x
""",
    'modules/mkey/hiera.yaml': MOD_H,
    'modules/mkey/data/common.yaml': "---\non: x\nmkey::k: v\n",
}, ['flag', 'answer', 'umask', 'mode', 'hex', 'duration', 'count', 'thousands', 'exp', 'exp_dot', 'oct12',
    'on', 'true', '0755', '493', 'nested_bool_key', 'nested_int_key', 'nested_int_key.493', 'mkey::k'],
    readme="YAML 1.1 implicit types in values and keys: `on`/`no` Booleans, octal/hex/separated Integers, base 60, "
           "`1e3` and `0o17` strings; a key `on` is Boolean true (not found by name), a nested Boolean key fails "
           "validation, a top-level non-String key in module data (reference §6.1, §2.4).")

# ---- unquoted-interpolation ---------------------------------------------------------------------
case('unquoted-interpolation/mid-scalar', {
    'hiera.yaml': H1,
    'data/common.yaml': """---
mid: admin@%{facts.role}
quoted: 'admin@%{facts.role}'
hkeys:
  plain_%{facts.role}: v
""",
}, ['mid', 'quoted', 'hkeys'],
    readme="an interpolation inside a plain scalar (not at its start) loads and interpolates exactly as the quoted form.")

# ---- malformed-eyaml ----------------------------------------------------------------------------
SECRET = ENC['secret']                     # ENC[PKCS7,<base64>], plaintext s3cr3t
B64 = SECRET[len('ENC[PKCS7,'):-1]


def folded(token, indent='  '):
    """hiera-eyaml's block output: `>` then the token in 60-character lines (EncToken#to_encrypted)."""
    return '>\n' + '\n'.join(indent + token[i:i + 60] for i in range(0, len(token), 60))


def literal(token, indent='  '):
    return '|\n' + '\n'.join(indent + token[i:i + 60] for i in range(0, len(token), 60))


EH = """version: 5
defaults: {datadir: data}
hierarchy:
  - name: "Secrets"
    lookup_key: eyaml_lookup_key
    path: "secrets.eyaml"
    options:
      pkcs7_private_key: keys/private_key.pkcs7.pem
      pkcs7_public_key: keys/public_key.pkcs7.pem
"""
MADE_UP = ('MIIBiQYJKoZIhvcNAQcDoIIBejCCAXYCAQAxggEhMIIBHQIBADAFMAACAQEwDQYJKoZIhvcNAQEBBQAEggEAqaxONo0f3h7eBmAvLHv3HJ7'
           'LD9RgfHhUPM3sG9Sq9TQ0o8tCZXkGzOB8dq6DY3ee1bZdbjcMG0rWm3kxCAt0Ad1CrInT0Hv3r1VvH4A7wA1K8bGh0MXBx7vNvK1HGkq3h9B8x'
           '6ghZ4Vv8e2b9xTtOM7pqOqW0B3uJr1vXdR0rF2K2z8YJxpvR3CkvV0YcZkvHtG7gGtY4kOZ0Lj5yBnyQqZ7dXmWnXyCj8oAq7B5k2z6Zl1yqT0c0'
           'n0dZ0j5r2d3Pg5pYpC1p0oUHYb0XoYJcYi9Y0E7n3Q6l1o7k2gQ8oB1fZl2a6dPZpRn3k1C8yVt9W2yq1xK3p0cJk6bYmH7u8A9zTBMBgkqhkiG9w0B'
           'BwEwHQYJYIZIAWUDBAEqBBA7hzXw5u8Xr2ZQk1n8Yl2JgCBy2r9xWvT8qFZlSx8DkNd0Q9Vh1pQe4o6kZ9Jf3r2Y1w==')
mid = len(B64) // 2
eyaml_values = {
    'valid': SECRET,
    'valid_folded': folded(SECRET),
    'valid_plain_lines': 'ENC[PKCS7,' + B64[:200] + '\n  ' + B64[200:] + ']',
    'valid_lower_method': 'ENC[pkcs7,' + B64 + ']',
    'valid_no_method': 'ENC[' + B64 + ']',
    'valid_in_text': '"pw: %s and %s"' % (SECRET, SECRET),
    'literal_block': literal(SECRET),
    'no_close': 'ENC[PKCS7,' + B64,
    'no_close_folded': folded('ENC[PKCS7,' + B64),
    'underscore': 'ENC[PKCS7,' + B64[:mid] + '_' + B64[mid:] + ']',
    'tab': '"ENC[PKCS7,' + B64[:mid] + '\\t' + B64[mid:] + ']"',
    'dash_method': 'ENC[PKCS-7,' + B64 + ']',
    'unknown_method': 'ENC[FOO,' + B64 + ']',
    'empty': 'ENC[]',
    'empty_cipher': 'ENC[PKCS7,]',
    'truncated': 'ENC[PKCS7,' + B64[:120] + B64[180:] + ']',
    'short_last': 'ENC[PKCS7,' + B64[:-3] + ']',
    'trailing_garbage': 'ENC[PKCS7,' + B64 + 'AAAA]',
    'pad_middle': 'ENC[PKCS7,' + B64[:mid] + '=' + B64[mid:] + ']',
    'not_base64_der': 'ENC[PKCS7,notbase64]',
    # made up (the first value of fixtures/example-control-repo before it was re-encrypted): its
    # outer length fits, an inner element overruns its parent
    'made_up': 'ENC[PKCS7,' + MADE_UP + ']',
}
case('malformed-eyaml/variants', {
    'hiera.yaml': EH,
    'data/secrets.eyaml': '---\n' + ''.join('%s: %s\n' % (k, v) for k, v in eyaml_values.items()),
}, list(eyaml_values.keys()), extra=KEYS,
    readme="ENC[...] values hiera-eyaml 3.3 decrypts, passes through as text, or fails on: block styles, methods, "
           "missing bracket, characters outside base64, damaged base64 (reference §6.4).")

# ---- yaml-limit-exceeded ------------------------------------------------------------------------
DEPTH = 1100
case('yaml-limit-exceeded/recursion-and-depth', {
    'hiera.yaml': H1,
    'modules/mrec/hiera.yaml': MOD_H,
    'modules/mrec/data/common.yaml': "---\nmrec::rec: &r [*r]\nmrec::ok: fine\n",
    'modules/mdeep/hiera.yaml': MOD_H,
    'modules/mdeep/data/common.yaml': "---\nmdeep::deep: " + '[' * DEPTH + ']' * DEPTH + "\nmdeep::ok: fine\n",
}, ['mrec::rec', 'mrec::ok', 'mdeep::ok'],
    readme="an alias inside its own anchor (recursive data) and %d nested flow sequences (reference §6.1)." % DEPTH)

base.write_all(sys.argv[1:] or None)
print(len(base.CASES), 'cases defined')
