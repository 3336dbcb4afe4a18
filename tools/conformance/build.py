#!/usr/bin/env python3
"""Writes the conformance case inputs (env/, facts.json, lookups.jsonl, README.md) under fixtures/conformance.
usage: build.py [CASE_PREFIX ...]   then tools/oracle/record-all.sh records the expected files with Puppet."""
import sys, importlib
import base
for m in ['cases_merge', 'cases_interp', 'cases_module', 'cases_lopts', 'cases_locations', 'cases_dotted',
          'cases_data', 'cases_config', 'cases_eyaml']:
    try:
        importlib.import_module(m)
    except ModuleNotFoundError as e:
        if e.name != m:
            raise
base.write_all(sys.argv[1:] or None)
print(len(base.CASES), 'cases defined')
