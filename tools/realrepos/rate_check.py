import json, sys
# rate_check.py LOOKUPS RECORDED ANSWERS REPO SET: Puppet's answers in this run against the
# recorded ones. The recorded answers cover every lookup; the oracle was asked the plain ones
# (no merge), in order.
asked = [json.loads(l) for l in open(sys.argv[1])]
recorded = [json.loads(l) for l in open(sys.argv[2])]
plain = [r for a, r in zip(asked, recorded) if "merge" not in a]
now = [json.loads(l) for l in open(sys.argv[3]) if l.strip()]
for r, n in zip(plain, now):
    if "error" in n and "error" not in r:
        print(json.dumps({"repo": sys.argv[4], "set": sys.argv[5], "key": n["key"], "error": n["error"]}))
print(json.dumps({"repo": sys.argv[4], "set": sys.argv[5], "pairs": len(plain), "answered": len(now)}))
