#!/usr/bin/env python3
"""Wall times of several commands, run in alternation (A B C, then C B A, ...), for a machine
whose speed drifts from minute to minute: each command sees the same minutes. Prints, per
command, the median, the mean of the faster half of its runs and the fastest run.

usage: tools/bench/alternate.py ROUNDS 'COMMAND' ['COMMAND' ...]
e.g.:  tools/bench/alternate.py 60 "/tmp/old check $C -q --format concise" \\
           "target/release/hieralint check $C -q --format concise"

Compare two commands at a time. With two, each runs as often after itself as after the other
(A B, B A, A B, ...); with three or more, a command's neighbours differ from another's (in A B C,
C B A, B always follows A or C, A follows A or B). On a virtual machine whose fresh memory costs
more than memory another process has just freed, a run after a process that freed more memory
starts faster: two builds measured with a third command in between looked 8% apart by the
median and were within 2% when measured two at a time (docs/benchmarks.md "Session 23").
"""
import statistics
import subprocess
import sys
import time


def main() -> None:
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    rounds, commands = int(sys.argv[1]), sys.argv[2:]
    times: dict[str, list[float]] = {c: [] for c in commands}
    for i in range(rounds):
        for c in commands if i % 2 == 0 else reversed(commands):
            t = time.perf_counter()
            subprocess.run(c, shell=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            times[c].append(time.perf_counter() - t)
    for c in commands:
        v = sorted(times[c])
        faster = v[: max(1, len(v) // 2)]
        print(
            f"median {statistics.median(v) * 1000:8.1f} ms  "
            f"faster half {statistics.mean(faster) * 1000:8.1f} ms  "
            f"min {v[0] * 1000:8.1f} ms  {c}"
        )


if __name__ == "__main__":
    main()
