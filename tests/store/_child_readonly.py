"""Child process for the read-only tests (run without root's power to ignore permissions).

usage: _child_readonly.py write|read PATH -- open the store at PATH for writing (and record a
campaign) or for reading; print "ok <rows>" or "StoreError: <message>".
"""

import sys

from srbf.store import ResultsStore, StoreError


def main(action: str, path: str) -> None:
    try:
        if action == "write":
            with ResultsStore(path) as store:
                store.start_campaign("ro", {}, "cfg", "harness_tuned", git=None)
                print("ok", len(store.campaigns_frame()))
        else:
            with ResultsStore.open_readonly(path) as store:
                print("ok", len(store.predictions_frame()))
    except StoreError as exc:
        print(f"StoreError: {exc}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
