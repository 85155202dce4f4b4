"""The ONNX graph of a BERT sentence encoder, written from its safetensors weights.

No torch: the graph is written node by node with `onnx.helper` from the tensors in
`model.safetensors` and the sizes in `config.json`, the way Hugging Face's `BertModel`
computes (embeddings and LayerNorm, then N layers of self-attention and a GELU
feed-forward block, each followed by a residual LayerNorm), then the sentence-transformers
pooling (mean, CLS or max over the attention mask) and, when asked, L2 normalisation.

The activation is ONNX Runtime's fused `BiasGelu` (exact GELU) or `FastGelu` (its tanh
approximation), domain `com.microsoft`: the int8 copy (`toolscout_onnx.build`) knows from
them that the values are at least -0.17. The key bias is left out: it adds the same
amount to each of a query's scores, which the softmax ignores.

Inputs are `input_ids`, `attention_mask` and `token_type_ids` (int64, batch by sequence);
the output is `sentence_embedding` (float32, batch by hidden size).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from toolscout import ConfigError

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
    import onnx

__all__ = ["GRAPH_VERSION", "INPUTS", "OUTPUT", "POOLING", "TOKENS", "build_bert_graph"]

#: Part of the key a built graph is cached under: raise it whenever the graph changes.
GRAPH_VERSION = 2

INPUTS = ("input_ids", "attention_mask", "token_type_ids")
OUTPUT = "sentence_embedding"
TOKENS = "last_hidden_state"
POOLING = ("mean", "cls", "max")

_OPSET = 17  # LayerNormalization; ONNX Runtime 1.14 and later
_MS = "com.microsoft"  # ONNX Runtime's own operators (BiasGelu, FastGelu)
_IR_VERSION = 8
_ACTIVATIONS = ("gelu", "gelu_new", "gelu_pytorch_tanh", "relu")


class _Graph:
    """Nodes and initializers, each output named after its node."""

    def __init__(self) -> None:
        self.nodes: list[Any] = []
        self.initializers: list[Any] = []
        self._count = 0

    def constant(self, name: str, array: Any) -> str:
        import numpy as np
        from onnx import numpy_helper

        self.initializers.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def op(self, op_type: str, *inputs: str, domain: str = "", **attributes: Any) -> str:
        from onnx import helper

        self._count += 1
        output = f"{op_type}_{self._count}"
        self.nodes.append(
            helper.make_node(op_type, list(inputs), [output], output, domain=domain, **attributes)
        )
        return output


def _prefix(tensors: Mapping[str, Any]) -> str:
    for prefix in ("", "bert.", "model."):
        if f"{prefix}embeddings.word_embeddings.weight" in tensors:
            return prefix
    raise ConfigError(
        "the safetensors file holds no BERT embeddings (embeddings.word_embeddings.weight); "
        "only BERT-type encoders can be built without torch"
    )


def build_bert_graph(
    tensors: Mapping[str, npt.NDArray[Any]],
    config: Mapping[str, Any],
    *,
    pooling: str | None = "mean",
    normalize: bool = True,
) -> onnx.ModelProto:
    """The sentence encoder of a BERT model as an ONNX model (weights included).

    `pooling=None` leaves the pooling out: the output is then `last_hidden_state`, one
    vector per token (batch by sequence by hidden size), as a Hugging Face export has it.
    """
    import numpy as np
    from onnx import TensorProto

    kind = config.get("model_type", "bert")
    if kind != "bert":
        raise ConfigError(
            f"only BERT encoders can be built from safetensors, this model is {kind!r}: give "
            "the embedder a directory with an ONNX file (model.onnx), or use the "
            "sentence-transformers embedder"
        )
    if pooling is not None and pooling not in POOLING:
        raise ConfigError(f"pooling must be one of {', '.join(POOLING)}, got {pooling!r}")
    activation = config.get("hidden_act", "gelu")
    if activation not in _ACTIVATIONS:
        raise ConfigError(f"unsupported hidden_act {activation!r}; supported: {_ACTIVATIONS}")
    if config.get("position_embedding_type", "absolute") != "absolute":
        raise ConfigError("only absolute position embeddings can be built without torch")
    hidden = int(config["hidden_size"])
    heads = int(config["num_attention_heads"])
    layers = int(config["num_hidden_layers"])
    epsilon = float(config.get("layer_norm_eps", 1e-12))
    if hidden % heads:
        raise ConfigError(f"hidden_size {hidden} is not a multiple of {heads} heads")
    head = hidden // heads
    prefix = _prefix(tensors)

    def weight(name: str) -> npt.NDArray[np.float32]:
        key = prefix + name
        if key not in tensors:
            raise ConfigError(f"the safetensors file has no tensor {key!r}")
        return np.asarray(tensors[key], dtype=np.float32)

    g = _Graph()
    f32 = np.float32
    one = g.constant("one", np.array(1.0, f32))
    heads_shape = g.constant("heads_shape", np.array([0, 0, heads, head], np.int64))
    hidden_shape = g.constant("hidden_shape", np.array([0, 0, hidden], np.int64))

    # Embeddings: word + position + token type, then LayerNorm.
    ids, mask, types = INPUTS
    words = g.op(
        "Gather", g.constant("word_embeddings", weight("embeddings.word_embeddings.weight")), ids
    )
    length = g.op("Shape", ids, start=1, end=2)  # [sequence length], 1-D
    position_table = weight("embeddings.position_embeddings.weight")
    placed = g.op(
        "Slice",
        g.constant("position_embeddings", position_table),
        g.constant("zero_1d", np.array([0], np.int64)),
        length,
        g.constant("axes_0", np.array([0], np.int64)),
    )
    typed = g.op(
        "Gather",
        g.constant("token_type_embeddings", weight("embeddings.token_type_embeddings.weight")),
        types,
    )
    x = g.op("Add", g.op("Add", words, placed), typed)

    def layer_norm(value: str, name: str) -> str:
        return g.op(
            "LayerNormalization",
            value,
            g.constant(f"{name}.weight", weight(f"{name}.weight")),
            g.constant(f"{name}.bias", weight(f"{name}.bias")),
            axis=-1,
            epsilon=epsilon,
        )

    def product(value: str, name: str, scale: float = 1.0) -> str:
        # torch stores (out, in); MatMul wants (in, out).
        matrix = g.constant(f"{name}.weight", weight(f"{name}.weight").T * f32(scale))
        return g.op("MatMul", value, matrix)

    def linear(value: str, name: str, scale: float = 1.0) -> str:
        bias = g.constant(f"{name}.bias", weight(f"{name}.bias") * f32(scale))
        return g.op("Add", product(value, name, scale), bias)

    x = layer_norm(x, "embeddings.LayerNorm")

    # Padding positions get the lowest float added to their attention scores, as in
    # transformers: after the softmax they weigh nothing.
    mask_f = g.op("Cast", mask, to=TensorProto.FLOAT)
    lowest = g.constant("lowest", np.array(np.finfo(f32).min, f32))
    blocked = g.op("Mul", g.op("Sub", one, mask_f), lowest)
    score_bias = g.op("Unsqueeze", blocked, g.constant("axes_1_2", np.array([1, 2], np.int64)))

    for index in range(layers):
        base = f"encoder.layer.{index}"
        # The 1/sqrt(head size) of the scores is folded into the query weights.
        query = linear(x, f"{base}.attention.self.query", scale=1.0 / math.sqrt(head))
        # No key bias: it adds q . bias to all of a query's scores alike (softmax ignores it).
        key = product(x, f"{base}.attention.self.key")
        value = linear(x, f"{base}.attention.self.value")
        query = g.op("Transpose", g.op("Reshape", query, heads_shape), perm=[0, 2, 1, 3])
        key = g.op("Transpose", g.op("Reshape", key, heads_shape), perm=[0, 2, 3, 1])
        value = g.op("Transpose", g.op("Reshape", value, heads_shape), perm=[0, 2, 1, 3])
        scores = g.op("Add", g.op("MatMul", query, key), score_bias)
        weights = g.op("Softmax", scores, axis=-1)
        context = g.op("Transpose", g.op("MatMul", weights, value), perm=[0, 2, 1, 3])
        context = g.op("Reshape", context, hidden_shape)
        attended = linear(context, f"{base}.attention.output.dense")
        x = layer_norm(g.op("Add", attended, x), f"{base}.attention.output.LayerNorm")
        name = f"{base}.intermediate.dense"
        inner = product(x, name)
        bias = g.constant(f"{name}.bias", weight(f"{name}.bias"))
        if activation == "gelu":  # exact: x * 0.5 * (1 + erf(x / sqrt 2))
            inner = g.op("BiasGelu", inner, bias, domain=_MS)
        elif activation == "relu":
            inner = g.op("Relu", g.op("Add", inner, bias))
        else:  # tanh approximation
            inner = g.op("FastGelu", inner, bias, domain=_MS)
        out = linear(inner, f"{base}.output.dense")
        x = layer_norm(g.op("Add", out, x), f"{base}.output.LayerNorm")

    if pooling is None:
        return _model(g, x, TOKENS, ["batch", "sequence", hidden])

    # Pooling over the real tokens, as sentence-transformers' Pooling module does.
    axis_1 = g.constant("axes_1", np.array([1], np.int64))
    if pooling != "cls":
        mask_3d = g.op("Unsqueeze", mask_f, g.constant("axes_2", np.array([2], np.int64)))
    if pooling == "mean":
        total = g.op("ReduceSum", g.op("Mul", x, mask_3d), axis_1, keepdims=0)
        count = g.op("ReduceSum", mask_3d, axis_1, keepdims=0)
        count = g.op("Max", count, g.constant("min_count", np.array(1e-9, f32)))
        pooled = g.op("Div", total, count)
    elif pooling == "cls":
        first = g.op("Gather", x, g.constant("first", np.array([0], np.int64)), axis=1)
        pooled = g.op("Squeeze", first, axis_1)
    else:
        keep = g.op("Cast", mask_3d, to=TensorProto.BOOL)
        floor = g.constant("max_floor", np.array(-1e9, f32))
        pooled = g.op("ReduceMax", g.op("Where", keep, x, floor), axes=[1], keepdims=0)
    if normalize:
        norm = g.op("ReduceL2", pooled, axes=[1], keepdims=1)
        norm = g.op("Max", norm, g.constant("min_norm", np.array(1e-12, f32)))
        pooled = g.op("Div", pooled, norm)
    return _model(g, pooled, OUTPUT, ["batch", hidden])


def _model(g: _Graph, result: str, name: str, shape: list[Any]) -> onnx.ModelProto:
    from onnx import TensorProto, helper

    g.nodes.append(helper.make_node("Identity", [result], [name], "output"))
    batch_by_length = ["batch", "sequence"]
    inputs = [
        helper.make_tensor_value_info(each, TensorProto.INT64, batch_by_length) for each in INPUTS
    ]
    outputs = [helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)]
    graph = helper.make_graph(g.nodes, "sentence_encoder", inputs, outputs, g.initializers)
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", _OPSET), helper.make_opsetid(_MS, 1)],
        producer_name="toolscout-onnx",
        producer_version=str(GRAPH_VERSION),
    )
    model.ir_version = _IR_VERSION
    return model
