#!/usr/bin/env python3
"""Runs commands in alternating order (forward on even rounds, backward on odd ones, so that a
drift of the machine weighs on each alike) and prints, for each, the median and fastest wall
time with the median user, system and total CPU time of the child (getrusage).

usage: tools/bench/alternate-cpu.py ROUNDS 'COMMAND' ['COMMAND' ...]
(docs/benchmarks.md: the 15k overhead figures of sessions 28 and 29.)"""
import resource
import statistics
import subprocess
import sys
import time

if len(sys.argv) < 3:
    sys.exit(__doc__)
rounds, cmds = int(sys.argv[1]), sys.argv[2:]
res = {c: [] for c in cmds}
for i in range(rounds):
    for c in (cmds if i % 2 == 0 else cmds[::-1]):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        subprocess.run(c, shell=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        w = time.perf_counter() - t
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        res[c].append((w, r1.ru_utime - r0.ru_utime, r1.ru_stime - r0.ru_stime))
for c in cmds:
    v = res[c]
    w = sorted(x[0] for x in v)
    u = [x[1] for x in v]
    s = [x[2] for x in v]
    cpu = sorted(x[1] + x[2] for x in v)
    ms = lambda x: x * 1000
    print(f"wall med {ms(statistics.median(w)):7.1f} min {ms(w[0]):7.1f} | user med {ms(statistics.median(u)):7.1f}"
          f" | sys med {ms(statistics.median(s)):6.1f} | cpu med {ms(statistics.median(cpu)):7.1f} min {ms(cpu[0]):7.1f}  {c}")
