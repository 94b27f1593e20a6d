"""report/escape.py: text from the data shown as written, in Markdown and in matplotlib labels."""

from __future__ import annotations

import pytest
from matplotlib.figure import Figure

from srbf.report.escape import mathtext, md


@pytest.mark.parametrize("text, shown", [
    ("<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"),
    ("a|b", "a\\|b"),
    ("a\\|b", "a\\\\\\|b"),  # a backslash cannot un-escape the pipe after it
    ("two\nlines\r\nand\u2028more", "two lines and more"),
    ("bell\x07nul\x00", "bell nul "),
    ("[x](javascript:alert(1))", "\\[x\\](javascript:alert(1))"),
    ("**bold** `code` ~~gone~~", "\\*\\*bold\\*\\* \\`code\\` \\~\\~gone\\~\\~"),
    ("$\\frac{$", "\\$\\\\frac{\\$"),
    ("_emphasis_ and __init__", "\\_emphasis\\_ and \\_\\_init\\_\\_"),
    ("harness_tuned", "harness_tuned"),  # "_" inside a word is plain text: left as written
    ("a & b", "a &amp; b"),
])
def test_md(text, shown):
    assert md(text) == shown


def test_md_takes_any_value():
    assert md(3) == "3" and md(None) == "None"


def test_md_leaves_no_raw_pipe_or_tag():
    text = md("|<|>|\\|\n|")
    assert "<" not in text and ">" not in text and "\n" not in text
    unescaped = [i for i, c in enumerate(text) if c == "|" and (len(text[:i]) - len(text[:i].rstrip("\\"))) % 2 == 0]
    assert unescaped == []


@pytest.mark.parametrize("text", ["$\\frac{$", "$x$", "price $5 and $6", "\\$a$b$", "$$"])
def test_mathtext_labels_draw_as_written(text, tmp_path):
    figure = Figure()
    ax = figure.subplots()
    ax.set_title(mathtext(text))
    ax.plot([0, 1], [0, 1], label=mathtext(text))
    ax.legend()
    figure.savefig(tmp_path / "label.png")  # raises on a label that starts mathtext and does not parse
    assert (tmp_path / "label.png").stat().st_size > 0
    assert mathtext(text).count("$") == mathtext(text).count("\\$")
