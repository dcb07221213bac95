"""`HalDeviceLoopBridge`: semaphore timepoints as asyncio futures."""

import itertools
import threading
import weakref

from ._binding import TimepointListener

__all__ = ["HalDeviceLoopBridge"]


class HalDeviceLoopBridge:
    """Bridges a device's semaphores to an asyncio event loop:
    `on_semaphore(sem, value, obj)` is a future of `loop` that resolves to
    `obj` once `sem` reaches `value` (or fails with the semaphore's
    failure). Nothing blocks or polls meanwhile; `stop()` ends the bridge
    (also done at interpreter exit)."""

    def __init__(self, device, loop):
        self._device = device
        self._loop = loop
        self._pending = {}
        self._lock = threading.Lock()
        self._tokens = itertools.count()
        # The listener thread must not keep the bridge alive.
        reached = weakref.WeakMethod(self._reached)
        self._listener = TimepointListener(lambda token, error: _call_if_alive(reached, token, error))
        self._finalizer = weakref.finalize(self, self._listener.stop)

    def on_semaphore(self, semaphore, payload, value):
        """A future resolving to `value` once `semaphore` reaches `payload`."""
        future = self._loop.create_future()
        token = next(self._tokens)
        with self._lock:
            self._pending[token] = (future, value)
        self._listener.listen(semaphore, payload, token)
        return future

    def stop(self):
        """Stops delivering results; futures still pending stay pending."""
        self._finalizer()

    def _reached(self, token, error):
        # On the listener thread, with the GIL.
        with self._lock:
            entry = self._pending.pop(token, None)
        if entry is None:
            return
        future, value = entry
        try:
            self._loop.call_soon_threadsafe(_resolve, future, value, error)
        except RuntimeError:
            pass  # The loop is closed: nobody awaits the future any more.


def _call_if_alive(method_ref, token, error):
    method = method_ref()
    if method is not None:
        method(token, error)


def _resolve(future, value, error):
    if future.done():
        return  # Cancelled meanwhile.
    if error is None:
        future.set_result(value)
    else:
        future.set_exception(RuntimeError(f"semaphore failed: {error}"))
