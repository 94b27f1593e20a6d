"""srbf's one text table: widths, alignment, rules and footer, byte for byte."""

from srbf.report.text import text_table


def test_left_aligned_with_a_rule_under_the_header():
    assert text_table(["a", "bbb"], [["xx", "y"], ["", "z"]]) == "a   bbb\n--  ---\nxx  y\n    z"


def test_right_aligned_columns_no_header_rule_and_a_footer():
    text = text_table(("name", "n"), [("x", 5), ("long", 12)], right={1}, header_rule=False, footer=[("total", 17)])
    assert text.splitlines() == ["name    n", "x       5", "long   12", "-----  --", "total  17"]


def test_trailing_blanks_are_cut_and_cells_are_strings():
    assert text_table(["h", "last"], [[1.5, ""]]) == "h    last\n---  ----\n1.5"
