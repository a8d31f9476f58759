"""The first pass of a search by meaning: the held vectors as they are stored (signed bytes,
`embedding.codes_of`) times the query, in integers, on onnxruntime's MatMulInteger.

A stored vector is its unit vector times a scale of its own (its largest component at 127),
so the bytes are read exactly; only the query is rounded. It is rounded twice over: to bytes,
then what that left out to bytes again, the two as two rows of one product. A cosine so
found is within `error` (below 1e-4) of the float32 one: the rest of the query's rounding
(at most its length, the rows being unit vectors) and the float arithmetic's. The matrix
(100,000 x 384) is a quarter of the float32 one to read, and the product runs in a third of
numpy's float32 time (bench/results/2026-12-05-int8).

onnxruntime's fastest kernel here multiplies unsigned bytes on the left by signed bytes on
the right, so the query (shifted by 128, a zero point the operator takes off) is on the left
and the vectors, held one a column (`columns`), on the right.
"""

import threading

import numpy as np
import onnxruntime
from onnx import TensorProto, helper

# The float arithmetic's share of `error`: a float32 dot product of two unit vectors of 384
# components is off by at most 384 x 2^-24 (2.3e-5), and the scaling here by a few units in
# the last place.
FLOAT_SLACK = 5e-5
ZERO_POINT = 128
REPACK_AFTER = 4096  # columns written since the last packing, at least, before the next
STEPS = 127  # a query's largest component, in bytes


def rounded_twice(queries: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The queries (unit vectors, one a row) rounded twice to bytes: (the two roundings of
    each, shifted to unsigned bytes, as rows 2i and 2i + 1; their scales, one row a query;
    how far each query's cosines may be from the float32 ones)."""
    queries = queries.astype(np.float64)
    first, first_scale = _rounded(queries)
    left = queries - first * first_scale
    second, second_scale = _rounded(left)
    rest = left - second * second_scale
    both = np.stack([first, second], axis=1).reshape(-1, queries.shape[1])
    shifted = (both + ZERO_POINT).astype(np.uint8)
    scales = np.concatenate([first_scale, second_scale], axis=1)
    return shifted, scales, np.linalg.norm(rest, axis=1) + FLOAT_SLACK


def _rounded(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    peaks = np.abs(rows).max(axis=1, keepdims=True)
    scales = np.where(peaks > 0, peaks / STEPS, 1.0)
    return np.round(rows / scales), scales


class Packed:
    """A search's first pass over the stored vectors, one a column of a matrix that only grows
    (`_Vectors.columns`). The matrix is handed to onnxruntime as the constant of a graph of
    its own, which packs it once for its kernel: a product in less than half the time of one
    whose matrix is an input (bench/results/2026-12-05-int8). Its columns up to `packed`
    (those in use then) are read from that packing; those written since go through the graph
    that takes them as an input, until they are more than an eighth of the packed ones
    (REPACK_AFTER at least) and all are packed again (0.3 s at 100,000), as they are once the
    matrix is another (grown by an eighth): the one packed is not kept. A column changed since
    it was packed (a vector gone) keeps its old product: the caller leaves its rows out."""

    def __init__(self):
        self.packed = 0
        self._session = None
        self._matrix = None  # what onnxruntime was handed (not copied): kept while it is used

    def products(self, columns: np.ndarray, used: int, queries: np.ndarray):
        """(each query's dot product with each of the first `used` columns of `columns`
        (signed bytes, a stored vector a column), a row a query; how far each may be from the
        float32 product of the query with the column's unit vector, once divided by the
        column's length)."""
        shifted, scales, error = rounded_twice(queries)
        written = used - self.packed
        if columns is not self._matrix or written > max(REPACK_AFTER, self.packed // 8):
            self._session, self._matrix, self.packed = _session(columns), columns, used
        parts = [self._session.run(None, {"queries": shifted})[0][:, : self.packed]]
        if used > self.packed:
            since = np.ascontiguousarray(columns[:, self.packed : used])
            parts.append(_session().run(None, {"queries": shifted, "columns": since})[0])
        exact = np.concatenate(parts, axis=1) if len(parts) > 1 else parts[0]
        halves = exact.reshape(len(queries), 2, -1).astype(np.float32)
        dots = halves[:, 0] * scales[:, :1].astype(np.float32)
        dots += halves[:, 1] * scales[:, 1:].astype(np.float32)
        return dots, error


_built = threading.Lock()
_input_graph: list[onnxruntime.InferenceSession] = []


def _session(columns: np.ndarray | None = None) -> onnxruntime.InferenceSession:
    """A MatMulInteger graph of the queries (shifted bytes) times `columns` (C-contiguous),
    its constant, handed over in place (an initializer held outside the graph); or of the
    queries times an input "columns" (one graph a process). Run on one thread as the encoder
    is: a web worker's search takes one core."""
    if columns is None:
        with _built:
            if not _input_graph:
                _input_graph.append(_session_of(None))
            return _input_graph[0]
    return _session_of(columns)


def _session_of(columns: np.ndarray | None) -> onnxruntime.InferenceSession:
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    inputs = [helper.make_tensor_value_info("queries", TensorProto.UINT8, ["q", "d"])]
    constants = [helper.make_tensor("zero", TensorProto.UINT8, [], [ZERO_POINT])]
    if columns is None:
        inputs.append(helper.make_tensor_value_info("columns", TensorProto.INT8, ["d", "n"]))
    else:
        elsewhere = TensorProto(name="columns", data_type=TensorProto.INT8, dims=columns.shape)
        elsewhere.data_location = TensorProto.EXTERNAL
        elsewhere.external_data.add(key="location", value="held-by-the-process")
        constants.append(elsewhere)
        options.add_external_initializers(
            ["columns"], [onnxruntime.OrtValue.ortvalue_from_numpy(columns)]
        )
    graph = helper.make_graph(
        [helper.make_node("MatMulInteger", ["queries", "columns", "zero"], ["dots"])],
        "int8-first-pass",
        inputs,
        [helper.make_tensor_value_info("dots", TensorProto.INT32, ["q", "n"])],
        constants,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    return onnxruntime.InferenceSession(
        model.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )
