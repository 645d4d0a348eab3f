"""Which model answered, carried from the stream to the records and the run's usage by model."""

from __future__ import annotations

import json

from helikon_fc.core import (
    FinishReason,
    ModelFinish,
    ModelResponse,
    ModelShare,
    ModelTextDelta,
    ModelUsage,
    RunCompleted,
    Usage,
    assemble_response,
    from_json,
    to_json,
)
from helikon_fc.core.record_codec import decode_log, encode_log
from helikon_fc.core.records import ModelAnswered

TEN = Usage(input_tokens=10, requests=1)


def test_assemble_response_names_the_model_of_the_last_usage() -> None:
    """The last `ModelUsage` names the model that answered, as it gives the usage."""
    events = (ModelUsage(Usage(), model="first"), ModelTextDelta("hi"), ModelUsage(TEN, model="backup"))
    answer = assemble_response((*events, ModelFinish(FinishReason.STOP)))
    assert (answer.model, answer.usage) == ("backup", TEN)


def test_assemble_response_without_a_named_model_is_the_model_asked() -> None:
    """No usage, or a last usage that names no model, leaves `model` at `None` (the model asked)."""
    assert assemble_response((ModelTextDelta("hi"),)).model is None
    assert assemble_response((ModelUsage(TEN, model="backup"), ModelUsage(TEN))).model is None


def test_a_recorded_answer_names_its_model_only_when_another_answered() -> None:
    """The stored answer carries ``"model"`` only when set, and reads back equal either way."""
    asked = ModelAnswered(response=ModelResponse(text="a", usage=TEN))
    fallback = ModelAnswered(response=ModelResponse(text="b", usage=TEN, model="backup"))
    texts, _ = encode_log([asked, fallback])
    assert "model" not in json.loads(texts[0])["response"]
    assert json.loads(texts[1])["response"]["model"] == "backup"
    assert decode_log(texts) == [asked, fallback]


def test_a_model_response_written_before_the_field_reads_as_the_model_asked() -> None:
    """A `ModelResponse` document without ``"model"`` (written before it existed) reads with `model=None`."""
    data = json.loads(to_json(ModelResponse(text="a", usage=TEN)))
    del data["model"]
    assert from_json(ModelResponse, json.dumps(data)) == ModelResponse(text="a", usage=TEN)


def test_a_run_completed_written_before_usage_by_model_reads_empty() -> None:
    """A `RunCompleted` document without ``"usage_by_model"`` reads with an empty split."""
    data = json.loads(to_json(RunCompleted(TEN)))
    del data["usage_by_model"]
    assert from_json(RunCompleted, json.dumps(data)) == RunCompleted(TEN)


def test_model_shares_round_trip_with_and_without_a_model() -> None:
    """A `ModelShare` of a known and of an unknown model reads back equal."""
    shares = (ModelShare("a", None, TEN), ModelShare("a", "gpt-5-mini", TEN))
    completed = RunCompleted(TEN + TEN, (), shares)
    assert from_json(RunCompleted, to_json(completed)) == completed
