"""A missing, incomplete or corrupt model dir, or an onnxruntime without an op, gives a clear error."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from native_host.engine import Engine, EngineError, ModelDirError, RuntimeUnsupportedError


@pytest.fixture
def model_copy(default_model_dir: Path, tmp_path: Path) -> Path:
    """A copy of the default model dir whose files a test may break (weights hard-linked when possible;
    onnxruntime refuses external data reached through a symlink)."""
    out = tmp_path / "model"
    out.mkdir()
    for item in default_model_dir.iterdir():
        if item.name == "model.onnx.data":  # tests only delete it, never write it
            try:
                os.link(item, out / item.name)
                continue
            except OSError:
                pass
        shutil.copy(item, out / item.name)
    return out


def test_missing_dir(tmp_path):
    with pytest.raises(ModelDirError, match="model dir not found"):
        Engine.load(tmp_path / "nope")


@pytest.mark.parametrize("name", ["fantasma_model.json", "model.onnx", "tokenizer.json"])
def test_missing_file_is_named(model_copy, name):
    (model_copy / name).unlink()
    with pytest.raises(ModelDirError, match=name.replace(".", r"\.") + ": missing"):
        Engine.load(model_copy)


def test_corrupt_json(model_copy):
    (model_copy / "fantasma_model.json").write_text('{"format_version": 1, "arch', encoding="utf-8")
    with pytest.raises(ModelDirError, match=r"fantasma_model\.json: not valid JSON"):
        Engine.load(model_copy)


def test_wrong_format_version(model_copy):
    path = model_copy / "fantasma_model.json"
    meta = json.loads(path.read_text(encoding="utf-8"))
    meta["format_version"] = 99
    path.write_text(json.dumps(meta), encoding="utf-8")
    with pytest.raises(ModelDirError, match="format_version 99 is not supported"):
        Engine.load(model_copy)


def test_corrupt_tokenizer(model_copy):
    (model_copy / "tokenizer.json").write_text("[]", encoding="utf-8")
    with pytest.raises(ModelDirError, match=r"tokenizer\.json: cannot be loaded"):
        Engine.load(model_copy)


def test_corrupt_onnx(model_copy):
    (model_copy / "model.onnx").write_bytes(b"\x08\x07garbage that is not a protobuf" * 10)
    with pytest.raises(ModelDirError, match=r"model\.onnx"):
        Engine.load(model_copy)


def test_missing_external_weights(model_copy):
    (model_copy / "model.onnx.data").unlink()
    with pytest.raises(ModelDirError, match=r"model\.onnx"):
        Engine.load(model_copy)


def test_state_the_graph_lacks(model_copy):
    path = model_copy / "fantasma_model.json"
    meta = json.loads(path.read_text(encoding="utf-8"))
    meta["state"][0]["input"] = "past_key_values.999.key"
    path.write_text(json.dumps(meta), encoding="utf-8")
    with pytest.raises(ModelDirError, match=r"past_key_values\.999\.key"):
        Engine.load(model_copy)


def test_op_missing_from_onnxruntime_is_named(model_copy):
    """A graph using a contrib op this onnxruntime has no kernel for (as an older release would lack
    LinearAttention): the error names the op and the onnxruntime version to install."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])
    node = helper.make_node("GatedDeltaRuleStep", ["x"], ["y"], domain="com.microsoft")
    graph = helper.make_graph([node], "g", [x], [y])
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid("com.microsoft", 1)]
    )
    onnx.save_model(model, str(model_copy / "model.onnx"))
    with pytest.raises(RuntimeUnsupportedError, match=r"com\.microsoft::GatedDeltaRuleStep.*onnxruntime >="):
        Engine.load(model_copy)


def test_prompt_errors(engine):
    with pytest.raises(EngineError, match="empty"):
        engine.generate([])
    with pytest.raises(EngineError, match="out of range"):
        engine.generate([int(engine.config["vocab_size"])])
    with pytest.raises(EngineError, match="context"):
        engine.generate(list(np.ones(engine.context_length, dtype=int)))
