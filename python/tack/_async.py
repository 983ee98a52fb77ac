"""asyncio: awaiting a device without blocking the event loop. The wait runs
in one of Tack's tack-wait threads, which resumes the coroutine through
loop.call_soon_threadsafe; the loop keeps running meanwhile."""
import asyncio

from . import _core


def _future(register):
    loop = asyncio.get_running_loop()
    future = loop.create_future()

    def done(error):
        def settle():
            if future.done():
                return
            if error is None:
                future.set_result(None)
            else:
                future.set_exception(error)

        try:
            loop.call_soon_threadsafe(settle)
        except RuntimeError:  # the loop was closed while the device worked: nobody is waiting
            pass

    register(done)
    return future


async def sync_async():
    """Waits for the launches queued so far on every device (later ones are not waited for)."""
    await _future(_core._when_all_done)


async def _device_synchronize_async(self):
    await _future(self._when_done)


async def _array_numpy_async(self):
    """The array as NumPy once the launches queued before this call have run."""
    await _future(self._when_done)
    return self.numpy()


_core.Device.synchronize_async = _device_synchronize_async
_core.Array.numpy_async = _array_numpy_async
