"""What the slot protocol's typed messages cost: encoding and decoding (with its checks) against
the plain tuples they replaced, per message and per fit.

Run:  python benchmarks/slot_messages.py [--fits 10] [--repeat 31]

A batch's ``Outcomes`` carries ``--fits`` outcomes (what a quick method's batch sends within
``slot.HOLD_SECONDS``), then one ``BatchEnd``; each is pickled and unpickled as over the pipe.
Best of ``--repeat`` rounds of CPU time (the machine may be shared), the two forms interleaved; figures are printed, not asserted.
"""

from __future__ import annotations

import argparse
import pickle
import time
import timeit

from srbf.core import FitResult
from srbf.runs import slot_messages as msg


def outcome(i: int) -> msg.SlotOutcome:
    result = FitResult(status="ok", expression=f"x0 * {i}.5 + 1", wall_seconds=0.01, cpu_seconds=0.01,
                       internals={"constants": [i, 1.0]}, trajectory=[(0.005, "x0")])  # fmt: skip
    return msg.SlotOutcome(result, "d" * 64, "i" * 64)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fits", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=31)
    args = parser.parse_args()
    held = [outcome(i) for i in range(args.fits)]
    dumps, loads, protocol = pickle.dumps, pickle.loads, pickle.HIGHEST_PROTOCOL

    def tuples():
        loads(dumps(("outcomes", held), protocol))
        kind, run, error, abnormal, last_error = loads(dumps(("end", len(held), None, 0, ""), protocol))

    def typed():
        msg.decode(msg.encode(msg.Outcomes(held)), msg.TO_PARENT)
        msg.decode(msg.encode(msg.BatchEnd(len(held), msg.AbnormalEnds())), msg.TO_PARENT)

    number, best = 2000, {tuples: float("inf"), typed: float("inf")}
    for _ in range(args.repeat):
        for form in best:
            best[form] = min(best[form], timeit.Timer(form, timer=time.process_time).timeit(number) / number)
    for label, form in (("tuples", tuples), ("typed messages", typed)):
        print(f"{label:16s} {best[form] * 1e6:8.1f} us a batch of {args.fits}, {best[form] * 1e6 / args.fits:6.2f} us a fit")
    print(f"difference       {(best[typed] - best[tuples]) * 1e6 / args.fits:+8.2f} us a fit")


if __name__ == "__main__":
    main()
