#!/usr/bin/env python3
"""TVM's TVMScript printer and parser on the flat program of benches/relax.rs.

`cargo xtask bench --vs-tvm` runs this beside TVM's anchor script: main(x)
with one dataflow block of N `R.add(lv, R.const(1.0, "float32"))` bindings and
an output. It prints one JSON line per (operation, N) with the median wall
time over the runs, in ns per binding: `mod.script()` for "print" and
`tvm.script.from_source(text)` for "parse" (checked structurally equal).

Usage: python tvm_text.py --n 1000 10000 [--parse-max-n 10000] [--reps 3]
"""

import argparse
import json
import statistics
import time


def build(n):
    from tvm import relax
    from tvm.relax import op as rop

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((4,), "float32"))
    c = relax.const(1.0, "float32")
    with bb.function("main", [x]):
        with bb.dataflow():
            lv = x
            for _ in range(n):
                lv = bb.emit(rop.add(lv, c))
            gv = bb.emit_output(lv)
        bb.emit_func_output(gv)
    return bb.get()


def median_seconds(run, reps):
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main():
    import tvm
    from tvm.script import from_source

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, nargs="+", default=[1000])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--parse-max-n", type=int, default=10000)
    args = ap.parse_args()
    for n in args.n:
        mod = build(n)
        reps = args.reps if n <= 100_000 else 1
        secs, text = median_seconds(mod.script, reps)
        print(json.dumps({"key": "print", "n": n, "ns_per_binding": secs / n * 1e9,
                          "bytes": len(text)}), flush=True)
        if n <= args.parse_max_n:
            secs, parsed = median_seconds(lambda: from_source(text), 1 if n > 1000 else reps)
            tvm.ir.assert_structural_equal(mod, parsed)
            print(json.dumps({"key": "parse", "n": n, "ns_per_binding": secs / n * 1e9}),
                  flush=True)


if __name__ == "__main__":
    main()
