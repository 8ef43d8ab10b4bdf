"""elf-eval's protocol and note context (bench.eval_protocol, bench.eval_notes), pure."""

from __future__ import annotations

from bench.eval_dataset import Conversation, Dataset, Item, Query
from bench.eval_notes import NEIGHBOUR_CHARS, NoteShape, neighbour_context, plan_notes
from bench.eval_protocol import conversation_splits, only_split, split_metrics


def _conv(cid: str) -> Conversation:
    items = (Item(f"{cid}:1", "A: one", "A", 1), Item(f"{cid}:2", "B: two", "B", 1),
             Item(f"{cid}:3", "A: three", "A", 1), Item(f"{cid}:4", "B: four", "B", 2))
    return Conversation(cid, items, (Query(f"{cid}:q0", "two?", (f"{cid}:2",), 4, "single-hop"),))


def _ds(n: int) -> Dataset:
    return Dataset(path="x", sha256="0" * 64, source={}, conversations=tuple(_conv(f"c{i}") for i in range(n)))


def test_the_first_five_conversations_are_dev_and_the_rest_test():
    ds = _ds(7)
    splits = conversation_splits(ds)
    assert [splits[f"c{i}"] for i in range(7)] == ["dev"] * 5 + ["test"] * 2
    assert [c.conversation_id for c in only_split(ds, "test").conversations] == ["c5", "c6"]
    assert len(only_split(ds, "dev").conversations) == 5 and only_split(ds, "all") is ds


def test_split_metrics_keep_each_split_apart():
    splits = {"c0": "dev", "c5": "test"}
    rows = [{"conversation_id": "c0", "category_name": "temporal", "metrics": {m: 1.0 for m in METRIC_NAMES}},
            {"conversation_id": "c5", "category_name": "temporal", "metrics": {m: 0.0 for m in METRIC_NAMES}}]
    out = split_metrics(rows, splits)
    assert out["dev"]["overall"]["recall@10"] == 1.0 and out["test"]["overall"]["recall@10"] == 0.0
    assert out["dev"]["by_category"]["temporal"]["queries"] == 1
    assert set(split_metrics(rows[:1], splits)) == {"dev"}


def test_a_note_carries_the_turns_around_it_in_its_session_only():
    conv = _conv("c0")
    assert neighbour_context(conv.items, 0) == "B: two"
    assert neighbour_context(conv.items, 1) == "A: one\nA: three"
    assert neighbour_context(conv.items, 2) == "B: two"  # item 4 is another session
    assert neighbour_context(conv.items, 3) == ""
    planned = plan_notes(conv, 240)
    assert planned[1].body()["context"] == "A: one\nA: three"
    assert "context" not in plan_notes(conv, 240, NoteShape(context="none"))[1].body()


def test_a_long_neighbour_is_cut_at_a_word():
    long = "B: " + "word " * 300
    items = (Item("x:1", "A: hi", "A", 1), Item("x:2", long, "B", 1))
    context = neighbour_context(items, 0)
    assert len(context) <= NEIGHBOUR_CHARS and context.endswith("word") and long.startswith(context)


METRIC_NAMES = ("recall@5", "recall@10", "hit@10", "mrr@10", "ndcg@10")


def test_a_note_carries_its_session_time_unless_told_not_to():
    items = (Item("x:1", "A: hi", "A", 1, "2023-05-08T13:56:00"),)
    conv = Conversation("x", items, ())
    assert plan_notes(conv, 240)[0].body()["observed_at"] == "2023-05-08T13:56:00"
    assert "observed_at" not in plan_notes(conv, 240, NoteShape(time="none"))[0].body()


def test_an_ab_changes_one_choice_of_the_note_shape():
    assert NoteShape().changed("context:none") == NoteShape(context="none")
    assert NoteShape().changed("time:none") == NoteShape(time="none")
    for bad in ("context:all", "colour:red", "time"):
        try:
            NoteShape().changed(bad)
        except ValueError as exc:
            assert "expected context:" in str(exc)
        else:
            raise AssertionError(bad)
