# Records what hiera-eyaml 3.3's PKCS7 encryptor (Ruby OpenSSL) answers for a set of ENC[PKCS7,...]
# ciphertexts and key files, for src/engine/pkcs7.rs's tests:
#
#     ruby tools/oracle/record-pkcs7-vectors.rb      # rewrites fixtures/engine/pkcs7/
#
# Ciphertexts are made here with Ruby OpenSSL (new random content keys on every run), so rerunning
# changes every vector; the recorded answers are hiera-eyaml's own `Pkcs7.decrypt(Pkcs7.decode(body))`
# with the key options set, exactly what eyaml_lookup_key calls. Keys are throw-away test fixtures.
# Run it without a terminal (`</dev/null`): OpenSSL asks for the encrypted keys' pass phrase on a terminal.
require 'openssl'
require 'json'
require 'base64'
require 'fileutils'
require 'hiera/backend/eyaml'
require 'hiera/backend/eyaml/options'
require 'hiera/backend/eyaml/encryptors/pkcs7'

ROOT = File.expand_path('../..', __dir__)
OUT = File.join(ROOT, 'fixtures/engine/pkcs7')
KEYS = File.join(OUT, 'keys')
FileUtils.rm_rf(OUT)
FileUtils.mkdir_p(KEYS)

src = File.join(ROOT, 'tools/conformance/eyaml')
priv_pem = File.read(File.join(src, 'keys/private_key.pkcs7.pem'))
pub_pem = File.read(File.join(src, 'keys/public_key.pkcs7.pem'))
cert = OpenSSL::X509::Certificate.new(pub_pem)
key = OpenSSL::PKey::RSA.new(priv_pem)
other_cert = OpenSSL::X509::Certificate.new(File.read(File.join(src, 'otherkeys/public_key.pkcs7.pem')))

# A third recipient whose certificate has another issuer and serial than hiera-eyaml's (issuer "/",
# serial 1), as a certificate made by another tool would.
third_key = OpenSSL::PKey::RSA.new(2048)
third_cert = OpenSSL::X509::Certificate.new
third_cert.version = 2
third_cert.serial = 4242
third_cert.subject = third_cert.issuer = OpenSSL::X509::Name.parse('/CN=other-tool')
third_cert.public_key = third_key.public_key
third_cert.not_before = Time.at(0)
third_cert.not_after = Time.at(0x7fffffff)
third_cert.sign(third_key, OpenSSL::Digest.new('SHA256'))

dsa = OpenSSL::PKey.generate_key(OpenSSL::PKey.generate_parameters('DSA', 'dsa_paramgen_bits' => 1024))

def body_of(lines) = lines[1..-2].join.gsub(/\s/, '')
def wrap(s, n) = s.scan(/.{1,#{n}}/).join("\n")

pk_body = body_of(priv_pem.lines)
pk8_pem = key.private_to_pem
key_files = {
  'private.pem' => priv_pem,
  'public.pem' => pub_pem,
  'private-pkcs8.pem' => pk8_pem,
  'private-wrapped-76.pem' => "-----BEGIN RSA PRIVATE KEY-----\n#{wrap(pk_body, 76)}\n-----END RSA PRIVATE KEY-----\n",
  'private-one-line.pem' => "-----BEGIN RSA PRIVATE KEY-----\n#{pk_body}\n-----END RSA PRIVATE KEY-----\n",
  'private-leading-text.pem' => "Bag Attributes\n    friendlyName: test\n" + priv_pem,
  'private-trailing-text.pem' => priv_pem + "trailing text\n",
  'private-crlf.pem' => priv_pem.gsub("\n", "\r\n"),
  'private-indented.pem' => priv_pem.lines.map { |l| '  ' + l }.join,
  'private-after-cert.pem' => pub_pem + priv_pem,
  'private-no-final-newline.pem' => priv_pem.chomp,
  'private-bad-base64.pem' => priv_pem.sub(/^MII/, 'M*I'),
  'private-not-rsa.pem' => OpenSSL::PKey::EC.generate('prime256v1').private_to_pem,
  'private-ec-sec1.pem' => OpenSSL::PKey::EC.generate('prime256v1').to_pem,
  'private-ed25519.pem' => OpenSSL::PKey.generate_key('ED25519').private_to_pem,
  'private-ed448.pem' => OpenSSL::PKey.generate_key('ED448').private_to_pem,
  'private-x25519.pem' => OpenSSL::PKey.generate_key('X25519').private_to_pem,
  'private-x448.pem' => OpenSSL::PKey.generate_key('X448').private_to_pem,
  'private-dsa-pkcs8.pem' => dsa.private_to_pem,
  'private-dsa-traditional.pem' => dsa.to_pem,
  'private-rsa-pss.pem' => OpenSSL::PKey.generate_key('RSA-PSS', 'rsa_keygen_bits' => 2048).private_to_pem,
  'private-encrypted-pkcs8.pem' => key.private_to_pem(OpenSSL::Cipher.new('AES-256-CBC'), 'passphrase'),
  'private-encrypted-legacy.pem' => key.to_pem(OpenSSL::Cipher.new('AES-128-CBC'), 'passphrase'),
  'private.der' => key.to_der,
  'private-pkcs8.der' => key.private_to_der,
  'public-pkcs1.pem' => IO.popen(%w[openssl rsa -RSAPublicKey_out], 'r+') { |io| io.write(priv_pem); io.close_write; io.read },
  'public.der' => cert.to_der,
  'not-a-key.pem' => "this is not a key\n",
  'public-key-only.pem' => key.public_to_pem,
  'cert-bad-der.pem' => "-----BEGIN CERTIFICATE-----\n#{wrap(Base64.strict_encode64('not a certificate, but valid base64'), 64)}\n-----END CERTIFICATE-----\n",
  'cert-bad-base64.pem' => pub_pem.sub(/^MII/, 'M*I'),
  'cert-after-key.pem' => priv_pem + pub_pem,
  'cert-x509-label.pem' => pub_pem.gsub('CERTIFICATE', 'X509 CERTIFICATE'),
  'third-private.pem' => third_key.to_pem,
  'third-public.pem' => third_cert.to_pem,
}
key_files.each { |name, text| File.binwrite(File.join(KEYS, name), text) }

def encrypt(certs, plain, cipher = 'AES-256-CBC')
  OpenSSL::PKCS7.encrypt(certs, plain, OpenSSL::Cipher.new(cipher), OpenSSL::PKCS7::BINARY).to_der
end

# Re-encodes `der` with the encrypted content as a constructed [0] of two OCTET STRINGs (BER, definite
# lengths), which OpenSSL's d2i reads and DER forbids.
def constructed_content(der)
  ci = OpenSSL::ASN1.decode(der)
  env = ci.value[1].value[0]
  eci = env.value[2]
  prim = eci.value[2]
  bytes = prim.value
  half = bytes.bytesize / 2
  eci.value[2] = OpenSSL::ASN1::ASN1Data.new(
    [OpenSSL::ASN1::OctetString.new(bytes[0...half]), OpenSSL::ASN1::OctetString.new(bytes[half..])],
    0, :CONTEXT_SPECIFIC
  )
  ci.to_der
end

# The same DER with the outer SEQUENCE's length written in one more octet than needed (BER).
def long_length(der)
  raise 'expected 0x30 0x82' unless der.getbyte(0) == 0x30 && der.getbyte(1) == 0x82
  "\x30\x83\x00".b + der.byteslice(2..)
end

# `der` with its EncryptedContentInfo changed by the block (given [contentType, algorithm, content]).
def edit_content_info(der)
  ci = OpenSSL::ASN1.decode(der)
  eci = ci.value[1].value[0].value[2]
  eci.value = yield(eci.value)
  ci.to_der
end

def tamper_last_block(der)
  d = der.dup.b
  d.setbyte(d.bytesize - 20, d.getbyte(d.bytesize - 20) ^ 0x01)
  d
end

# Encrypts to `certs` until the DER SET OF RecipientInfos (sorted by encoding) has the recipient that
# our key opens at `index`.
def encrypt_with_ours_at(index, certs, plain, key)
  loop do
    der = encrypt(certs, plain)
    ris = OpenSSL::ASN1.decode(der).value[1].value[0].value[1].value
    opens = ris.map do |ri|
      key.private_decrypt(ri.value[3].value)
      true
    rescue OpenSSL::PKey::PKeyError
      false
    end
    return der if opens.index(true) == index
  end
end

signed = OpenSSL::PKCS7.sign(cert, key, 'signed, not enveloped', [], OpenSSL::PKCS7::BINARY).to_der
std = encrypt([cert], 'secret value')
oaep = `printf 'oaep value' | openssl cms -encrypt -binary -aes-256-cbc -outform DER -recip #{File.join(KEYS, 'public.pem')} -keyopt rsa_padding_mode:oaep`.b
raise 'openssl cms failed' unless $?.success?

b64 = ->(d) { Base64.strict_encode64(d) }
vectors = [
  ['aes-256-cbc', b64[std]],
  ['aes-128-cbc', b64[encrypt([cert], 'aes 128 value', 'AES-128-CBC')]],
  ['aes-192-cbc', b64[encrypt([cert], 'aes 192 value', 'AES-192-CBC')]],
  ['des-ede3-cbc', b64[encrypt([cert], 'triple des value', 'DES-EDE3-CBC')]],
  ['empty-plaintext', b64[encrypt([cert], '')]],
  ['one-full-block', b64[encrypt([cert], '0123456789abcdef')]],
  ['utf8', b64[encrypt([cert], "h\u00e9llo \u2603 \u{1F600}")]],
  ['invalid-utf8', b64[encrypt([cert], "\xff\xfe ok".b)]],
  ['wrong-key', b64[encrypt([other_cert], 'for the other key')]],
  ['two-recipients-ours-first', b64[encrypt_with_ours_at(0, [cert, other_cert], 'two recipients', key)]],
  ['two-recipients-ours-second', b64[encrypt_with_ours_at(1, [cert, other_cert], 'two recipients', key)]],
  ['two-recipients-other-issuer-first', b64[encrypt([third_cert, cert], 'two recipients, one third-party')]],
  ['other-issuer-and-serial', b64[encrypt([third_cert], 'for a third-party certificate')]],
  ['wrapped-base64', wrap(b64[std], 60).gsub("\n", "\n    ")],
  ['spaces-in-base64', b64[std].scan(/.{1,20}/).join(' ')],
  ['trailing-bytes-after-der', b64[std + "\x00\x01junk".b]],
  ['truncated-der', b64[std.byteslice(0, std.bytesize - 10)]],
  ['tampered-last-block', b64[tamper_last_block(std)]],
  ['signed-data', b64[signed]],
  ['not-base64', 'notbase64'],
  ['empty-der', ''],
  ['ber-constructed-content', b64[constructed_content(std)]],
  ['ber-long-length', b64[long_length(std)]],
  ['rsa-oaep-recipient', b64[oaep]],
  ['no-encrypted-content', b64[edit_content_info(std) { |v| v[0, 2] }]],
  ['unknown-cipher-oid', b64[edit_content_info(std) do |v|
    [v[0], OpenSSL::ASN1::Sequence.new([OpenSSL::ASN1::ObjectId.new('1.2.3.4.5'), v[1].value[1]]), v[2]]
  end]],
  ['iv-wrong-length', b64[edit_content_info(std) do |v|
    iv = OpenSSL::ASN1::OctetString.new(v[1].value[1].value[0, 12])
    [v[0], OpenSSL::ASN1::Sequence.new([v[1].value[0], iv]), v[2]]
  end]],
  ['iv-missing', b64[edit_content_info(std) { |v| [v[0], OpenSSL::ASN1::Sequence.new([v[1].value[0]]), v[2]] }]],
  ['iv-missing-multi-block', b64[edit_content_info(encrypt([cert], 'a plaintext of more than one AES block')) do |v|
    [v[0], OpenSSL::ASN1::Sequence.new([v[1].value[0]]), v[2]]
  end]],
  ['iv-not-an-octet-string', b64[edit_content_info(std) do |v|
    [v[0], OpenSSL::ASN1::Sequence.new([v[1].value[0], OpenSSL::ASN1::Null.new(nil)]), v[2]]
  end]],
].map { |name, ct| { 'name' => name, 'private_key' => 'private.pem', 'public_key' => 'public.pem', 'ciphertext' => ct } }

std_b64 = b64[std]
%w[private-pkcs8.pem private-wrapped-76.pem private-one-line.pem private-leading-text.pem
   private-trailing-text.pem private-crlf.pem private-indented.pem private-after-cert.pem
   private-no-final-newline.pem private-bad-base64.pem private-not-rsa.pem private-ec-sec1.pem
   private-ed25519.pem private-ed448.pem private-x25519.pem private-x448.pem private-dsa-pkcs8.pem
   private-dsa-traditional.pem private-rsa-pss.pem private-encrypted-pkcs8.pem private-encrypted-legacy.pem private.der private-pkcs8.der
   not-a-key.pem public-key-only.pem public-pkcs1.pem].each do |k|
  vectors << { 'name' => "key-#{k.sub(/\.pem\z/, '').tr('.', '-')}", 'private_key' => k, 'public_key' => 'public.pem', 'ciphertext' => std_b64 }
end
{ 'cert-not-a-cert' => 'not-a-key.pem', 'cert-is-the-private-key' => 'private.pem', 'cert-bad-der' => 'cert-bad-der.pem',
  'cert-bad-base64' => 'cert-bad-base64.pem', 'cert-after-key' => 'cert-after-key.pem',
  'cert-x509-label' => 'cert-x509-label.pem', 'cert-der' => 'public.der',
  'cert-of-another-issuer' => 'third-public.pem' }.each do |name, file|
  vectors << { 'name' => name, 'private_key' => 'private.pem', 'public_key' => file, 'ciphertext' => std_b64 }
end
vectors << { 'name' => 'public-key-only-and-bad-ciphertext', 'private_key' => 'public-key-only.pem', 'public_key' => 'public.pem', 'ciphertext' => 'notbase64' }
vectors << { 'name' => 'public-key-only-and-signed-data', 'private_key' => 'public-key-only.pem', 'public_key' => 'public.pem', 'ciphertext' => b64[signed] }
vectors << { 'name' => 'cert-mismatch-and-signed-data', 'private_key' => 'private.pem', 'public_key' => 'third-public.pem', 'ciphertext' => b64[signed] }
third = b64[encrypt([third_cert], 'third-party value')]
vectors << { 'name' => 'third-party-key-and-cert', 'private_key' => 'third-private.pem', 'public_key' => 'third-public.pem', 'ciphertext' => third }

Pkcs7 = Hiera::Backend::Eyaml::Encryptors::Pkcs7
File.open(File.join(OUT, 'vectors.jsonl'), 'w') do |out|
  vectors.each do |v|
    Hiera::Backend::Eyaml::Options['pkcs7_private_key'] = File.join(KEYS, v['private_key'])
    Hiera::Backend::Eyaml::Options['pkcs7_public_key'] = File.join(KEYS, v['public_key'])
    begin
      plain = Pkcs7.decrypt(Pkcs7.decode(v['ciphertext']))
      v['plaintext_base64'] = Base64.strict_encode64(plain)
    rescue StandardError => e
      v['error'] = e.message
      v['error_class'] = e.class.name
    end
    out.puts JSON.generate(v)
  end
end
puts "#{vectors.size} vectors in #{OUT}"
