from django.apps import AppConfig


class MemoriesConfig(AppConfig):
    name = "memories"

    def ready(self) -> None:
        # Imported once the models are loaded: the checks read the store's schema.
        from memories import checks  # noqa: F401  (registers the encoder's system check)
        from memories.engine import checks as engine_checks  # noqa: F401  (the store's)

        _one_blas_thread()


def _one_blas_thread() -> None:
    """Numpy's products (the search by meaning, the pairs of near-copies) on one thread: on
    two, OpenBLAS's helper thread spins for a fraction of a second after each product
    returns, a second core's CPU taken from the requests beside it, for a product that is
    no faster (hybrid search's CPU against the words' on two threads and on one:
    bench/results/2026-12-01-meaning-4)."""
    import numpy  # noqa: F401  (loads the BLAS library whose threads are set)
    from threadpoolctl import threadpool_limits

    threadpool_limits(1, user_api="blas")
