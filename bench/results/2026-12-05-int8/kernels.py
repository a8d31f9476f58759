"""Which MatMulInteger of onnxruntime multiplies 100,000 stored vectors (int8) by a query
fastest: the CPU time of one run (median of 21, one thread), by layout and kernel, for 1 to
40 query rows (a query rounded twice is 2 rows; 20 synonyms are 40), against numpy's float32
product of the unit rows. Reads the vectors of a store with them (SQLite, read only).

    .venv/bin/python bench/results/2026-12-05-int8/kernels.py STORE/memadmin.sqlite3
"""

import sqlite3
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper
from threadpoolctl import threadpool_limits


def median_ms(run, k=21):
    times = []
    for _ in range(k):
        started = time.process_time()
        run()
        times.append(time.process_time() - started)
    return statistics.median(times) * 1000


def session(a, b, zero_a=False, constant=None):
    """MatMulInteger of A (a) by B (b); B a graph constant when `constant` is given."""
    inputs = ["A", "B"] + (["za"] if zero_a else [])
    constants = [helper.make_tensor("za", TensorProto.UINT8, [], [128])] if zero_a else []
    declared = [helper.make_tensor_value_info("A", a, ["m", "k"])]
    if constant is None:
        declared.append(helper.make_tensor_value_info("B", b, ["k", "n"]))
    else:
        constants.append(numpy_helper.from_array(constant, "B"))
    graph = helper.make_graph(
        [helper.make_node("MatMulInteger", inputs, ["Y"])],
        "g",
        declared,
        [helper.make_tensor_value_info("Y", TensorProto.INT32, None)],
        constants,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    return ort.InferenceSession(
        model.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )


def main():
    print(f"load average before: {Path('/proc/loadavg').read_text().strip()}")
    threadpool_limits(1, user_api="blas")  # as the app sets
    db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
    blobs = [row[0] for row in db.execute("SELECT vector FROM memories_memoryvector")]
    codes = np.frombuffer(b"".join(blobs), dtype=np.int8).reshape(len(blobs), 384).copy()
    columns = np.ascontiguousarray(codes.T)
    shifted_rows = (codes.astype(np.int16) + 128).astype(np.uint8)
    unit = codes.astype(np.float32)
    unit /= np.linalg.norm(unit, axis=1, keepdims=True)
    rng = np.random.default_rng(0)
    rows_s8_by_s8 = session(TensorProto.INT8, TensorProto.INT8)
    rows_u8_by_s8 = session(TensorProto.UINT8, TensorProto.INT8)
    query_u8_by_columns = session(TensorProto.UINT8, TensorProto.INT8, zero_a=True)
    packed = session(TensorProto.UINT8, None, zero_a=True, constant=columns)
    print(f"{len(codes)} vectors; CPU ms of one product, median of 21, one thread\n")
    print(
        f"{'rows':>4} {'numpy f32':>10} {'s8 rows x s8 q':>15} {'u8 rows x s8 q':>15}"
        f" {'u8 q x s8 cols':>15} {'same, packed':>13}"
    )
    for k in (1, 2, 4, 8, 40):
        q = rng.integers(-127, 128, (384, k)).astype(np.int8)
        qt = np.ascontiguousarray((q.T.astype(np.int16) + 128).astype(np.uint8))
        floats = rng.standard_normal((max(k // 2, 1), 384)).astype(np.float32)
        runs = [
            lambda floats=floats: unit @ floats.T,
            lambda q=q: rows_s8_by_s8.run(None, {"A": codes, "B": q}),
            lambda q=q: rows_u8_by_s8.run(None, {"A": shifted_rows, "B": q}),
            lambda qt=qt: query_u8_by_columns.run(None, {"A": qt, "B": columns}),
            lambda qt=qt: packed.run(None, {"A": qt}),
        ]
        cells = [median_ms(run) for run in runs]
        print(
            f"{k:>4} "
            + " ".join(f"{c:>{w}.1f}" for c, w in zip(cells, (10, 15, 15, 15, 13), strict=True))
        )
    print(
        "\n(numpy: the float32 product with k/2 query rows, as many as the queries rounded twice)"
    )
    print(f"load average after: {Path('/proc/loadavg').read_text().strip()}")


if __name__ == "__main__":
    main()
