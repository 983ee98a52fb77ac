"""asyncio: awaiting a device without blocking the event loop. The wait runs
in one of Tack's tack-wait threads, which resumes the coroutine through
loop.call_soon_threadsafe; the loop keeps running meanwhile. tack.sync_async
is here; Device.synchronize_async and Array.numpy_async use device_future()."""
import asyncio

from . import _core


def device_future(register):
    """An asyncio future of the running loop, settled when register(callback) calls back: with None,
    or with the exception of a launch that failed."""
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
    await device_future(_core._when_all_done)
