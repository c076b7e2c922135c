"""Where an iteration's chunks run: the default local pool of threads, or a Ray cluster.
Either way the trainer gets the results in the chunks' order and reduces them itself, so
the checkpoints are the same bits for any worker count and any place the chunks ran."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from .options import TaskHooks


class LocalPool:
    """A pool of threads (the kernels run without the GIL)."""

    def __init__(self, workers: int):
        self.workers = workers
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="maul-train") \
            if workers > 1 else None

    def dispatch(self, work, payloads):
        if self._pool is None:
            return [work(p) for p in payloads]
        return [self._pool.submit(work, p) for p in payloads]

    def collect(self, handle):
        return handle if self._pool is None else [f.result() for f in handle]

    def run_all(self, work, spans) -> None:
        """work(lo, hi) for every span, the first on this thread, the others on the pool's
        at the same time; returns when all are done (the trainer's AdamW step)."""
        others = [self._pool.submit(work, lo, hi) for lo, hi in spans[1:]]
        try:
            work(*spans[0])
        finally:
            for f in others:
                f.result()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None


def local_hooks(workers: int) -> TaskHooks:
    """Task hooks over a LocalPool of `workers` threads (its user)."""
    pool = LocalPool(workers)
    return TaskHooks(lambda user, work, payloads: user.dispatch(work, payloads),
                     lambda user, handle: user.collect(handle), pool)


def ray_hooks(address: str | None = None, workers: int = 2, **init) -> TaskHooks:
    """Task hooks that run each chunk as a Ray task (`ray.init(address)`, or a local
    instance of `workers` CPUs when no cluster is running); needs the `ray` extra."""
    import ray
    if not ray.is_initialized():
        if address is None:
            init.setdefault("num_cpus", workers)
        ray.init(address=address, include_dashboard=False, log_to_driver=False, **init)
    remote = {}

    def dispatch(user, work, payloads):
        if work not in remote:
            remote[work] = ray.remote(work)
        return [remote[work].remote(p) for p in payloads]

    return TaskHooks(dispatch, lambda user, handle: ray.get(handle), None)
