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


def products(columns: np.ndarray, queries: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(each query's dot product with each column of `columns` (signed bytes, a stored vector
    a column), a row a query; how far each may be from the float32 product of the query with
    the column's unit vector, once divided by the column's length)."""
    shifted, scales, error = rounded_twice(queries)
    (exact,) = _session().run(None, {"queries": shifted, "columns": columns})
    halves = exact.reshape(len(queries), 2, -1).astype(np.float32)
    dots = halves[:, 0] * scales[:, :1].astype(np.float32)
    dots += halves[:, 1] * scales[:, 1:].astype(np.float32)
    return dots, error


_built = threading.Lock()
_sessions: list[onnxruntime.InferenceSession] = []


def _session() -> onnxruntime.InferenceSession:
    """One MatMulInteger graph a process, run on one thread as the encoder is: a web
    worker's search takes one core."""
    with _built:
        if not _sessions:
            graph = helper.make_graph(
                [helper.make_node("MatMulInteger", ["queries", "columns", "zero"], ["dots"])],
                "int8-first-pass",
                [
                    helper.make_tensor_value_info("queries", TensorProto.UINT8, ["q", "d"]),
                    helper.make_tensor_value_info("columns", TensorProto.INT8, ["d", "n"]),
                ],
                [helper.make_tensor_value_info("dots", TensorProto.INT32, ["q", "n"])],
                [helper.make_tensor("zero", TensorProto.UINT8, [], [ZERO_POINT])],
            )
            model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
            options = onnxruntime.SessionOptions()
            options.intra_op_num_threads = 1
            options.inter_op_num_threads = 1
            _sessions.append(
                onnxruntime.InferenceSession(
                    model.SerializeToString(), options, providers=["CPUExecutionProvider"]
                )
            )
        return _sessions[0]
