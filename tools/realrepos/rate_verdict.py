import json, os, sys
# rate_verdict.py CHECKS: stops the run when Puppet fails lookups it answered when recorded.
rows = [json.loads(l) for l in open(sys.argv[1])]
pairs = sum(r.get("pairs", 0) for r in rows)
missing = sum(r["pairs"] - r["answered"] for r in rows if "pairs" in r)
failing = [r for r in rows if "error" in r]
if failing or missing:
    first = failing[0] if failing else "a process that stopped early"
    print(f"Puppet's answers differ from the recorded ones: {len(failing)} of {pairs} lookups fail "
          f"now and were answered when recorded, {missing} not answered at all; first: {first}",
          file=sys.stderr)
    print("(is the oracle set up as /work/shared/oracle says: hiera-eyaml and ruby-hocon installed?)",
          file=sys.stderr)
    if (len(failing) + missing) * 20 > pairs and os.environ.get("FORCE") != "1":
        print("stopping: Puppet's rate would be measured on failing lookups (FORCE=1 to go on)",
              file=sys.stderr)
        sys.exit(1)
else:
    print(f"Puppet's answers in this run: the recorded ones on all {pairs} lookups")
