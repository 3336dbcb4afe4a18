import json, os
from base import case, L, H1

HERE = os.path.dirname(os.path.abspath(__file__))
ENC = json.load(open(os.path.join(HERE, 'eyaml', 'encrypted.json')))
KEYS = {'env/keys/private_key.pkcs7.pem': os.path.join(HERE, 'eyaml', 'keys', 'private_key.pkcs7.pem'),
        'env/keys/public_key.pkcs7.pem': os.path.join(HERE, 'eyaml', 'keys', 'public_key.pkcs7.pem')}

EH = """version: 5
defaults: {datadir: data}
hierarchy:
  - name: "Secrets"
    lookup_key: eyaml_lookup_key
    paths: ["secrets/%{trusted.certname}.eyaml", "secrets/common.eyaml"]
    options:
      pkcs7_private_key: keys/private_key.pkcs7.pem
      pkcs7_public_key: keys/public_key.pkcs7.pem
  - name: "Plain yaml"
    data_hash: yaml_data
    path: common.yaml
  - name: "Eyaml without keys"
    lookup_key: eyaml_lookup_key
    path: "nokeys.eyaml"
"""
case('eyaml/lookup-key', {
    'hiera.yaml': EH,
    'data/secrets/web01.example.com.eyaml': """---
node_secret: %(secret)s
merged:
  - node
  - %(in_array)s
""" % ENC,
    'data/secrets/common.eyaml': """---
lookup_options:
  merged: {merge: unique}
secret: %(secret)s
with_interp: %(with_interp)s
plain: "not encrypted %%{facts.role}"
plain_int: 5
plain_bool: true
nested:
  "%%{facts.role}_key": %(in_hash)s
  list:
    - a
    - %(in_array)s
multiline: %(multiline)s
prefixed: "pw: %(secret)s"
wrong_key: %(wrong_key)s
bad_enc: ENC[PKCS7,notbase64]
unknown_enc: ENC[GPG,abcd]
merged: [common]
alias_plain: "%%{alias('nested')}"
sym: :s
""" % ENC,
    'data/common.yaml': "---\nyaml_only: from yaml\nsecret: yaml-shadowed\n",
    'data/nokeys.eyaml': "---\nnokeys_secret: %(secret)s\nnokeys_plain: plain\n" % ENC,
}, [L(k) for k in ['node_secret', 'secret', 'with_interp', 'plain', 'plain_int', 'plain_bool', 'nested', 'nested.web_key', 'nested.list.1',
                   'multiline', 'prefixed', 'wrong_key', 'bad_enc', 'unknown_enc', 'merged', 'alias_plain', 'sym', 'yaml_only',
                   'nokeys_secret', 'nokeys_plain', 'absent']] + [L('secret', 'unique'), L('merged', 'first'), L('secret', explain=True)],
  extra=KEYS,
  readme='eyaml_lookup_key with test keys (keys/ holds throw-away test fixtures): decryption, plain values, interpolation, lookup_options in eyaml, decrypt errors, missing keys option, missing location (reference §6.4).')

case('eyaml/no-location', {
    'hiera.yaml': """version: 5
hierarchy:
  - name: "Eyaml no location"
    lookup_key: eyaml_lookup_key
""",
}, [L('x')], readme='eyaml_lookup_key without a location (reference §1.4).')

case('eyaml/missing-key-files', {
    'hiera.yaml': """version: 5
hierarchy:
  - name: "Secrets"
    lookup_key: eyaml_lookup_key
    path: "common.eyaml"
    options:
      pkcs7_private_key: keys/nosuch_private.pem
      pkcs7_public_key: keys/nosuch_public.pem
""",
    'data/common.eyaml': "---\nsecret: %(secret)s\nplain: p\n" % ENC,
}, [L('secret'), L('plain')], readme='eyaml with key files that do not exist (reference §6.4).')

# Key and certificate files of other shapes: each level has its own keys and its own data file, so
# each lookup reads exactly one pair (the variants are made by tools/oracle/record-pkcs7-vectors.rb).
VARIANTS = os.path.join(os.path.dirname(os.path.dirname(HERE)), 'fixtures', 'engine', 'pkcs7', 'keys')
KEY_LEVELS = [
    # (lookup key, private key file, public key file)
    ('pkcs8_key', 'private-pkcs8.pem', 'public.pem'),
    ('der_files', 'private.der', 'public.der'),
    ('key_after_cert', 'private-after-cert.pem', 'cert-after-key.pem'),
    ('other_cert', 'private.pem', 'third-public.pem'),
    ('cert_is_the_key', 'private.pem', 'private.pem'),
    ('ec_key', 'private-ec-sec1.pem', 'public.pem'),
    ('public_key_as_private', 'public-key-only.pem', 'public.pem'),
    ('encrypted_key', 'private-encrypted-pkcs8.pem', 'public.pem'),
]
case('eyaml/key-files', dict(
    [('hiera.yaml', "version: 5\nhierarchy:\n" + ''.join(
        '  - name: "%s"\n    lookup_key: eyaml_lookup_key\n    path: "%s.eyaml"\n'
        '    options:\n      pkcs7_private_key: keys/%s\n      pkcs7_public_key: keys/%s\n' % (k, k, priv, pub)
        for k, priv, pub in KEY_LEVELS))]
    + [('data/%s.eyaml' % k, "---\n%s: %s\n" % (k, ENC['secret'])) for k, _, _ in KEY_LEVELS]),
    [L(k) for k, _, _ in KEY_LEVELS],
    extra={'env/keys/' + f: os.path.join(VARIANTS, f) for _, priv, pub in KEY_LEVELS for f in (priv, pub)},
    readme='eyaml_lookup_key with key files in other shapes (PKCS #8, DER, several PEM blocks) and with keys and '
           'certificates that OpenSSL refuses (reference §6.4).')
