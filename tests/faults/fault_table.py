"""What srbf must record for each fault of ``faulty.py``: the status and a piece of the reason, in
the order the shared run commits them. Shared by ``test_faults.py`` and ``benchmarks/fault_probes.py``.

``SANITIZED`` faults must also carry srbf's note in the record (``internals["srbf_sanitized"]``),
``PROMPT`` faults must be recorded well before the time limit (no waiting for a dead channel).
"""

POISON_STORED = "x1\ufffd"  # the poison string with its lone surrogate replaced

FAULTS = {
    "raise": ("failed", "ValueError: boom"),
    "raise_poison": ("failed", "PoisonError: bad " + POISON_STORED),
    "raise_huge_message": ("failed", "ValueError: mmmm"),
    "raise_unprintable": ("failed", "Unprintable"),
    "raise_keyboard_interrupt": ("failed", "KeyboardInterrupt"),
    "raise_memory_error": ("failed", "MemoryError: pretend"),
    "recursion": ("failed", "RecursionError"),
    "sys_exit": ("failed", "SystemExit: 3"),
    "exit_mid_fit": ("crashed", "exited with code 9"),
    "sigkill": ("crashed", "killed by signal SIGKILL"),
    "segfault": ("crashed", "killed by signal SIGSEGV"),
    "hang": ("timeout", "no result within the time limit"),
    "sleep_past_limit": ("timeout", "no result within the time limit"),
    "return_none": ("failed", "must return a dict with an 'expression' str; it returned NoneType"),
    "return_bytes": ("failed", "it returned bytes"),
    "return_str": ("failed", "it returned str"),
    "return_generator": ("failed", "it returned generator"),
    "expression_bytes": ("failed", "'expression' of type bytes"),
    "expression_int": ("failed", "'expression' of type int"),
    "expression_nan": ("failed", "'expression' of type float"),
    "expression_missing": ("failed", "no 'expression'"),
    "expression_empty": ("failed", "empty 'expression'"),
    "expression_huge": ("failed", "over the limit of 100 KB (limits.expression_bytes)"),
    "internals_huge": ("failed", "over the limit of 1 MB (limits.internals_bytes)"),
    "internals_nan": ("ok", ""),
    "internals_deep": ("failed", "nested deeper than"),
    "internals_unreadable": ("failed", "cannot read what fit() returned"),
    "trajectory_flood": ("ok", ""),
    "report_huge": ("failed", "over the limit of 100 KB (limits.expression_bytes)"),
    "report_wrong_type": ("failed", "TypeError: report() takes the expression as a str"),
    "fit_seconds_nan": ("ok", ""),
    "poison_expression": ("ok", ""),
    "poison_report": ("ok", ""),
    "poison_internals_value": ("ok", ""),
    "poison_internals_key": ("ok", ""),
    "poison_stdout": ("failed", "UnicodeEncodeError"),
    "print_megabytes": ("ok", ""),
    "close_protocol_pipe": ("crashed", "the worker process died during the fit"),
    "pipe_garbage": ("crashed", "broke the protocol: bad frame magic"),
    "pipe_short_garbage": ("crashed", "broke the protocol: bad frame magic"),
    "pipe_endless_frame": ("crashed", "broke the protocol: a frame header of 2147483648 bytes"),
    "forge_report_bad_time": ("failed", "malformed report: 't' is str, not a number"),
    "forge_report_not_text": ("failed", "malformed report: 'expression' is list, not str"),
    "forge_result_bad_types": ("failed", "malformed result: 'wall' is str, not a number"),
    "forge_result_deep": ("crashed", "broke the protocol: frame header is not JSON"),
    "fork_and_linger": ("ok", ""),
    "fork_and_exit": ("crashed", "exited with code 4"),
    "kill_guard": ("crashed", "the worker process died during the fit"),
    "thread_reports_after_return": ("ok", ""),
    "close_stdout": ("ok", ""),  # last: the worker keeps running without stdout and stderr
}

SANITIZED = {
    "raise_poison": "error",
    "poison_expression": "expression",
    "poison_report": "trajectory",
    "poison_internals_value": "internals",
    "poison_internals_key": "internals",
    "trajectory_flood": "trajectory",
}

PROMPT = {"close_protocol_pipe", "pipe_garbage", "pipe_short_garbage", "pipe_endless_frame", "forge_result_deep",
          "fork_and_exit", "exit_mid_fit", "kill_guard"}  # fmt: skip
