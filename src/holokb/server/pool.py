"""A bounded pool of worker processes; every job runs under a hard deadline.

* **Admission**: at most ``max_pending`` jobs are admitted at once (running or queued for a
  worker); one more is refused at once with 503 and ``Retry-After``.
* **Deadline**: a job gets ``timeout_s`` from admission.  The worker is told a cooperative budget
  (a little less), so budgets in the closure and SPARQL result loop stop it cleanly when they can;
  if it has not answered by the deadline, the worker process is killed (SIGKILL — pyoxigraph
  cannot interrupt a running query), its memory goes back to the system, a fresh worker is started
  in the background, and the client gets 503 ``deadline``.
* A worker that dies on its own (a bug, the OOM killer) is replaced the same way.

Waiting never blocks the event loop: the pipe's descriptor is watched with ``add_reader``.
"""
from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
from dataclasses import dataclass
from typing import Any

from .errors import HttpProblem, Problem
from .jobs import Job, LoadFiles, Outcome
from .worker import WorkerSpec, worker_main

#: Share of the remaining time given to the worker as its own budget (the rest is for serialising).
COOPERATIVE_SHARE = 0.85


class WorkerStartError(Exception):
    """A worker could not open the KB (the message says why)."""


def _context() -> Any:
    # forkserver: workers fork from a clean, single-threaded server process with holokb preloaded
    # (fast starts, no threads of the event loop copied into a child).
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["holokb.server.worker"])
    return ctx


@dataclass(eq=False)
class _Worker:
    proc: Any
    conn: Any
    pid: int

    @staticmethod
    def start(spec: WorkerSpec, timeout_s: float) -> "_Worker":
        """Start a worker and wait until it has opened the KB (blocking; run it off the event loop)."""
        ctx = _context()
        parent, child = ctx.Pipe()
        proc = ctx.Process(target=worker_main, args=(child, spec), daemon=True, name="holokb-worker")
        proc.start()
        child.close()
        if not parent.poll(timeout_s):
            proc.kill()
            proc.join()
            raise WorkerStartError(f"a worker did not open {spec.db} within {timeout_s:g}s")
        try:
            kind, value = parent.recv()
        except (EOFError, OSError):
            proc.join()
            raise WorkerStartError(f"a worker exited while opening {spec.db} (exit code {proc.exitcode})") from None
        if kind != "ready":
            proc.join()
            raise WorkerStartError(str(value))
        return _Worker(proc, parent, int(value))

    def stop(self) -> None:
        """Kill and reap (SIGKILL: nothing in a worker needs a clean exit; SQLite rolls back)."""
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(5)
        self.conn.close()


class WorkerPool:
    """``size`` worker processes over one KB; see the module doc for admission and deadlines."""

    def __init__(self, spec: WorkerSpec, *, size: int = 2, max_pending: int = 64, start_timeout_s: float = 120.0):
        if size < 1 or max_pending < size:
            raise ValueError("need size >= 1 and max_pending >= size")
        self.spec = spec
        self.size = size
        self.max_pending = max_pending
        self.start_timeout_s = start_timeout_s
        self._idle: asyncio.Queue[_Worker] = asyncio.Queue()
        self._all: set[_Worker] = set()
        self._pending = 0
        self._tasks: set[asyncio.Task] = set()
        self._closed = False
        self.killed: list[int] = []  # pids stopped at a deadline (for tests and the log)

    @property
    def pids(self) -> tuple[int, ...]:
        return tuple(sorted(w.pid for w in self._all))

    @property
    def pending(self) -> int:
        return self._pending

    async def start(self) -> None:
        """Start every worker (in parallel); raises :class:`WorkerStartError` if one cannot open the KB."""
        workers = await asyncio.gather(*(asyncio.to_thread(_Worker.start, self.spec, self.start_timeout_s)
                                         for _ in range(self.size)), return_exceptions=True)
        errors = [w for w in workers if isinstance(w, BaseException)]
        for w in workers:
            if isinstance(w, _Worker):
                self._all.add(w)
                self._idle.put_nowait(w)
        if errors:
            await self.close()
            raise errors[0]

    async def close(self) -> None:
        """Stop every worker and background start."""
        self._closed = True
        for t in list(self._tasks):
            t.cancel()
        for w in list(self._all):
            await asyncio.to_thread(w.stop)
        self._all.clear()

    async def run(self, job: Job | Any, *, timeout_s: float) -> Outcome:
        """Run ``job`` on a worker within ``timeout_s`` (503 when over capacity or past the deadline)."""
        if self._closed:
            raise HttpProblem(Problem(503, "shutting-down", "the server is shutting down"))
        if self._pending >= self.max_pending:
            raise HttpProblem(Problem(503, "overloaded", f"{self._pending} requests are already admitted "
                                      f"(the limit is {self.max_pending}); try again shortly",
                                      headers=(("Retry-After", "1"),)))
        self._pending += 1
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        try:
            try:
                async with asyncio.timeout(max(0.0, deadline - loop.time())):
                    worker = await self._idle.get()  # Queue.get loses no item when cancelled
            except TimeoutError:
                raise HttpProblem(_deadline(timeout_s, "waiting for a free worker")) from None
            return await self._run_on(worker, job, deadline, timeout_s)
        finally:
            self._pending -= 1

    async def _run_on(self, w: _Worker, job: Any, deadline: float, timeout_s: float) -> Outcome:
        loop = asyncio.get_running_loop()
        if hasattr(job, "budget_s"):
            job = _with_budget(job, max(0.0, deadline - loop.time()) * COOPERATIVE_SHARE)
        try:
            if isinstance(job, LoadFiles):
                await asyncio.to_thread(w.conn.send, job)  # an upload may not fit the pipe buffer
            else:
                w.conn.send(job)  # a few hundred bytes: the idle worker is already reading
            ready = loop.create_future()
            fd = w.conn.fileno()
            loop.add_reader(fd, lambda: ready.done() or ready.set_result(None))
            try:
                await asyncio.wait_for(ready, timeout=max(0.0, deadline - loop.time()))
            finally:
                loop.remove_reader(fd)
                # uvloop leaves a watched descriptor non-blocking: a reply larger than the pipe's buffer
                # would then fail half-read with EAGAIN (BlockingIOError), and so would the next send.
                os.set_blocking(fd, True)
            # Readable means the worker has finished and is writing the whole reply now: reading it
            # here costs a memory copy, less than a hop to a thread and back.
            out = w.conn.recv()
        except TimeoutError:
            self.killed.append(w.pid)
            self._replace(w)
            raise HttpProblem(_deadline(timeout_s, "running")) from None
        except (EOFError, OSError, BrokenPipeError) as e:
            w.proc.join(1)  # it closed its end: it has exited, or is about to
            logging.getLogger("holokb.server").error("lost worker %d while running a %s job: %r (exit code %s)",
                                                     w.pid, type(job).__name__, e, w.proc.exitcode)
            self._replace(w)
            raise HttpProblem(Problem(500, "worker-died", "the worker running this request exited; it has been "
                                      "replaced")) from None
        except BaseException:  # cancelled (client gone, shutdown): the worker may still be busy
            self._replace(w)
            raise
        if isinstance(out, Problem) and out.code in ("internal-error", "out-of-memory"):
            self._replace(w)  # the worker exits after such a reply
        else:
            self._idle.put_nowait(w)
        return out

    def _replace(self, w: _Worker) -> None:
        """Kill ``w`` now; start its successor in the background."""
        if w.proc.is_alive():
            w.proc.kill()
        self._all.discard(w)

        async def successor() -> None:
            await asyncio.to_thread(w.stop)
            if self._closed:
                return
            try:
                fresh = await asyncio.to_thread(_Worker.start, self.spec, self.start_timeout_s)
            except WorkerStartError as e:  # the pool runs one short; say so where the operator looks
                logging.getLogger("holokb.server").error("could not replace a stopped worker: %s", e)
                return
            if self._closed:
                await asyncio.to_thread(fresh.stop)
                return
            self._all.add(fresh)
            self._idle.put_nowait(fresh)

        task = asyncio.get_running_loop().create_task(successor())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


def _with_budget(job: Any, budget_s: float) -> Any:
    import dataclasses

    return dataclasses.replace(job, budget_s=budget_s)


def _deadline(timeout_s: float, phase: str) -> Problem:
    return Problem(503, "deadline", f"the request passed its deadline of {timeout_s:g}s while {phase}; its work "
                   "was stopped", hint="narrow the request, or start the server with a longer --timeout",
                   headers=(("Retry-After", "1"),))
