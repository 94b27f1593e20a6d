"""``scoring_plan.chunks``: whole problems, in order, in chunks that shrink towards the end."""

import pytest

from srbf.judge.problem_scoring import DrawnProblem, StoredPrediction
from srbf.judge.scoring_plan import MIN_CHUNK, chunks


def _problem(index: int, predictions: int) -> DrawnProblem:
    preds = tuple(StoredPrediction(index * 10 + k, "ok", "x0", None, "", "", None) for k in range(predictions))
    return DrawnProblem("c", None, "c", 1, f"p{index}", 0, 0, "n=8", 8, 0.0, 8, False, predictions=preds)


@pytest.mark.slow
def test_chunks_keep_every_problem_in_order_and_shrink_towards_the_end():
    works = [_problem(i, 1 + i % 3) for i in range(3000)]
    total = sum(len(w.predictions) for w in works)
    pieces = list(chunks(iter(works), 2, total))
    assert [w for piece in pieces for w in piece] == works
    sizes = [sum(len(w.predictions) for w in piece) for piece in pieces]
    assert max(sizes) <= 128 + 2  # a chunk closes at the problem that reaches its size
    assert all(size >= MIN_CHUNK for size in sizes[:-1])
    assert sizes[0] > 100 and max(sizes[-5:]) < 16  # big chunks first, small ones last


def test_a_few_predictions_make_one_chunk():
    works = [_problem(i, 1) for i in range(5)]
    assert list(chunks(works, 4, 5)) == [works]
